// How many threads a training takes (threads.hpp): the count asked for, or with 0
// $TUTORIAL_THREADS when it is set (the test suite's one a program), else the machine's cores,
// at most eight (a laptop's; more cores than that wait on memory). An InputError when
// $TUTORIAL_THREADS is not a whole number from 1 to 64.
#pragma once

#include <cstddef>

std::size_t training_threads(std::size_t asked);
