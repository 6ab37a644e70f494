// Work cut into pieces that run side by side, where no sum is cut: every number a piece writes
// is computed by one thread, in the order one thread alone would compute it (a product's rows,
// a batch's sequences, a vector's entries, a column's sum over the rows). So a training gives
// the same bits at one thread or eight.
//
//   threads::set_count(4);                  // the lesson sets it (--threads); 1 until then
//   threads::split(rows, [&](std::size_t begin, std::size_t end) {
//       for (std::size_t i = begin; i < end; ++i) … row i …
//   });
//
// The pool's threads are made once, by the first split that needs them; between splits they
// watch for the next one for 50 µs, then sleep (a machine busy with other work loses little to
// them). A split asked from inside a piece runs whole on the thread that asked. The WebAssembly build has one
// thread: its pages open from file://, where a browser gives no shared memory.
#pragma once

#include <cstddef>
#include <functional>

namespace threads {

// How many threads a split uses (the calling one included), at least 1.
void set_count(std::size_t count);
std::size_t count();

// piece(begin, end) for consecutive ranges that cover [0, total), a few for each of count()
// threads (each thread takes the next one left), each a multiple of `grain` long but the last;
// returns when every piece has run. An exception
// thrown by a piece is thrown here, once the others have ended.
void split(std::size_t total, const std::function<void(std::size_t, std::size_t)>& piece, std::size_t grain = 1);

}  // namespace threads
