"""Write it yourself: the exercises, graded inside the real lessons.

    ./tutorial exercises          the list, with what is done and what comes next
    ./tutorial check [NAME]       build your file into its chapter and grade it once
    ./tutorial watch              check the current exercise each time you save it
    ./tutorial hint [NAME]        one more hint (three tiers: the idea, the line, nearly the answer)
    ./tutorial reset NAME         put the exercise's file back as it was given
    ./tutorial solution NAME      the path of the chapter's own file (once you passed, or --force)

An exercise is a copy of a chapter's math.cpp (see the chapter's exercises.toml): either the
bodies of marked regions are replaced by a TODO that says what to compute, or
(a bug hunt) one line is changed to a bug that people have shipped. The copy is
made from the chapter itself, so it never drifts from it; the chapter is the
solution. `check` compiles only your file (a second or two), links it with the
chapter's lesson, and runs the lesson with your mathematics: the chapter's own
self-checks, plus every matrix compared with what the chapter's math.cpp gives.

Exit codes of check: 0 it passes, 1 it does not, 2 it does not compile.
"""
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "exercises"
BUILD = Path(os.environ.get("TUTORIAL_BUILD", ROOT / "build" / "release"))
WORK = BUILD.parent / "exercises"          # objects, programs, the chapters' own results
# Where the learner's files and progress live (the tests point it at a scratch folder).
MINE = Path(os.environ.get("TUTORIAL_EXERCISE_FILES", HERE))
PROGRESS = MINE / ".progress"              # "done NAME" and "hints NAME N" lines; git ignores it

# A marked region of a chapter's math.cpp, from its opening line to its closing one:
#     // ┌ exercise NAME
#     …the solution…
#     // └ stub: CODE          (what the exercise's file has instead, after the TODO)
REGION = re.compile(r"^(?P<indent>[ \t]*)// ┌ exercise (?P<name>[\w-]+)[^\n]*\n(?P<body>.*?)"
                    r"^[ \t]*// └ stub: (?P<stub>[^\n]*)\n", re.M | re.S)
MARKER = re.compile(r"^[ \t]*// [┌└] (exercise|stub)[^\n]*\n", re.M)


def pretty(path):
    """A path as the learner types it: from the tutorial's folder when it is inside."""
    try:
        return str(Path(path).relative_to(ROOT))
    except ValueError:
        return str(path)


def say(text):
    print(text, flush=True)


def load_exercises():
    """Every chapter's exercises (chapters/NN_name/exercises.toml): the chapters in order,
    and each chapter's exercises in the order its file lists them."""
    exercises = []
    for path in sorted((ROOT / "chapters").glob("*/exercises.toml")):
        with open(path, "rb") as f:
            for e in tomllib.load(f)["exercise"]:
                exercises.append(dict(e, chapter=path.parent.name))
    return exercises


def find(exercises, name):
    for e in exercises:
        if e["name"] == name or e["name"].split("_")[0] == name:
            return e
    sys.exit(f"tutorial: no exercise {name!r} (./tutorial exercises lists them)")


def chapter_math(e):
    return ROOT / "chapters" / e["chapter"] / "math.cpp"


def learner_file(e):
    return MINE / f"{e['name']}.cpp"


def program(e):
    return f"ch{e['chapter']}"


def stub_text(e):
    """The exercise's file, made from the chapter's math.cpp."""
    source = chapter_math(e).read_text(encoding="utf-8")
    header = (f"// Exercise {e['name']} · {e['title']}\n//\n"
              + "".join(f"// {line}\n".replace("// \n", "//\n") for line in e["task"].strip().splitlines())
              + f"//\n// Check it: ./tutorial check {e['name']}   (or ./tutorial watch)\n"
              + f"// Stuck:    ./tutorial hint {e['name']}\n//\n")
    if e.get("kind") == "bug":
        if source.count(e["find"]) != 1:
            raise SystemExit(f"tutorial: exercise {e['name']}: {chapter_math(e)} must hold {e['find']!r} "
                             f"exactly once (it holds it {source.count(e['find'])} times)")
        source = source.replace(e["find"], e["replace"])
    else:
        wanted = set(e["regions"])
        found = set()

        def replace(match):
            if match["name"] not in wanted:
                return match["body"]
            found.add(match["name"])
            indent = match["indent"]
            todo = e["todo"][match["name"]] if isinstance(e.get("todo"), dict) else e["task"]
            lines = [f"{indent}// {'TODO: ' if k == 0 else '      '}{line}".rstrip()
                     for k, line in enumerate(todo.strip().splitlines())]
            return "\n".join(lines) + f"\n{indent}{match['stub']}\n"

        source = REGION.sub(replace, source)
        if found != wanted:
            raise SystemExit(f"tutorial: exercise {e['name']}: no region {sorted(wanted - found)} "
                             f"in {chapter_math(e)}")
    return header + MARKER.sub("", source)


