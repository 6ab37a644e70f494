"""Every exercise works: its solution passes, its file as given fails, a compile error says so.

    python3 tests/exercises_check.py BUILD_DIR     (ctest runs it as exercises)
    python3 tests/exercises_check.py BUILD_DIR 01 16   only the exercises of those chapters

For each exercise of every chapters/NN_name/exercises.toml, in a scratch folder:
  - the file as given (a TODO, or the bug of a bug hunt): `check` exits 1 and
    names a wrong matrix entry or a failed self-check;
  - the chapter's own math.cpp in place of the learner's file: `check` exits 0;
and for the first exercise, a file that does not compile: exit 2, with the
compiler's own error. All the files of a round are built first, in one build
(the build tool runs two compilers at once), then checked two at a time.
Exercises of one chapter with the same flags make, solved, the same program and the
same run: the first of them is built and checked for all.
"""
import concurrent.futures
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(sys.argv[1]).resolve()
TOOL = ROOT / "grader" / "exercises.py"
sys.path.insert(0, str(ROOT / "grader"))
from exercises import load_exercises  # noqa: E402

exercises = [e for e in load_exercises() if not sys.argv[2:] or e["chapter"][:2] in sys.argv[2:]]
failures = []


def tool(files, *args):
    env = dict(os.environ, TUTORIAL_BUILD=str(BUILD), TUTORIAL_EXERCISE_FILES=str(files))
    run = subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, env=env, timeout=600)
    return run.returncode, run.stdout + run.stderr


def check_all(files, chosen, expected_code, word):
    """Builds the chosen exercises' files at once, then checks each: {name: (exit code, output)}."""
    code, out = tool(files, "build", *[e["name"] for e in chosen])
    if code != 0:
        failures.append(f"building the exercises failed:\n{out[-3000:]}")
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip([e["name"] for e in chosen],
                           pool.map(lambda e: tool(files, "check", e["name"]), chosen)))
    for name, (code, out) in results.items():
        if code != expected_code or word not in out:
            failures.append(f"{name}: exit {code}, expected {expected_code} and '{word}':\n{out[-1500:]}")
    return results


with tempfile.TemporaryDirectory() as tmp:
    files = Path(tmp)
    # Round 1: the files as given (the tool makes them) fail, and say where.
    given = check_all(files, exercises, 1, "✗")
    # Round 2: the chapters' own files pass (one program for each chapter and flags).
    first_of = {}
    for e in exercises:
        first_of.setdefault((e["chapter"], tuple(e.get("args", []))), e)
    solving = list(first_of.values())
    for e in solving:
        (files / f"{e['name']}.cpp").write_text((ROOT / "chapters" / e["chapter"] / "math.cpp").read_text())
    solved = check_all(files, solving, 0, "passes")
    for e in exercises:
        same = first_of[(e["chapter"], tuple(e.get("args", [])))]["name"]
        (code, out), (code_solved, _) = given[e["name"]], solved[same]
        first = next((l.strip() for l in out.splitlines() if ("expected" in l and "got" in l) or "✗ " in l[:4]), "")
        print(f"{'✓' if code == 1 and code_solved == 0 else '✗'} {e['name']}: as given, exit {code}"
              f"{' · ' + first[:90] if first else ''}; solved, exit {code_solved}"
              f"{f' (as {same})' if same != e['name'] else ''}", flush=True)
    e = exercises[0]
    mine = files / f"{e['name']}.cpp"
    mine.write_text(mine.read_text() + "\nthis does not compile\n")
    code, out = tool(files, "check", e["name"])
    if code != 2 or "error" not in out or f"{e['name']}.cpp:" not in out:
        failures.append(f"{e['name']}: a compile error gives exit {code} (expected 2 and the compiler's "
                        f"message naming the file):\n{out}")
    print(f"{'✓' if code == 2 else '✗'} a compile error: exit {code}")

for f in failures:
    print("FAIL", f)
print(f"{len(exercises) + len(solving) + 1 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
