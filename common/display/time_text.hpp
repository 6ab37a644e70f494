// A measured time as the lessons print it, in the unit that keeps it readable:
//
//   time_text(0.0000246) → "24.6 µs"    time_text(0.00123) → "1.23 ms"    time_text(2.5) → "2.50 s"
//
// Chapters 10 and 13 print their timings with it.
#pragma once

#include <string>

// Below a millisecond in µs (one decimal), below a second in ms, else in s (two decimals).
std::string time_text(double seconds);
