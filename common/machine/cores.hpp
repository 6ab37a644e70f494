// How many threads a training takes (threads.hpp): the count asked for, or with 0 the
// machine's cores, at most eight (a laptop's; more cores than that wait on memory).
#pragma once

#include <cstddef>

std::size_t training_threads(std::size_t asked);
