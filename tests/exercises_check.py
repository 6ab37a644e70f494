"""Every exercise works: its solution passes, its file as given fails, a compile error says so.

    python3 tests/exercises_check.py BUILD_DIR     (ctest runs it as exercises)

For each exercise of every chapters/NN_name/exercises.toml, in a scratch folder:
  - the chapter's own math.cpp in place of the learner's file: `check` exits 0;
  - the file as given (a TODO, or the bug of a bug hunt): `check` exits 1 and
    names a wrong matrix entry or a failed self-check;
and for the first exercise, a file that does not compile: exit 2, with the
compiler's own error.
"""
import concurrent.futures
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(sys.argv[1]).resolve()
TOOL = ROOT / "exercises" / "exercises.py"
sys.path.insert(0, str(ROOT / "exercises"))
from exercises import load_exercises  # noqa: E402

exercises = load_exercises()
failures = []


def check(name, files):
    env = dict(os.environ, TUTORIAL_BUILD=str(BUILD), TUTORIAL_EXERCISE_FILES=str(files))
    run = subprocess.run([sys.executable, str(TOOL), "check", name], capture_output=True, text=True, env=env,
                         timeout=600)
    return run.returncode, run.stdout + run.stderr


def check_exercise(e, files):
    """The file as given fails, the chapter's own math.cpp passes: (line to print, failures).
    Each exercise has a folder of its own, so two at once never share a progress file."""
    name = e["name"]
    files = files / name
    files.mkdir()
    mine = files / f"{name}.cpp"
    code, out = check(name, files)  # makes the file as given
    stub_fails = code == 1 and ("✗" in out)
    first_line = next((l.strip() for l in out.splitlines() if "expected" in l and "got" in l), "")
    mine.write_text((ROOT / "chapters" / e["chapter"] / "math.cpp").read_text())
    code_solved, out_solved = check(name, files)
    solution_passes = code_solved == 0 and "passes" in out_solved
    found = []
    if not stub_fails:
        found.append(f"{name}: the file as given does not fail (exit {code})")
    if not solution_passes:
        found.append(f"{name}: the chapter's own math.cpp does not pass (exit {code_solved}):\n{out_solved[-1500:]}")
    line = (f"{'✓' if stub_fails and solution_passes else '✗'} {name}: as given, exit {code}"
            f"{' · ' + first_line if first_line else ''}; solved, exit {code_solved}")
    return line, found


with tempfile.TemporaryDirectory() as tmp:
    files = Path(tmp)
    # Two exercises at a time (each has its own object, program and expected dumps; the
    # machine's two cores): the same checks in half the time.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for line, found in pool.map(lambda e: check_exercise(e, files), exercises):
            print(line, flush=True)
            failures += found
    e = exercises[0]
    mine = files / e["name"] / f"{e['name']}.cpp"
    mine.write_text(mine.read_text() + "\nthis does not compile\n")
    code, out = check(e["name"], files / e["name"])
    if code != 2 or "error" not in out:
        failures.append(f"{e['name']}: a compile error gives exit {code} (expected 2 and the compiler's message)")
    print(f"{'✓' if code == 2 else '✗'} a compile error: exit {code}")

for f in failures:
    print("FAIL", f)
print(f"{len(exercises) + 1 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
