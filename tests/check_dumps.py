"""The .npy dumps hold what their names say: each chapter is run with --dump,
its files are loaded with numpy, and every formula is recomputed from the
dumped inputs, independently of the C++ code.

Each chapter's folder holds its dump_check.py, which defines check(dump, expect, softmax); see
chapters/01_dot_product_scores/dump_check.py. (tests/chapter_manifests.py sees that none is missing.)

    python3 tests/check_dumps.py BIN_DIR [CHAPTER…]   (ctest runs it on every chapter as dumps.numpy)"""
import importlib.util
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import command  # noqa: E402  (bin/NAME.launcher, when a chapter has one)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from chapters import chapters  # noqa: E402

bin_dir = Path(sys.argv[1])
failures = 0


def columns(line):
    """The columns a line takes on a terminal: a wide character two, a combining one none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def dump(chapter, *args):
    """Runs bin/<chapter> --dump into a fresh directory; returns {name: array}."""
    out = Path(tempfile.mkdtemp(prefix=chapter + "_"))
    printed = subprocess.run(command(bin_dir / chapter, "--no-color", "--dump", out, *args), check=True,
                             stdout=subprocess.PIPE).stdout.decode()
    # What the run prints, the closing "Wrote N matrices to DIR/: …" with its many names too,
    # fits the 100 columns of a terminal (the width when the output is not one).
    wide = [line for line in printed.splitlines() if columns(line) > 100]
    assert not wide, f"{chapter} --dump prints {len(wide)} lines wider than 100 columns: {wide[0][:120]!r}…"
    arrays = {p.stem: np.load(p) for p in out.glob("*.npy")}
    for name, a in arrays.items():
        assert a.dtype == np.float32, f"{chapter}/{name}.npy is {a.dtype}, expected float32"
    return arrays


def expect(claim, actual, expected, tol=1e-4):
    global failures
    actual, expected = np.asarray(actual), np.asarray(expected)
    ok = actual.shape == expected.shape and np.allclose(actual, expected, atol=tol)
    err = np.max(np.abs(actual - expected)) if actual.shape == expected.shape else float("inf")
    print(f"{'ok  ' if ok else 'FAIL'} {claim} (max error {err:.1e})")
    failures += not ok


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


for chapter in chapters():
    if sys.argv[2:] and chapter.program[2:4] not in sys.argv[2:]:
        continue
    path = chapter.folder / "dump_check.py"
    spec = importlib.util.spec_from_file_location(chapter.program + "_dump_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.check(dump, expect, softmax)

print(f"{failures} failed")
sys.exit(1 if failures else 0)
