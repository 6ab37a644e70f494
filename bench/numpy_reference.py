"""The numpy reference for the benchmarks: materialised attention
softmax(q @ k.T / 8) @ v on the same inputs as bench/long_attention_bench.cpp
(Q, K, V drawn by the project's generator with seeds 1, 2, 3), in two forms,
and a square sgemm, each the median of at least five runs of time.process_time
(CPU seconds, like the benchmark's CPU column) and of the wall clock.

  numpy_in_place   the numpy a careful user writes: one n × n array, scaled,
                   shifted, exponentiated and normalised in place (the yardstick)
  numpy_textbook   the one-line formula, which makes an n × n temporary per step

    /usr/bin/python3 bench/numpy_reference.py [--n 512 1024 …] [--json OUT]

Run it with the same OPENBLAS_NUM_THREADS as the benchmark (bench/run sets 1)."""
import argparse
import json
import statistics
import sys
import time

import numpy as np

D = 64
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def normal_matrix(seed, rows, cols):
    """common/numbers/random.hpp's Random(seed).normal_matrix(rows, cols), vectorised:
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


def attention_textbook(q, k, v):
    """softmax(q @ k.T / 8) @ v as the formula reads: s, s − max, exp, e / sum are each a new n × n array."""
    s = q @ k.T / np.float32(8.0)  # √64
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ v


def attention_in_place(q, k, v):
    """The same numbers with one n × n array, every step written over it."""
    s = q @ k.T
    s *= np.float32(1.0 / 8.0)
    s -= s.max(axis=1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=1, keepdims=True)
    return s @ v


def median_time(fn, min_runs=5, min_total=0.5, max_runs=50):
    """The median CPU and wall seconds of at least min_runs runs (more while they add up to
    less than min_total seconds): one run can be slowed by anything else on the machine."""
    cpu, wall = [], []
    while len(cpu) < max_runs and (len(cpu) < min_runs or sum(wall) < min_total):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192, 16384])
    parser.add_argument("--sgemm", type=int, default=2048, help="side of the square sgemm")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()

    results = []
    a, b = normal_matrix(4, args.sgemm, args.sgemm), normal_matrix(5, args.sgemm, args.sgemm)
    cpu, wall = median_time(lambda: a @ b)
    flops = 2.0 * args.sgemm**3
    results.append({"name": f"numpy_sgemm/{args.sgemm}", "n": args.sgemm, "cpu_s": cpu, "wall_s": wall,
                    "flops": flops})
    for n in args.n:
        q, k, v = normal_matrix(1, n, D), normal_matrix(2, n, D), normal_matrix(3, n, D)
        if not np.allclose(attention_in_place(q, k, v), attention_textbook(q, k, v), atol=1e-5):
            raise SystemExit(f"n = {n}: the two numpy forms disagree")
        for form, fn in (("in_place", attention_in_place), ("textbook", attention_textbook)):
            cpu, wall = median_time(lambda: fn(q, k, v))
            results.append({"name": f"numpy_{form}/{n}", "n": n, "cpu_s": cpu, "wall_s": wall,
                            "flops": 4.0 * n * n * D})
    for r in results:
        print(f"{r['name']:<26} {r['cpu_s'] * 1e3:10.1f} ms CPU {r['wall_s'] * 1e3:10.1f} ms wall "
              f"{r['flops'] / r['cpu_s'] / 1e9:8.1f} GFLOP/s", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
