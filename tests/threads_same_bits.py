"""Every chapter that trains gives the same bits at --threads 1, 2 and 8.

    python3 tests/threads_same_bits.py BIN_DIR [CHAPTER…]    (ctest runs it as threads_same_bits)

The chapters are those whose --help offers --threads. Each runs with its fast flags
(tests/fast_args.py) and --dump, once at each thread count, each run training anew in a fresh
trained folder (none read back): its printed output and every dumped .npy (the trained models'
numbers among them) must be the same, byte for byte.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bad_inputs import parse_help  # noqa: E402
from fast_args import FAST_ARGS  # noqa: E402
from launch import command  # noqa: E402
from printed_numbers import chapter_programs  # noqa: E402

BIN = Path(sys.argv[1]).resolve()
ONLY = sys.argv[2:]
COUNTS = (1, 2, 8)


def run(chapter, count, folder):
    """(exit code, stdout, {name: bytes} of the dumps) of a run in `folder` (the output names
    the dump's folder: the same relative name in every run)."""
    folder.mkdir()
    env = dict(os.environ, NO_COLOR="1", TUTORIAL_TRAINED=str(folder / "trained"))
    done = subprocess.run(command(BIN / chapter, "--no-color", *FAST_ARGS.get(chapter, []), "--threads", str(count),
                                  "--dump", "dump"), capture_output=True, env=env, timeout=600, cwd=folder)
    dumped = {p.name: p.read_bytes() for p in sorted((folder / "dump").glob("*.npy"))}
    return done.returncode, done.stdout, dumped


failures = []
chapters = [c for c in chapter_programs() if not ONLY or any(c.startswith(o) for o in ONLY)]
for chapter in [c for c in chapters if "--threads" in parse_help(c)]:
    with tempfile.TemporaryDirectory() as tmp:
        runs = {count: run(chapter, count, Path(tmp) / str(count)) for count in COUNTS}
    code, out, dumped = runs[COUNTS[0]]
    problems = [f"--threads {COUNTS[0]} exits {code}"] if code != 0 else []
    problems += [] if dumped else ["--dump wrote no .npy file"]
    for count in COUNTS[1:]:
        other_code, other_out, other_dumped = runs[count]
        if other_code != code or other_out != out:
            problems.append(f"--threads {count}: exit {other_code} and {'the same' if other_out == out else 'other'} output")
        changed = sorted(name for name in dumped.keys() | other_dumped.keys() if dumped.get(name) != other_dumped.get(name))
        if changed:
            problems.append(f"--threads {count}: {len(changed)} of {len(dumped)} dumps differ ({', '.join(changed[:4])})")
    print(f"{'✗' if problems else '✓'} {chapter}: {len(dumped)} dumps and the output at --threads "
          f"{', '.join(map(str, COUNTS))}{': ' + '; '.join(problems) if problems else ', the same bytes'}", flush=True)
    failures += problems
sys.exit(1 if failures else 0)
