"""A chapter's memory estimate is what it really holds: its refusal of a long --input is honest.

    python3 tests/memory_estimate.py BIN_DIR     (ctest runs it as memory_estimate, release build)

Chapters 13, 14 and 15 count the n × n matrices they hold (square_matrices_held in their
math.hpp) and refuse an --input whose matrices would not fit, before anything is computed.
Here each runs on inputs of two lengths, and:
  - its peak resident memory (the kernel's ru_maxrss) is measured;
  - its estimate is read from its own refusal, with TUTORIAL_MEMORY_LIMIT set too low.
The growth of the peak between the two lengths must be the growth of the estimate within
a factor of 1.25 either way (the fixed part, the program and its libraries, cancels). A
count too small would let a long input through to be killed; too large refuses what fits.
Not under the sanitizers: AddressSanitizer's shadow memory is no learner's peak.
"""
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.argv[1]).resolve()
LENGTHS = (500, 1000)
EMBEDDINGS_HEADER = (ROOT / "data" / "embeddings.csv").read_text().splitlines()[0]
# Each chapter with the header its --input needs (the width its projections or heads read),
# and its flags: chapter 15 holds h matrices of each kind, so two head counts.
CASES = [
    ("ch13_kv_cache", EMBEDDINGS_HEADER, []),
    ("ch14_rotary_positions", EMBEDDINGS_HEADER, []),
    ("ch15_grouped_query", "token," + ",".join(f"d{i}" for i in range(8)), []),
    ("ch15_grouped_query", "token," + ",".join(f"d{i}" for i in range(16)), ["--heads", "8", "--kv-heads", "2"]),
]
UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}


def write_sequence(path, header, n):
    rng = random.Random(n)
    width = len(header.split(",")) - 1
    rows = (f"t{i}," + ",".join(f"{rng.uniform(-1, 1):.3f}" for _ in range(width)) for i in range(n))
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def peak_bytes(program, args):
    """The program's peak resident memory with these arguments (it must run to the end, exit 0)."""
    child = subprocess.Popen([str(program), *args], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, start_new_session=True)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{program.name} {' '.join(args)}: exit {os.waitstatus_to_exitcode(status)}: "
                         f"{child.stderr.read().decode()}")
    return usage.ru_maxrss * 1024


def estimate_bytes(program, args):
    """What the chapter says it would need, from its refusal under a 1 MiB limit."""
    run = subprocess.run([str(program), *args], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, TUTORIAL_MEMORY_LIMIT=str(1024 ** 2)))
    found = re.search(r"would need ([0-9.]+) (B|KiB|MiB|GiB)", run.stderr)
    if run.returncode != 2 or not found:
        raise SystemExit(f"{program.name}: expected a refusal with 'would need', got exit {run.returncode}: "
                         f"{run.stderr.strip()}")
    return float(found.group(1)) * UNITS[found.group(2)]


failures = []
with tempfile.TemporaryDirectory() as tmp:
    for name, header, flags in CASES:
        program = BIN / name
        peaks, estimates = [], []
        for n in LENGTHS:
            path = Path(tmp) / f"{name}_{len(flags)}_{n}.csv"
            write_sequence(path, header, n)
            args = ["--input", str(path), *flags]
            peaks.append(peak_bytes(program, args))
            estimates.append(estimate_bytes(program, args))
        grown, counted = peaks[1] - peaks[0], estimates[1] - estimates[0]
        ratio = grown / counted
        ok = 1 / 1.25 <= ratio <= 1.25
        print(f"{'✓' if ok else '✗'} {name} {' '.join(flags)}: from n = {LENGTHS[0]} to {LENGTHS[1]} the peak grew "
              f"{grown / 2**20:.1f} MiB, the estimate {counted / 2**20:.1f} MiB (ratio {ratio:.2f})")
        if not ok:
            failures.append(f"{name} {' '.join(flags)}")

print(f"{len(CASES) - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