def read_progress():
    done, hints = set(), {}
    if PROGRESS.exists():
        for line in PROGRESS.read_text().splitlines():
            words = line.split()
            if len(words) == 2 and words[0] == "done":
                done.add(words[1])
            elif len(words) == 3 and words[0] == "hints" and words[2].isdigit():
                hints[words[1]] = int(words[2])
    return done, hints


def write_progress(done, hints):
    lines = [f"done {n}" for n in sorted(done)] + [f"hints {n} {k}" for n, k in sorted(hints.items())]
    PROGRESS.write_text("\n".join(lines) + "\n")


def current(exercises, done):
    return next((e for e in exercises if e["name"] not in done), None)


def ensure_file(e):
    path = learner_file(e)
    if not path.exists():
        path.write_text(stub_text(e), encoding="utf-8")
    return path


# ── Building the learner's file into the chapter ────────────────────────────

def compile_command(e):
    """The chapter's own compile command for its math.cpp, pointed at the learner's file."""
    commands = json.loads((BUILD / "compile_commands.json").read_text())
    source = str(chapter_math(e))
    entry = next((c for c in commands if c["file"] == source), None)
    if entry is None:
        raise SystemExit(f"tutorial: {source} is not in {BUILD}/compile_commands.json (build the chapters first)")
    words = shlex.split(entry["command"])
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w in ("-o", "-MF", "-MT"):
            skip = True
            continue
        if w in ("-c", "-MD", source) or re.fullmatch(r"-O[0-9s]", w):
            continue
        out.append(w)
    # Quick to compile, and an index out of range stops with a message instead of a wrong number.
    return out + ["-O1", "-DXTENSOR_ENABLE_ASSERT", "-D_GLIBCXX_ASSERTIONS", "-fmax-errors=3",
                  "-fdiagnostics-color=" + ("always" if sys.stderr.isatty() else "never")]


def link_command(e, obj, exe):
    """The chapter's own link line, with the learner's object in place of the chapter's math."""
    text = (BUILD / "CMakeFiles" / f"{program(e)}.dir" / "link.txt").read_text().strip()
    words = shlex.split(text)
    math_object = next((w for w in words if w.endswith("math.cpp.o") and f"{program(e)}_math.dir" in w), None)
    if math_object is None:
        raise SystemExit(f"tutorial: the link line of {program(e)} has no math object")
    words = [str(obj) if w == math_object else w for w in words]
    words[words.index("-o") + 1] = str(exe)
    return words


def build(e):
    """Compiles and links the learner's file; returns the program, or None (the compiler's words shown)."""
    WORK.mkdir(parents=True, exist_ok=True)
    obj, exe = WORK / f"{e['name']}.o", WORK / e["name"]
    source = learner_file(e)
    compiled = subprocess.run(compile_command(e) + ["-c", str(source), "-o", str(obj)], cwd=BUILD)
    if compiled.returncode != 0:
        return None
    linked = subprocess.run(link_command(e, obj, exe), cwd=BUILD)
    return exe if linked.returncode == 0 else None


def launched(e, exe, *args):
    """The command that runs a program of e's chapter: through the chapter's launcher when the build
    put one beside it (bin/NAME.launcher: chapter 17 runs under mpirun on several processes)."""
    launcher = BUILD / "bin" / f"{program(e)}.launcher"
    return ([str(launcher)] if launcher.exists() else []) + [str(exe), *args]


def expected_results(e):
    """The chapter's own matrices for this exercise's run, saved once (again when the chapter changes)."""
    out = WORK / "expected" / e["name"]
    chapter = BUILD / "bin" / program(e)
    stamp = out / ".made"
    if not stamp.exists() or stamp.stat().st_mtime < chapter.stat().st_mtime:
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("*.npy"):
            old.unlink()
        subprocess.run(launched(e, chapter, "--no-color", *e.get("args", []), "--dump", str(out)), check=True,
                       stdout=subprocess.DEVNULL)
        stamp.touch()
    return out


