// Eight floats as one vector of the compiler (GCC's and clang's vector extension): one AVX
// register, two SSE ones, or eight lanes of scalar code in WebAssembly. Their + and × round as
// float does, one operation at a time: the same sums in the same order on every machine.
#pragma once

typedef float eight_floats __attribute__((vector_size(32)));
typedef int eight_ints __attribute__((vector_size(32)));
// the same eight floats read or written at any float of a matrix (no 32-byte alignment)
typedef float eight_floats_anywhere __attribute__((vector_size(32), aligned(4), may_alias));

// A function compiled twice on x86-64, for AVX2 and for any x86-64, the machine picking at run
// time; once elsewhere (WebAssembly has neither).
#if defined(__x86_64__)
#define COMPILED_FOR_AVX2_AND_ANY_X86_64 __attribute__((target_clones("avx2", "default")))
#else
#define COMPILED_FOR_AVX2_AND_ANY_X86_64
#endif
