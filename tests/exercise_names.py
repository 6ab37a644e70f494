"""The exercises' names lead where they say, and the tool's lines fit the terminal (no build needed).

    python3 tests/exercise_names.py     (ctest runs it as exercise_names)

  - every short name (14_b) picks its own exercise, never another's;
  - an exercise run with --steps N (a training cut short) says so with every verdict;
  - every command the tool prints for an exercise (in its file as given, in a hint, after a
    verdict, in the refusal of a solution) names that exercise and no other;
  - a start of a name that several share gets one line listing them on stderr, exit 2;
  - docs/exercises.md counts the exercises there are (of the chapters it names);
  - a verdict's long ✗ line is wrapped at spaces to the terminal's width ($COLUMNS, else 100),
    its continuation rows indented, every word and number whole. (A self-check the lesson
    wrapped is one line in the verdict: the grader reads it from the run's report, unwrapped.)
"""
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "grader" / "exercises.py"
scratch = tempfile.TemporaryDirectory()
os.environ["TUTORIAL_EXERCISE_FILES"] = scratch.name  # the hints' progress goes there
sys.path.insert(0, str(ROOT / "grader"))
import exercises as ex  # noqa: E402

exercises = ex.load_exercises()
failures = []


def expect(what, ok, detail=""):
    print(f"{'✓' if ok else '✗'} {what}", flush=True)
    if not ok:
        failures.append(f"{what}\n{detail}")


def printed(function, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        function(*args)
    return out.getvalue()


# Short names: one exercise each.
wrong = [f"{ex.short_name(e)} picks {ex.find(exercises, ex.short_name(e))['name']}, not {e['name']}"
         for e in exercises if ex.find(exercises, ex.short_name(e)) is not e]
expect(f"each of the {len(exercises)} short names picks its own exercise", not wrong, "\n".join(wrong))

# A teacher who gives two exercises one short name is stopped with one line naming both.
with tempfile.TemporaryDirectory() as other:
    chapter = Path(other) / "chapters" / "18_latent_attention"
    chapter.mkdir(parents=True)
    (chapter / "chapter.toml").write_text((ROOT / "chapters" / chapter.name / "chapter.toml").read_text())
    (chapter / "exercises.toml").write_text("".join(f'[[exercise]]\nname = "18_b_{n}"\n\n'
                                                    for n in ("absorbed_transpose", "absorbed_scale")))
    ex.ROOT, root = Path(other), ex.ROOT
    try:
        ex.load_exercises()
        said = "nothing"
    except SystemExit as stop:
        said = str(stop)
    finally:
        ex.ROOT = root
expect(f"two exercises with one short name stop the tool ({said})",
       "18_b_absorbed_transpose" in said and "18_b_absorbed_scale" in said and len(said) <= 100)

# The commands the tool prints name the exercise they are printed for.
COMMAND = re.compile(r"\./tutorial (?:check|hint|solution|reset|watch) (\d[\w-]*)")


def picked(name):
    try:
        return ex.find(exercises, name)
    except ex.Refused as refused:
        return {"name": str(refused)}

wrong = []
for e in exercises:
    failing = ex.Verdict(1, "✗ not yet: 1 self-check ✗", ["✗ a claim"], log=Path(scratch.name) / "lesson.log")
    said = (ex.stub_text(e) + "\n".join(ex.hint_lines(e)) + printed(ex.show_verdict, e, failing, False)
            + printed(ex.cmd_solution, exercises, type("Args", (), {"name": e["name"], "force": False})))
    named = COMMAND.findall(said)
    if len(named) < 4:
        wrong.append(f"{e['name']}: only {len(named)} commands found in:\n{said[-600:]}")
    wrong += [f"{e['name']}: the tool says ./tutorial … {n}, which is {picked(n)['name']}"
              for n in named if picked(n) is not e]
expect("every command printed for an exercise names that exercise", not wrong, "\n".join(wrong[:10]))

# An exercise that trains fewer steps than its chapter says so with its verdict, naming the flag.
wrong = []
for e in exercises:
    args = e.get("args", [])
    if "--steps" in args:
        flag = f"--steps {args[args.index('--steps') + 1]}"
        shown = printed(ex.show_verdict, e, ex.Verdict(0, f"✓ {e['name']} passes", []), False)
        if flag not in " ".join(shown.split()) or "./tutorial run" not in shown:
            wrong.append(f"{e['name']} runs with {flag}, and its verdict does not say so:\n{shown}")
expect("a verdict of an exercise run with fewer training steps says so, and how to see them all",
       not wrong, "\n".join(wrong[:3]))

# A start of a name shared by several: one line, the candidates, exit 2.
run = subprocess.run([sys.executable, str(TOOL), "check", "18_"], capture_output=True, text=True,
                     env=dict(os.environ, TUTORIAL_BUILD=str(Path(scratch.name) / "no_build")))
candidates = [ex.short_name(e) for e in exercises if e["name"].startswith("18_")]
expect(f"check 18_: exit 2 and one line naming {', '.join(candidates)} ({run.stderr.strip()})",
       run.returncode == 2 and run.stderr.count("\n") == 1 and all(c in run.stderr for c in candidates)
       and len(run.stderr.rstrip("\n")) <= 100 and not run.stdout, run.stdout + run.stderr)

# Wrapped, never cut: a verdict at the default 100 columns and at a narrow terminal's 60.
claim = ("✗ the chunked form equals the reference loops after every chunk, the late ones too "
         "(max error 6.9e-01, tolerance 1e-05)")
verdict = ex.Verdict(1, "✗ not yet: 1 self-check ✗", [claim, "likely: " + "the columns sum to 1 " * 6])
for width in (100, 60):
    os.environ["COLUMNS"] = str(width)
    rows = printed(ex.show_verdict, exercises[0], verdict, True).splitlines()
    words = [w for r in rows for w in r.split()]
    expect(f"at {width} columns: every row fits, every word whole, the rows after the first indented",
           all(len(r) <= width for r in rows) and "1e-05)" in words and "6.9e-01," in words
           and words == ["✗", "not", "yet:", "1", "self-check", "✗"] + claim.split() + verdict.details[1].split()
           and all(r.startswith("    ") for r in rows[2:] if not r.startswith("  likely")), "\n".join(rows))
del os.environ["COLUMNS"]

# The exercises page counts them as the tools do: the bench's "over the 42 exercises of chapters 01
# to 20" (measured then; a chapter added later does not make it false), and watch's "Exercise
# 12 / 42" on the same set.
page = (ROOT / "docs" / "exercises.md").read_text(encoding="utf-8")
measured = re.findall(r"over\s+the\s+(\d+)\s+exercises\s+of\s+chapters\s+01\s+to\s+(\d\d)", page)
shown = [int(n) for n in re.findall(r"Exercise \d+ / (\d+)", page)]
counted = [sum(1 for e in exercises if int(e["name"][:2]) <= int(last)) for _, last in measured]
expect(f"docs/exercises.md counts the exercises there are ({measured}, {shown}; counted {counted})",
       measured and [int(n) for n, _ in measured] == counted and all(n == counted[0] for n in shown))

# The bug hunts the page says have no public instance cited are those without `found_in`.
uncited = sorted(ex.short_name(e) for e in exercises if e.get("kind") == "bug" and not e.get("found_in"))
listed = re.search(r"the others \(([^)]*)\) are mistakes", page)
said = sorted(re.findall(r"\d\d_[a-z]", listed[1])) if listed else []
expect(f"docs/exercises.md names the bug hunts without a public instance ({said}; the manifests: {uncited})",
       said == uncited)

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
