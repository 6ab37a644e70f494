"""Chapter 16's default settings learn to copy for every seed the chapter claims.

    python3 tests/induction_seeds.py BIN_DIR      (ctest runs it as induction_seeds)

For seeds 0 to 19, the default run with --seed S (two at a time) must exit 0 and
its dumped held-out accuracy.npy must show a second-half accuracy of at least
0.97: the number the chapter's self-check and its doc promise, read here from
the dump rather than from the printed text.
"""
import concurrent.futures
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

BIN = Path(sys.argv[1]).resolve()
SEEDS, FLOOR = range(20), 0.97


def run(seed):
    with tempfile.TemporaryDirectory() as dump:
        done = subprocess.run([str(BIN / "ch16_induction_head"), "--no-color", "--seed", str(seed), "--dump", dump],
                              capture_output=True, text=True, timeout=600, start_new_session=True)
        second = float(np.load(Path(dump) / "accuracy.npy")[0, 1]) if done.returncode == 0 else float("nan")
    return seed, done.returncode, second


failures = []
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    for seed, code, second in pool.map(run, SEEDS):
        good = code == 0 and second >= FLOOR
        print(f"{'✓' if good else '✗'} --seed {seed}: exit {code}, second-half accuracy {second:.3f}")
        if not good:
            failures.append(seed)
print(f"{len(SEEDS) - len(failures)} of {len(SEEDS)} seeds reach {FLOOR}")
sys.exit(1 if failures else 0)
