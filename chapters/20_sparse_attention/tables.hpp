// Chapter 20 · the lesson's tables and charts: the window and top-k sweeps (steps 3 and 5)
// and the side-by-side table of every variant (step 6), from what math.cpp computed.
#pragma once

#include <string>

#include "chapters/20_sparse_attention/math.hpp"
#include "common/lesson/lesson.hpp"

// A share, an accuracy or a loss as the tables print it (3 decimals).
std::string three(double x);

void show_window_sweep(Lesson& lesson, const ReadModel& r);
void show_topk(Lesson& lesson, const ReadModel& r);
void show_variants(Lesson& lesson, const VariantsSideBySide& r, const CopyTaskSettings& s, const Variant& chosen);
