// --threads N, for a chapter that trains (16, 19, 20, 22, 23): the trainings' products, heads
// and element-wise passes shared by N threads (common/numbers/threads.hpp), the same numbers at
// any N. 0, the default, takes the machine's cores, at most eight; the training's line on
// stderr says how many it used.
#pragma once

class Lesson;

void add_threads_option(Lesson& lesson);
