"""The printed decimals never show "-0.000…" (a tiny negative must print as a plain
zero) nor "nan", in any golden output and in the live default run of every chapter.

    python3 tests/printed_numbers.py BIN_DIR      (ctest runs it as printed_numbers)

A chapter written as a folder (chapters/NN_name/) also keeps every line of its
default run within 100 display columns.

One lesson shows nan on purpose: the naive softmax of chapter 02 overflowing. A
nan is allowed only inside a matrix whose name starts with "naive", and in prose
(a sentence is not a row of numbers, e.g. "exp() returns inf, and inf / inf is nan").
"""
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import command  # noqa: E402  (bin/NAME.launcher, when a chapter has one)
from fast_args import FAST_ARGS  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from chapters import chapters  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.argv[1]).resolve()

NEGATIVE_ZERO = re.compile(r"(?<![\d.])-0\.0+(?![\d])|(?<![\d.\w])-0(?![\d.])")
NAN = re.compile(r"(?<![\w])-?nan(?![\w])")
NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?![\w])")
TITLE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*) (=|\()")


CELL = re.compile(r"^-?(\d+(\.\d+)?([eE][+-]?\d+)?|nan|inf|…|⋮)$")


def is_data_row(line):
    """A row of printed numbers (a label, then cells), not a sentence that says "nan"."""
    words = line.split()
    cells = sum(1 for w in words if CELL.match(w.strip(",;()")))
    return cells >= 2 and cells * 2 >= len(words)


def display_width(line):
    """Columns on a terminal: East Asian wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def chapter_programs():
    """The chapter programs, in order: the folder chapters/NN_name/ is the program chNN_name."""
    return [c.program for c in chapters()]


def problems_in(text):
    found = []
    matrix = ""  # the name of the matrix being printed, "" in prose
    for number, line in enumerate(text.splitlines(), 1):
        title = TITLE.match(line)
        if title:
            matrix = title.group(1)
        elif not line.strip():
            matrix = ""
        if NEGATIVE_ZERO.search(line):
            found.append(f"line {number}: negative zero: {line.strip()[:120]}")
        if NAN.search(line) and is_data_row(line) and not matrix.startswith("naive"):
            found.append(f"line {number}: nan in {matrix or 'a table'}: {line.strip()[:120]}")
    return found


def main():
    failures = checked = 0
    sources = []
    for c in chapters():
        if c.golden.exists():
            sources.append((str(c.golden.relative_to(ROOT)), c.golden.read_text()))
    for chapter in chapter_programs():
        program = BIN / chapter
        if not program.exists():
            print(f"FAIL {chapter}: not built")
            failures += 1
            continue
        # A chapter whose default run is its golden output (read above) runs with its fast flags.
        fast = FAST_ARGS.get(chapter, []) if (ROOT / "tests" / "golden" / f"{chapter}.txt").exists() else []
        run = subprocess.run(command(program, *fast, "--no-color"), capture_output=True, text=True,
                             env=dict(os.environ, NO_COLOR="1"))
        if run.returncode != 0:
            print(f"FAIL {chapter}: the default run exited {run.returncode}: {run.stderr.strip()[:200]}")
            failures += 1
        sources.append((f"{chapter} (live default run)", run.stdout))
        if (ROOT / "chapters" / chapter[2:]).is_dir():  # a chapter written as a folder
            for number, line in enumerate(run.stdout.splitlines(), 1):
                if display_width(line) > 100:
                    print(f"FAIL {chapter}: line {number} is {display_width(line)} columns wide "
                          f"(at most 100): {line[:60]}…")
                    failures += 1
    for name, text in sources:
        checked += 1
        found = problems_in(text)
        for problem in found:
            print(f"FAIL {name}: {problem}")
        failures += bool(found)
        if not found:
            print(f"ok   {name}")
    print(f"{checked - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
