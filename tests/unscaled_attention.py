"""Every chapter notices when the 1/√d_k of an attention it uses is gone.

    python3 tests/unscaled_attention.py BIN_DIR UNSCALED_BIN_DIR

UNSCALED_BIN_DIR holds each chapter linked twice more (tests/unscaled_copy.py):
  chNN_unscaled            against the shared attention (common/attention/attention.cpp,
                           mask.cpp) without the scaling;
  chNN_unscaled_reference  against the reference attention in double
                           (common/reference/attention_by_loops.cpp) without it.
A chapter uses an attention when its sources include a header whose implementation
calls it (found from the sources, so a new chapter is covered). Its default run must
then fail a self-check: exit code 1 and a line starting with ✗. A self-check that
compares the shared function with itself cannot do that; one against a loop in
double precision can. The chapters that show scaled attention must check it
against the reference, so that they notice both.
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import command  # noqa: E402  (bin/NAME.launcher, when a chapter has one)
from fast_args import FAST_ARGS  # noqa: E402
sys.path.insert(0, str(ROOT / "tools"))
from chapters import chapters  # noqa: E402
from common_folders import folders  # noqa: E402

BIN, UNSCALED = Path(sys.argv[1]), Path(sys.argv[2])
INCLUDE = re.compile(r'#include "common/([a-z_]+)/(\w+)\.hpp"')
# The folders of the mathematics and of the reference (common/README.md).
PURE_SOURCES = [source for folder in folders() if folder.pure for source in folder.files()]
# The chapters whose lessons show attention scaled by 1/√d_k (their manifests say so).
SHOWS_SCALED = {c.program for c in chapters() if c.shows_scaled_attention}


def includes(path):
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return {f"{folder}/{name}" for folder, name in INCLUDE.findall(text)}


def users_of(scaled):
    """The headers whose declarations or implementation reach one of `scaled`, directly or not."""
    users = set(scaled)
    changed = True
    while changed:
        changed = False
        for source in PURE_SOURCES:
            header = f"{source.parent.name}/{source.stem}"
            if header not in users and includes(source) & users:
                users.add(header)
                changed = True
    return users


def sources(chapter):
    return list(chapter.folder.glob("*.[ch]pp"))


ATTENTIONS = [  # which attention loses its 1/√d_k, and the suffix of the programs built without it
    ("the shared attention", users_of({"attention/attention", "attention/mask"}), "_unscaled"),
    ("the reference", users_of({"reference/attention_by_loops"}), "_unscaled_reference"),
]
failures = 0
for found in chapters():
    chapter = found.program
    included = set().union(*(includes(s) for s in sources(found)))
    for what, users, suffix in ATTENTIONS:
        used = included & users
        if not used:
            if what == "the reference" and chapter in SHOWS_SCALED:
                failures += 1
                print(f"✗ {chapter}: shows scaled attention but no self-check compares it with the reference")
            else:
                print(f"· {chapter}: does not use {what}")
            continue
        run = subprocess.run(command(UNSCALED / f"{chapter}{suffix}", *FAST_ARGS.get(chapter, []), "--no-color"),
                             capture_output=True, text=True, timeout=600)
        crossed = [line for line in run.stdout.splitlines() if line.startswith("✗")]
        uses = ", ".join(sorted(used))
        if run.returncode == 1 and crossed:
            print(f"✓ {chapter} without the 1/√d_k of {what} (uses {uses}): {crossed[0]}")
        else:
            failures += 1
            print(f"✗ {chapter} (uses {uses}): without the 1/√d_k of {what} it exits {run.returncode} "
                  f"with {len(crossed)} failed self-checks; it needs a check against an independent computation")
print(f"{failures} failure(s)" if failures else "every chapter noticed each attention it uses losing its 1/√d_k")
sys.exit(1 if failures else 0)
