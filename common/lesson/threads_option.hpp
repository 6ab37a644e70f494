// --threads N, for a chapter that trains: the GPT's products, heads and element-wise passes
// (chapters 22 and 23), or the copy models a step trains, one a thread (chapters 19 and 20),
// shared by N threads (common/numbers/threads.hpp), the same numbers at any N. 0, the default,
// takes the machine's cores, at most eight. (Chapter 16 trains one copy model, on one thread.)
#pragma once

class Lesson;

void add_threads_option(Lesson& lesson);
