"""Every chapter that uses the shared attention notices when its 1/√d_k is gone.

    python3 tests/unscaled_attention.py BIN_DIR UNSCALED_BIN_DIR

UNSCALED_BIN_DIR holds each chapter linked against a copy of the shared attention
(common/math/attention.cpp, mask.cpp) without the scaling (tests/unscaled_copy.py).
A chapter uses the shared attention when its sources include a header of
common/math/ whose implementation calls it (found from the sources, so a new
chapter is covered). Its default run must then fail a self-check: exit code 1
and a line starting with ✗. A self-check that compares the shared function with
itself cannot do that; one against a loop in double precision can.
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from printed_numbers import chapter_programs  # noqa: E402
from launch import command  # noqa: E402  (bin/NAME.launcher, when a chapter has one)

BIN, UNSCALED = Path(sys.argv[1]), Path(sys.argv[2])
MATH = ROOT / "common" / "math"
INCLUDE = re.compile(r'#include "common/math/(\w+)\.hpp"')
SHARED = {"attention", "mask"}  # the headers of the scaled functions


def includes(path):
    return set(INCLUDE.findall(path.read_text(encoding="utf-8"))) if path.exists() else set()


# The headers whose implementation reaches the shared attention, directly or not.
users = set(SHARED)
changed = True
while changed:
    changed = False
    for cpp in MATH.glob("*.cpp"):
        if cpp.stem not in users and includes(cpp) & users:
            users.add(cpp.stem)
            changed = True


def sources(chapter):
    return list((ROOT / "chapters" / chapter[2:]).glob("*.[ch]pp"))


failures = 0
for chapter in chapter_programs():
    used = set().union(*(includes(s) for s in sources(chapter))) & users
    if not used:
        print(f"· {chapter}: does not use the shared attention")
        continue
    run = subprocess.run(command(UNSCALED / f"{chapter}_unscaled", "--no-color"), capture_output=True,
                         text=True, timeout=600)
    crossed = [line for line in run.stdout.splitlines() if line.startswith("✗")]
    if run.returncode == 1 and crossed:
        print(f"✓ {chapter} (uses {', '.join(sorted(used))}): {crossed[0]}")
    else:
        failures += 1
        print(f"✗ {chapter} (uses {', '.join(sorted(used))}): without 1/√d_k it exits {run.returncode} "
              f"with {len(crossed)} failed self-checks; it needs a check against an independent computation")
print(f"{failures} chapter(s) did not notice" if failures else "every chapter that uses the attention noticed")
sys.exit(1 if failures else 0)