def grade(e, quiet=False):
    """0 passes, 1 does not, 2 does not compile."""
    ensure_file(e)
    if not quiet:
        say(f"── {e['name']} · {e['title']} ── {pretty(learner_file(e))}")
    exe = build(e)
    if exe is None:
        say(f"✗ {e['name']} does not compile: the compiler's message is above (first error first)")
        return 2
    expected = expected_results(e)
    color = [] if sys.stdout.isatty() else ["--no-color"]
    ran = subprocess.run(launched(e, exe, *color, *e.get("args", [])), env=dict(os.environ, TUTORIAL_EXPECT=str(expected)),
                         stdout=subprocess.DEVNULL if quiet else None, stderr=subprocess.DEVNULL if quiet else None)
    if ran.returncode == 0:
        say(f"\n✓ {e['name']} passes: the lesson above ran on your mathematics")
        if e.get("kind") == "bug" and e.get("found_in"):
            say(f"  This bug is real: {e['found_in'].strip()}")
        return 0
    if ran.returncode < 0:
        say(f"\n✗ {e['name']}: the program stopped with signal {-ran.returncode} "
            f"({signal.Signals(-ran.returncode).name}): an index out of range, or a matrix of the wrong shape?")
    else:
        say(f"\n✗ {e['name']} does not pass yet: the ✗ lines above say what differs "
            f"(./tutorial hint {e['name']} for a hint)")
    return 1


# ── The commands ─────────────────────────────────────────────────────────────

def cmd_list(exercises, args):
    done, _ = read_progress()
    now = current(exercises, done)
    for e in exercises:
        state = "✓ done   " if e["name"] in done else "▶ current" if e is now else "· to do  "
        kind = "bug hunt" if e.get("kind") == "bug" else "write it"
        say(f"{state}  {e['name']:<28} {kind:<9} {e['title']}")
    say(f"\n{len(done & {e['name'] for e in exercises})} of {len(exercises)} done. "
        + (f"Next: ./tutorial watch (or ./tutorial check {now['name']})" if now else "All done."))
    return 0


def cmd_check(exercises, args):
    done, hints = read_progress()
    e = find(exercises, args[0]) if args else current(exercises, done)
    if e is None:
        say("Every exercise is done.")
        return 0
    code = grade(e)
    if code == 0 and e["name"] not in done:
        done.add(e["name"])
        write_progress(done, hints)
    return code


def cmd_watch(exercises, args):
    signal.signal(signal.SIGINT, lambda *_: (say("\nStopped watching."), sys.exit(0)))
    while True:
        done, hints = read_progress()
        e = current(exercises, done)
        if e is None:
            say("Every exercise is done.")
            return 0
        path = ensure_file(e)
        if grade(e) == 0:
            done.add(e["name"])
            write_progress(done, hints)
            nxt = current(exercises, done)
            if nxt is None:
                say("That was the last one.")
                return 0
            say(f"\nNext: {nxt['name']} · {nxt['title']} ({pretty(learner_file(nxt))})")
            ensure_file(nxt)
            continue
        say(f"\nWaiting for you to save {pretty(path)} … (Ctrl-C to stop)")
        waited = subprocess.run(["inotifywait", "-qq", "-e", "close_write,moved_to", str(path.parent)])
        if waited.returncode not in (0, 1):
            return waited.returncode


def cmd_hint(exercises, args):
    done, hints = read_progress()
    e = find(exercises, args[0]) if args else current(exercises, done)
    if e is None:
        say("Every exercise is done.")
        return 0
    tiers = e["hints"]
    shown = min(hints.get(e["name"], 0) + 1, len(tiers))
    hints[e["name"]] = shown
    write_progress(done, hints)
    names = ["the idea", "the line", "nearly the answer"]
    for i in range(shown):
        say(f"Hint {i + 1} of {len(tiers)} ({names[i] if i < len(names) else 'more'}): {tiers[i].strip()}")
    if shown < len(tiers):
        say(f"(./tutorial hint {e['name']} again for the next)")
    return 0


def cmd_reset(exercises, args):
    if not args:
        sys.exit("tutorial: reset takes the exercise's name (./tutorial exercises lists them)")
    e = find(exercises, args[0])
    learner_file(e).write_text(stub_text(e), encoding="utf-8")
    say(f"{pretty(learner_file(e))} is back as it was given.")
    return 0


def cmd_solution(exercises, args):
    force = "--force" in args
    names = [a for a in args if a != "--force"]
    if not names:
        sys.exit("tutorial: solution takes the exercise's name (./tutorial exercises lists them)")
    e = find(exercises, names[0])
    done, _ = read_progress()
    if e["name"] not in done and not force:
        say(f"Pass it first (./tutorial check {e['name']}), or ask with --force.")
        return 1
    say(pretty(chapter_math(e)))
    return 0


def cmd_stub(exercises, args):
    """Prints an exercise's file as given (for the tests)."""
    sys.stdout.write(stub_text(find(exercises, args[0])))
    return 0


COMMANDS = {"exercises": cmd_list, "list": cmd_list, "check": cmd_check, "watch": cmd_watch, "hint": cmd_hint,
            "reset": cmd_reset, "solution": cmd_solution, "stub": cmd_stub}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(f"usage: exercises.py {'|'.join(COMMANDS)} [NAME]")
    sys.exit(COMMANDS[sys.argv[1]](load_exercises(), sys.argv[2:]))
