"""The numpy reference for the benchmarks: materialised attention
softmax(q @ k.T / 8) @ v on the same inputs as bench/long_attention_bench.cpp
(Q, K, V drawn by the project's generator with seeds 1, 2, 3), and a square
sgemm, timed with time.process_time (CPU seconds, like the benchmark's CPU
column) and the wall clock.

    /usr/bin/python3 bench/numpy_reference.py [--n 512 1024 …] [--json OUT]

Run it with the same OPENBLAS_NUM_THREADS as the benchmark (bench/run sets 1)."""
import argparse
import json
import sys
import time

import numpy as np

D = 64
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def normal_matrix(seed, rows, cols):
    """common/math/random.hpp's Random(seed).normal_matrix(rows, cols), vectorised:
    splitmix64 draws, two per sample, Box–Muller in double, rounded to float32."""
    count = rows * cols
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + np.arange(1, 2 * count + 1, dtype=np.uint64) * GOLDEN
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    uniform = (z >> np.uint64(11)).astype(np.float64) * 2.0**-53
    u1, u2 = 1.0 - uniform[0::2], uniform[1::2]
    normal = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
    return normal.astype(np.float32).reshape(rows, cols)


def attention(q, k, v):
    s = q @ k.T / np.float32(8.0)  # √64
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ v


def best_time(fn, min_total=0.5, max_repeats=20):
    """The fastest of several runs (CPU seconds and wall seconds of that run)."""
    best = None
    spent = 0.0
    for _ in range(max_repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        if best is None or cpu < best[0]:
            best = (cpu, wall)
        spent += wall
        if spent >= min_total:
            break
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192, 16384])
    parser.add_argument("--sgemm", type=int, default=2048, help="side of the square sgemm")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()

    results = []
    a, b = normal_matrix(4, args.sgemm, args.sgemm), normal_matrix(5, args.sgemm, args.sgemm)
    cpu, wall = best_time(lambda: a @ b)
    flops = 2.0 * args.sgemm**3
    results.append({"name": f"numpy_sgemm/{args.sgemm}", "n": args.sgemm, "cpu_s": cpu, "wall_s": wall,
                    "flops": flops})
    for n in args.n:
        q, k, v = normal_matrix(1, n, D), normal_matrix(2, n, D), normal_matrix(3, n, D)
        cpu, wall = best_time(lambda: attention(q, k, v))
        results.append({"name": f"numpy_materialised/{n}", "n": n, "cpu_s": cpu, "wall_s": wall,
                        "flops": 4.0 * n * n * D})
    for r in results:
        print(f"{r['name']:<26} {r['cpu_s'] * 1e3:10.1f} ms CPU {r['wall_s'] * 1e3:10.1f} ms wall "
              f"{r['flops'] / r['cpu_s'] / 1e9:8.1f} GFLOP/s", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
