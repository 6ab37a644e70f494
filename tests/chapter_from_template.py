"""./tutorial new writes a whole chapter and touches nothing else: on a copy of the project,
tools/new_chapter.py NN trial "A trial" (NN the highest free number, 98 today) must write
chapters/NN_trial/ and docs/chNN_trial.md,
add its rows to the two tables of chapters, change no other file, and leave a chapter that
tests/chapter_manifests.py finds complete but for the golden output (which the build writes:
./tutorial new builds the chapter and runs it first). Bad arguments get one line and exit 2.

    python3 tests/chapter_from_template.py        (ctest runs it as chapter_from_template)
"""
import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from chapter_manifests import problems  # noqa: E402
sys.path.insert(0, str(ROOT / "tools"))
from chapters import chapters  # noqa: E402

failures = []


def files(root):
    """{relative path: hash} of every file under root."""
    return {str(p.relative_to(root)): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def new(copy, *args):
    return subprocess.run([sys.executable, str(copy / "tools" / "new_chapter.py"), *args], capture_output=True,
                          text=True, timeout=60)


with tempfile.TemporaryDirectory() as tmp:
    copy = Path(tmp)
    for name in ("chapters", "docs", "tools"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__", "pictures"))
    for name in ("README.md", "CMakePresets.json"):
        shutil.copy(ROOT / name, copy)
    taken = {c.number for c in chapters(copy)}
    nn = next(f"{n:02d}" for n in range(98, 0, -1) if f"{n:02d}" not in taken)
    before = files(copy)
    run = new(copy, nn, "trial", "A trial")
    if run.returncode != 0 or run.stdout.strip() != f"ch{nn}_trial":
        failures.append(f"new {nn} trial: exit {run.returncode}, said {run.stdout!r} {run.stderr!r}")
    after = files(copy)
    changed = sorted(p for p in after if before.get(p) != after[p]) + sorted(set(before) - set(after))
    expected_new = {f"chapters/{nn}_trial/{f}" for f in ("chapter.toml", "math.hpp", "math.cpp", "checks.hpp",
                                                       "checks.cpp", "main.cpp", "exercises.toml", "dump_check.py")}
    expected = expected_new | {f"docs/ch{nn}_trial.md", "README.md", "docs/README.md"}
    if set(changed) != expected:
        failures.append(f"new {nn} trial changed {sorted(set(changed) - expected)}, "
                        f"and not {sorted(expected - set(changed))}")
    found = problems(copy)
    left = [p for p in found if "no golden output" not in p]
    if left or not any(f"ch{nn}_trial: no golden output" in p for p in found):
        failures.append(f"the new chapter's manifest check: {left or 'no word of its golden output'}")
    text = (copy / f"chapters/{nn}_trial/main.cpp").read_text()
    if "@" in text or f"// Chapter {nn} · A trial" not in text:
        failures.append("main.cpp is not filled in: " + text[:200])
    for args, words in ((["01", "again", "Again"], "chapter 01 is already"), (["100", "x", "X"], "two digits"),
                        (["96", "Trial!", "X"], "lower-case"), (["96", "ok", ""], "one line"),
                        ([nn, "trial", "Twice"], f"chapter {nn} is already"), (["97"], "usage")):
        run = new(copy, *args)
        if run.returncode != 2 or run.stderr.count("\n") != 1 or words not in run.stderr or run.stdout:
            failures.append(f"new {' '.join(args)}: exit {run.returncode}, stderr {run.stderr!r}, stdout {run.stdout!r}")
    if files(copy) != after:
        failures.append("a refused ./tutorial new changed files")

for f in failures:
    print("✗", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
