"""Write it yourself: the exercises, graded inside the real lessons.

    ./tutorial exercises               the list, with what is done and what comes next
    ./tutorial check [NAME] [--full]   build your file into its chapter and grade it once
    ./tutorial watch [NAME]            the exercise (the current one), graded again each time you save it
    ./tutorial hint [NAME]             one more hint (three tiers: the idea, the line, nearly the answer)
    ./tutorial reset NAME              put the exercise's file back as it was given
    ./tutorial solution NAME           the chapter's own answer (once you passed, or --force)

An exercise is a copy of a chapter's math.cpp (see the chapter's exercises.toml): either the
bodies of marked regions are replaced by a TODO that says what to compute, or (a bug hunt)
one line is changed to a bug that people have shipped. The copy is made from the chapter
itself, so it never drifts from it; the chapter is the solution. Each exercise is a target of
the build (exercise_NAME, grader/CMakeLists.txt): on a save only the learner's file is
compiled, and the lesson runs on the learner's mathematics: the chapter's own self-checks,
plus every matrix compared with what the chapter's math.cpp gives.

Exit codes of check: 0 it passes, 1 it does not, 2 it does not compile (or a bad name or file).
"""
import argparse
import fcntl
import json
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import time
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from chapters import chapters  # noqa: E402  (the one place that finds the chapters)

HERE = ROOT / "exercises"
BUILD = Path(os.environ.get("TUTORIAL_BUILD", ROOT / "build" / "release"))
WORK = BUILD / "exercises"                 # the programs, their outputs, the chapters' own results
# Where the learner's files and progress live (the tests point it at a scratch folder).
MINE = Path(os.environ.get("TUTORIAL_EXERCISE_FILES", HERE))
PROGRESS = MINE / ".progress"              # "done NAME" and "hints NAME N" lines; git ignores it

# What the learner's program may use: more is a bug in the learner's code, said as such.
SECONDS = 10
MEMORY = 4 << 30                           # bytes of address space
OUTPUT = 1 << 20                           # bytes of output (the longest lesson prints 60 KB)

# A marked region of a chapter's math.cpp, from its opening line to its closing one:
#     // ┌ exercise NAME
#     …the solution…
#     // └ stub: CODE          (what the exercise's file has instead, after the TODO)
REGION = re.compile(r"^(?P<indent>[ \t]*)// ┌ exercise (?P<name>[\w-]+)[^\n]*\n(?P<body>.*?)"
                    r"^[ \t]*// └ stub: (?P<stub>[^\n]*)\n", re.M | re.S)
MARKER = re.compile(r"^[ \t]*// [┌└] (exercise|stub)[^\n]*\n", re.M)
COLOR = re.compile(r"\x1b\[[0-9;]*m")


class Refused(Exception):
    """A request that cannot be done: one line for the learner, exit code 2."""


def pretty(path):
    """A path as the learner types it: from the tutorial's folder when it is inside."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def say(text=""):
    """A line for the learner, wrapped to the terminal at spaces (never cut)."""
    print("\n".join(wrapped(text, screen_width())), flush=True)


def screen_width():
    """The terminal's columns ($COLUMNS first), or 100 when the output is not a terminal."""
    return max(40, shutil.get_terminal_size((100, 40)).columns)


def columns(text):
    """The columns a text takes on a terminal: 猫 takes two, an accent none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def wrapped(line, width, hanging=2):
    """A line as rows of at most `width` columns, broken at spaces (never inside a word, unless
    the word is wider than a row); rows after the first are indented like the line plus
    `hanging` spaces. A line that fits is one row, as it is."""
    if columns(line) <= width:
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    margin = " " * min(indent + hanging, width // 2)
    rows, row = [], line[:indent]
    for word in line.split():
        if row.strip() and columns(row) + 1 + columns(word) > width:
            rows.append(row)
            row = margin
        while columns(row) + columns(word) > width:  # a word wider than a whole row
            room = width - columns(row) - (1 if row.strip() else 0)
            cut = max(1, next((i for i in range(len(word), 0, -1) if columns(word[:i]) <= room), 1))
            rows.append(row + (" " if row.strip() else "") + word[:cut])
            row, word = margin, word[cut:]
        row += (" " if row.strip() else "") + word
    return rows + [row] if row.strip() else rows


# ── The exercises and their names ────────────────────────────────────────────

def load_exercises():
    """Every chapter's exercises (chapters/NN_name/exercises.toml): the chapters in order,
    and each chapter's exercises in the order its file lists them."""
    exercises = []
    for path in (c.folder / "exercises.toml" for c in chapters(ROOT)):
        with open(path, "rb") as f:
            chapter = tomllib.load(f)
        # args_note: what the file's args change on the screen (trainings cut short), one line.
        note = {"args_note": " ".join(chapter["args_note"].split())} if "args_note" in chapter else {}
        for e in chapter["exercise"]:
            exercises.append(dict(note, **e, chapter=path.parent.name))
    # The tool's own messages name an exercise by its short name: two with one short name
    # would send the learner to the wrong one.
    seen = {}
    for e in exercises:
        other = seen.setdefault(short_name(e), e)
        if other is not e:
            raise SystemExit(f"tutorial: {other['name']} and {e['name']} share the short name {short_name(e)}: "
                             f"rename one")
    return exercises


def short_name(e):
    """14_b_pairing → 14_b; the first of a chapter, 14_rotate_interleaved → 14_a (and 14)."""
    m = re.match(r"(\d\d)_([a-z])_", e["name"])
    return f"{m[1]}_{m[2]}" if m else f"{e['name'][:2]}_a"


def find(exercises, name):
    """An exercise by its name, its short name (14_b), its chapter's number (the first of
    the chapter: 14) or the start of its name, when only one starts so."""
    for e in exercises:
        if name in (e["name"], short_name(e)):
            return e
    if re.fullmatch(r"\d\d?", name):
        first = next((e for e in exercises if e["name"].startswith(f"{int(name):02d}_")), None)
        if first:
            return first
    starting = [e for e in exercises if e["name"].startswith(name)]
    if len(starting) == 1:
        return starting[0]
    if starting:
        # One line (within 100 columns): the first few, by the names that pick them.
        listed = ", ".join(short_name(e) for e in starting[:8]) + (", …" if len(starting) > 8 else "")
        raise Refused(f"{name!r} starts {len(starting)} exercises' names ({listed}): name one of them")
    raise Refused(f"no exercise {name!r} (./tutorial exercises lists them; a short name such as 14_b works)")


def chapter_math(e):
    return ROOT / "chapters" / e["chapter"] / "math.cpp"


def learner_file(e):
    return MINE / f"{e['name']}.cpp"


def program(e):
    return f"ch{e['chapter']}"


# A function's first line in math.cpp: at the margin, a return type, then the name and "(".
FUNCTION_START = re.compile(r"^(?!(?:namespace|struct|class|using|template|static_assert|return)\b)[A-Za-z_][\w:<>,&* ]*?\b(\w+)\(")


def function_of(e):
    """The function of the chapter's math.cpp that the exercise's region (or bug) is in: the
    learner's function, as the verdicts name it."""
    source = chapter_math(e).read_text(encoding="utf-8")
    at = source.find(e["find"]) if e.get("kind") == "bug" else next(
        (m.start() for m in REGION.finditer(source) if m["name"] in e["regions"]), -1)
    if at < 0:
        return None
    names = [m[1] for m in map(FUNCTION_START.match, source[:at].splitlines()) if m]
    return names[-1] if names else None


def stub_text(e):
    """The exercise's file, made from the chapter's math.cpp."""
    source = chapter_math(e).read_text(encoding="utf-8")
    header = (f"// Exercise {e['name']} · {e['title']}\n//\n"
              + "".join(f"// {line}\n".replace("// \n", "//\n") for line in e["task"].strip().splitlines())
              + f"//\n// Check it: ./tutorial check {short_name(e)}   (or ./tutorial watch)\n"
              + f"// Stuck:    ./tutorial hint {short_name(e)}\n//\n")
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


# ── The learner's files: written only where they belong ──────────────────────

def refuse_unless_own_file(path):
    """The grader writes a learner's file only when it is a file of its own: not a link (it
    could lead into a chapter), and writable."""
    if path.is_symlink():
        raise Refused(f"{pretty(path)} is a link (to {pretty(os.path.realpath(path))}); the tutorial writes only "
                      f"a file of its own there: remove the link, then run it again")
    # The mode, not access(): a file the learner made read-only stays so, even for root.
    if path.exists() and not (path.stat().st_mode & 0o222 and os.access(path, os.W_OK)):
        raise Refused(f"{pretty(path)} is read-only: make it writable (chmod u+w {pretty(path)}), then run it again")


def write_learner_file(path, text, new_only):
    """Writes the file without ever following a link; new_only: only when it does not exist."""
    refuse_unless_own_file(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_EXCL if new_only else os.O_TRUNC)
    try:
        fd = os.open(path, flags, 0o644)
    except FileExistsError:
        return
    except OSError as error:
        raise Refused(f"cannot write {pretty(path)}: {error.strerror}")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def ensure_file(e):
    """The learner's file, made from the chapter when it does not exist yet. (A link to a
    file is only read; a link to nothing is refused, never followed to make its target.)"""
    path = learner_file(e)
    if not path.exists():
        write_learner_file(path, stub_text(e), new_only=True)
    if not path.is_file():
        raise Refused(f"{pretty(path)} is not a file: move it away, and the exercise's file is made again")
    return path


def read_progress():
    done, hints = set(), {}
    if not PROGRESS.exists():
        return done, hints
    try:
        text = PROGRESS.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        line = PROGRESS.read_bytes()[:error.start].count(b"\n") + 1
        raise Refused(f"{pretty(PROGRESS)}:{line}: not UTF-8 text; it should hold lines 'done NAME' and "
                      f"'hints NAME N' (delete it to start the list again)")
    except OSError as error:
        raise Refused(f"cannot read {pretty(PROGRESS)}: {error.strerror}")
    for line in text.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] == "done":
            done.add(words[1])
        elif len(words) == 3 and words[0] == "hints" and words[2].isdigit():
            hints[words[1]] = int(words[2])
    return done, hints


def write_progress(done, hints):
    """A new file put in place of the old at once: never half written, never written through a link."""
    lines = [f"done {n}" for n in sorted(done)] + [f"hints {n} {k}" for n, k in sorted(hints.items())]
    new = PROGRESS.with_name(f".progress.{os.getpid()}")
    try:
        new.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.replace(new, PROGRESS)
    except OSError as error:
        new.unlink(missing_ok=True)
        raise Refused(f"cannot write {pretty(PROGRESS)}: {error.strerror}")


def current(exercises, done):
    """The exercise to do next: the first not done after the last one done (a class that starts
    at chapter 18 goes on to 18_b, not back to 01), else the first not done."""
    last = max((i for i, e in enumerate(exercises) if e["name"] in done), default=-1)
    ahead = exercises[last + 1:] + exercises[:last + 1]
    return next((e for e in ahead if e["name"] not in done), None)


# ── Building the learner's file into the chapter ─────────────────────────────

class Lock:
    """An exclusive lock on a file: WORK/locks/NAME, one check of an exercise at a time (its
    program is rewritten by the build). (The build folder's own lock is tools/build's.)"""

    def __init__(self, path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(path, "w")

    def __enter__(self):
        fcntl.flock(self.file, fcntl.LOCK_EX)
        return self

    def __exit__(self, *_):
        fcntl.flock(self.file, fcntl.LOCK_UN)
        self.file.close()


def point_build_at_learner_file(e):
    """The exercise's target compiles WORK/src/NAME.cpp, which includes the learner's file."""
    source = WORK / "src" / f"{e['name']}.cpp"
    path = str(learner_file(e).absolute()).replace("\\", "\\\\").replace('"', '\\"')
    text = f'#include "{path}"\n'
    if not source.exists() or source.read_text() != text:
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(text)


def first_error(output, e):
    """The compiler's first error, with the lines that belong to it, as the learner's paths."""
    lines = [COLOR.sub("", l) for l in output.splitlines()]
    lines = [l for l in lines if not l.startswith(("FAILED:", "ninja:", "[", "In file included from"))
             and "/usr/bin/c++" not in l and not l.startswith(("ccache ", "                 from "))]
    start = next((i for i, l in enumerate(lines) if ": error:" in l or ": fatal error:" in l), None)
    if start is None:
        return lines[-20:]
    picked = [lines[start]]
    # The "In function …" line before the error says where it is.
    if start > 0 and lines[start - 1].endswith(":") and "In " in lines[start - 1]:
        picked.insert(0, lines[start - 1])
    for l in lines[start + 1:]:
        if ": error:" in l or ": fatal error:" in l or re.search(r": In (member )?function", l) or len(picked) >= 14:
            break
        picked.append(l)
    return [l.replace(str(learner_file(e).absolute().parent) + "/", pretty(MINE) + "/")
             .replace(str(ROOT) + "/", "") for l in picked]


def run_build(exercises, quiet):
    """Builds these exercises' programs (and their chapters', for the chapters' own results),
    one build at a time in the folder. Returns (built?, the build's words)."""
    for e in exercises:
        point_build_at_learner_file(e)
    targets = sorted({f"exercise_{e['name']}" for e in exercises} | {program(e) for e in exercises})
    # tools/build holds the folder's lock: one build of it at a time, ./tutorial's too.
    process = subprocess.Popen([str(ROOT / "tools" / "build"), str(BUILD), *targets], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    output, counted = [], False
    for line in process.stdout:
        output.append(line)
        # More to build than the learner's files and their links (the chapter, or the
        # precompiled headers the first time): say how far it is.
        status = re.match(r"\[(\d+)/(\d+)\] ", line)
        if status and int(status[2]) > 2 * len(exercises) and not quiet:
            print(f"\rbuilding what the exercise needs: {status[1]} / {status[2]}", end="", file=sys.stderr,
                  flush=True)
            counted = True
    process.wait()
    if counted:
        print(file=sys.stderr)
    return process.returncode == 0, "".join(output)


def launched(e, exe, *args):
    """The command that runs a program of e's chapter, as every runner starts one: through
    tools/launch (chapter 17's launcher, beside the program, runs it under mpirun)."""
    return [str(ROOT / "tools" / "launch"), str(exe), *args]


def expected_results(e):
    """The chapter's own matrices for this exercise's run, saved once (again when the chapter
    or the run's flags change)."""
    out = WORK / "expected" / e["name"]
    chapter = BUILD / "bin" / program(e)
    stamp = out / ".made"  # holds the flags of the run
    flags = " ".join(e.get("args", []))
    if not stamp.exists() or stamp.stat().st_mtime < chapter.stat().st_mtime or stamp.read_text() != flags:
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("*.npy"):
            old.unlink()
        subprocess.run(launched(e, chapter, "--no-color", *e.get("args", []), "--dump", str(out)), check=True,
                       stdout=subprocess.DEVNULL)
        stamp.write_text(flags)
    return out


@dataclass
class Verdict:
    code: int                       # 0 passes, 1 does not yet, 2 does not compile
    headline: str
    details: list = field(default_factory=list)   # only what explains the headline
    log: Path = None                # the whole output of the lesson


def limit_learner_program():
    """In the learner's program, before it starts: a limit on memory, and no core file."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_limited(command, env, log):
    """Runs the command in a process group of its own, its output to the log: stopped when it
    runs longer than SECONDS (SIGABRT first, so that its stack says where it was) or prints
    more than OUTPUT bytes. Returns (exit code, "time" or "output" or None)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               env=env, start_new_session=True, preexec_fn=limit_learner_program)
    deadline, written, stopped = time.monotonic() + SECONDS, 0, None
    with open(log, "wb") as out:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                stopped = "time"
                break
            if not select.select([process.stdout], [], [], left)[0]:
                continue
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            out.write(chunk[:max(0, OUTPUT - written)])
            written += len(chunk)
            if written > OUTPUT:
                stopped = "output"
                break
    if stopped:
        stop_group(process.pid, signal.SIGABRT if stopped == "time" else signal.SIGKILL)
    process.stdout.close()
    code = process.wait()
    stop_group(process.pid, signal.SIGKILL)  # anything it left behind
    return code, stopped


def stop_group(pid, first_signal):
    """Stops every process of the learner's run (mpirun starts several)."""
    for sig in (first_signal, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        if sig != signal.SIGKILL:
            time.sleep(0.5)


def where_it_stopped(e, exe, trace):
    """The lines of the learner's file on the stack the program wrote when it stopped, the
    innermost first (at most two): ["at exercises/NAME.cpp:42 (in decode_step)", "  42 | the line"]."""
    try:
        addresses = trace.read_text().split()
    except OSError:
        return []
    if not addresses or not shutil.which("addr2line"):
        return []
    # A return address is the instruction after the call: one byte back is the call's line.
    addresses = [addresses[0]] + [hex(int(a, 16) - 1) for a in addresses[1:]]
    found = subprocess.run(["addr2line", "-e", str(exe), "-f", "-C", "-i", *addresses],
                           capture_output=True, text=True).stdout.splitlines()
    mine = str(learner_file(e).absolute())
    text = learner_file(e).read_text(encoding="utf-8", errors="replace").splitlines()
    lines = []
    for function, place in zip(found[0::2], found[1::2]):
        path, _, line = place.partition(":")
        line = line.split()[0] if line else ""
        if path and os.path.abspath(path) == mine and line.isdigit() and len(lines) < 4:
            number = int(line)
            shown = text[number - 1].strip() if 0 < number <= len(text) else ""
            lines += [f"{'at' if not lines else 'called from'} {pretty(learner_file(e))}:{number} "
                      f"(in {function.split('(')[0]})", f"  {number} | {shown}"]
    return lines


SIGNALS = {
    signal.SIGSEGV: "it read or wrote memory that is not its own: a null or dangling pointer, or an index far "
                    "out of range?",
    signal.SIGBUS: "it read or wrote memory that is not its own: a dangling pointer?",
    signal.SIGABRT: "a check of the library stopped it: an index out of range, or a matrix of the wrong shape?",
    signal.SIGFPE: "an integer division by zero?",
    signal.SIGILL: "an illegal instruction: a function that returns a value ran off its end without return?",
    signal.SIGKILL: "it was killed: out of memory?",
}


def run_lesson(e, exe, color):
    """Runs the lesson on the learner's mathematics, within the limits; its verdict, read from the
    run's report (--report: common/output/run_document.hpp), which the lesson writes only when it
    ran to its end."""
    runs = WORK / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    log, report, trace = runs / f"{e['name']}.log", runs / f"{e['name']}.json", runs / f"{e['name']}.trace"
    for f in (report, trace):
        f.unlink(missing_ok=True)
    env = dict(os.environ, TUTORIAL_EXPECT=str(expected_results(e)), TUTORIAL_TRACE=str(trace))
    code, stopped = run_limited(launched(e, exe, "--color=always" if color else "--no-color", *e.get("args", []),
                                         "--report", str(report)), env, log)
    text = COLOR.sub("", log.read_text(encoding="utf-8", errors="replace"))
    lines = text.splitlines()
    where = lambda: where_it_stopped(e, exe, trace)  # addr2line: only for a verdict that shows it
    # A launcher's mpirun (chapter 17) reports a process stopped by signal S as exit code 128 + S.
    launcher = (BUILD / "bin" / f"{program(e)}.launcher").exists()
    stopped_by = -code if code < 0 else code - 128 if code > 128 and launcher else 0
    if stopped == "time":
        return Verdict(1, f"✗ your code ran for more than {SECONDS} s and was stopped: an endless loop?",
                       where() or ["(a loop whose counter never reaches its end, or that counts the wrong one?)"], log)
    if stopped == "output":
        return Verdict(1, f"✗ your code printed more than {OUTPUT >> 20} MiB and was stopped: a print inside "
                          f"a loop?", [f"the first lines are in {pretty(log)}"], log)
    if stopped_by:
        name = signal.Signals(stopped_by).name if stopped_by in set(signal.Signals) else stopped_by
        message = [l for l in lines[-6:] if "Assertion" in l or "error" in l.lower()][-1:]
        return Verdict(1, f"✗ the program stopped with signal {name}: {SIGNALS.get(stopped_by, 'it crashed')}",
                       message + where(), log)
    if not report.exists():
        said = [i for i, l in enumerate(lines) if l.startswith(program(e) + ": ")][-1:]
        if said:
            # The program's last words: "chNN_name: what went wrong", maybe on more lines;
            # xtensor's "header.hpp:438: check failed" names only its own file.
            words = [lines[said[0]][len(program(e)) + 2:]] + lines[said[0] + 1:said[0] + 4]
            words = [w.strip() for w in words if w.strip() and not re.fullmatch(r"\S+:\d+: check failed", w.strip())]
            cause = next((k["cause"] for k in e.get("likely", []) if "error" in k and k["error"] in " ".join(words)), None)
            return Verdict(1, f"✗ the lesson stopped with an error from your code{in_function(e)}:",
                           words + ([f"likely: {cause}"] if cause else []) + where(), log)
        return Verdict(1, f"✗ the lesson stopped before its end (exit code {code}): does your code call "
                          f"exit() or abort()? A learner's function returns its result instead.", where(), log)
    document = json.loads(report.read_text(encoding="utf-8"))
    grading, passed = document["summary"]["grading"], document["summary"]["self_checks"]["passed"]
    compared = grading["matrices"]
    differ = [m["difference"] for m in compared if not m["equal"]]
    failed = [line["text"] for step in document["steps"] for block in step["blocks"] if block["kind"] == "checks"
              for line in block["lines"] if line["status"] == "failed"]
    if code == 0 and not differ and not failed:
        found_in = " ".join(e.get("found_in", "").split()) if e.get("kind") == "bug" else ""
        real = ([f"This bug is real: {found_in}"] if found_in else
                ["(A plausible mistake: no public code that shipped it is cited.)"] if e.get("kind") == "bug" else [])
        return Verdict(0, f"✓ {e['name']} passes: the lesson ran on your mathematics",
                       [f"all {len(compared)} matrices equal what the chapter's own math.cpp computes; "
                        f"{passed} self-checks ✓"] + real, log)
    # The first difference whole (its "  likely:" line too, or the exercise's own guess for that
    # matrix), then the name and place of the others.
    block = f"  {differ[0]}".splitlines() if differ else []
    cause = likely_cause(e, differ)
    if cause and not any(line.lstrip().startswith("likely:") for line in block):
        block.append(f"  likely: {cause}")
    block += [f"  then {d.splitlines()[0]}" for d in differ[1:]]
    summary = "; ".join(s for s in [
        f"{len(differ)} of {len(compared)} matrices differ from what the chapter's own math.cpp computes" if differ else "",
        f"{len(failed)} self-check{'s' if len(failed) != 1 else ''} ✗" if failed else ""] if s)
    return Verdict(1, f"✗ not yet{in_function(e)}: {summary or f'exit code {code}'}", block + [f"✗ {t}" for t in failed],
                   log)


def likely_cause(e, differences):
    """The exercise's own guess at a common mistake (its manifest's `likely` entries), from the
    differences: the first entry that names a matrix among them, or whose `pattern` (a regular
    expression) one of them matches."""
    names = [re.match(r"\w+", d)[0] for d in differences]
    for k in e.get("likely", []):
        if k.get("matrix") in names or ("pattern" in k and any(re.search(k["pattern"], d) for d in differences)):
            return k["cause"]
    return None


def in_function(e):
    """ " (in merge_pair)": where the learner's code is, for a verdict's headline."""
    name = function_of(e)
    return f" (in {name})" if name else ""


def grade(e, color=False, quiet=False):
    """Builds and runs the exercise: its verdict. A pass is written to the progress."""
    ensure_file(e)
    with Lock(WORK / "locks" / e["name"]):
        built, output = run_build([e], quiet)
        if not built:
            return Verdict(2, f"✗ {e['name']} does not compile: the compiler's first error", first_error(output, e))
        verdict = run_lesson(e, WORK / "bin" / e["name"], color)
    if verdict.code == 0:
        done, hints = read_progress()
        if e["name"] not in done:
            write_progress(done | {e["name"]}, hints)
    return verdict


def verdict_lines(verdict):
    """The verdict as the learner reads it: its headline, then what explains it, indented."""
    return [verdict.headline] + [f"  {line}" for line in verdict.details]


def show_verdict(e, verdict, full):
    if full and verdict.log:
        sys.stdout.write(verdict.log.read_text(encoding="utf-8", errors="replace"))
        say()
    lines = verdict_lines(verdict) + ([e["args_note"]] if "args_note" in e else [])
    if verdict.code != 0 and not full and verdict.log:
        lines.append(f"(the whole lesson: ./tutorial check {short_name(e)} --full; "
                     f"a hint: ./tutorial hint {short_name(e)})")
    for line in lines:
        say(line)


# ── The commands ─────────────────────────────────────────────────────────────

def listing(exercises):
    done, _ = read_progress()
    now = current(exercises, done)
    lines = []
    name_width = max((len(e["name"]) for e in exercises), default=0)
    for e in exercises:
        state = "✓ done   " if e["name"] in done else "▶ current" if e is now else "· to do  "
        kind = "bug hunt" if e.get("kind") == "bug" else "write it"
        row = f"{state}  {short_name(e):<5} {e['name']:<{name_width}} {kind:<9} "
        # A long title wraps under itself, so that the columns stay columns.
        room = screen_width() - columns(row)
        title = wrapped(e["title"], room, hanging=0) if room >= 20 else [e["title"]]
        lines += [row + title[0]] + [" " * columns(row) + t for t in title[1:]]
    lines.append(f"\n{len(done & {e['name'] for e in exercises})} of {len(exercises)} done. "
                 + (f"Next: ./tutorial watch (or ./tutorial check {short_name(now)})" if now else "All done."))
    return lines


def cmd_list(exercises, args):
    for line in listing(exercises):
        say(line)
    return 0


def chosen(exercises, name):
    done, _ = read_progress()
    return find(exercises, name) if name else current(exercises, done)


def cmd_check(exercises, args):
    e = chosen(exercises, args.name)
    if e is None:
        say("Every exercise is done.")
        return 0
    say(f"── {e['name']} · {e['title']} ── {pretty(learner_file(e))}")
    verdict = grade(e, color=sys.stdout.isatty())
    show_verdict(e, verdict, args.full)
    return verdict.code


def hint_lines(e):
    done, hints = read_progress()
    tiers = e["hints"]
    shown = min(hints.get(e["name"], 0) + 1, len(tiers))
    hints[e["name"]] = shown
    write_progress(done, hints)
    names = ["the idea", "the line", "nearly the answer"]
    lines = [f"Hint {i + 1} of {len(tiers)} ({names[i] if i < len(names) else 'more'}): {tiers[i].strip()}"
             for i in range(shown)]
    if shown < len(tiers):
        lines.append(f"(./tutorial hint {short_name(e)} again for the next)")
    return lines


def cmd_hint(exercises, args):
    e = chosen(exercises, args.name)
    if e is None:
        say("Every exercise is done.")
        return 0
    for line in hint_lines(e):
        say(line)
    return 0


def cmd_reset(exercises, args):
    e = find(exercises, args.name)
    write_learner_file(learner_file(e), stub_text(e), new_only=False)
    # The exercise starts again: not done, and its hints to be asked for again.
    done, hints = read_progress()
    if e["name"] in done or e["name"] in hints:
        write_progress(done - {e["name"]}, {n: k for n, k in hints.items() if n != e["name"]})
    say(f"{pretty(learner_file(e))} is back as it was given; the list shows it to do again.")
    return 0


def solution_lines(e):
    """The chapter's own answer: the solved regions, or the line the bug hunt changed."""
    source = chapter_math(e).read_text(encoding="utf-8")
    where = pretty(chapter_math(e))
    if e.get("kind") == "bug":
        number = source[:source.index(e["find"])].count("\n") + 1
        return [f"The bug, and the chapter's own line ({where}:{number}):",
                *[f"- {l}" for l in e["replace"].splitlines()], *[f"+ {l}" for l in e["find"].splitlines()]]
    lines = []
    for match in REGION.finditer(source):
        if match["name"] in e["regions"]:
            number = source[:match.start("body")].count("\n") + 1
            lines.append(f"── {match['name']} ({where}:{number}) ──")
            lines += [l for l in match["body"].rstrip("\n").splitlines()]
    return lines


def cmd_solution(exercises, args):
    e = find(exercises, args.name)
    done, _ = read_progress()
    if e["name"] not in done and not args.force:
        say(f"Pass it first (./tutorial check {short_name(e)}), or ask with --force.")
        return 1
    for line in solution_lines(e):
        say(line)
    return 0


def cmd_stub(exercises, args):
    """Prints an exercise's file as given (for the tests)."""
    sys.stdout.write(stub_text(find(exercises, args.name)))
    return 0


def cmd_build(exercises, args):
    """Builds the programs of these exercises (all when none is named) at once, as the build
    tool schedules them (for the tests, which then check each with nothing left to build)."""
    chosen_ones = [find(exercises, n) for n in args.names] or exercises
    for e in chosen_ones:
        ensure_file(e)
    built, output = run_build(chosen_ones, quiet=True)
    if not built:
        sys.stdout.write(output[-5000:])
    return 0 if built else 2


def cmd_watch(exercises, args):
    from watch import watch  # the screen: only for this command
    return watch(exercises, sys.modules[__name__], args.name)


class OneLineParser(argparse.ArgumentParser):
    """A wrong command line gets one line (and exit code 2), not a usage block."""

    def error(self, message):
        raise Refused(f"{message} (./tutorial help)")


def parse(argv):
    parser = OneLineParser(prog="./tutorial", add_help=False)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for name in ("exercises", "list"):
        commands.add_parser(name).set_defaults(run=cmd_list)
    check = commands.add_parser("check")
    check.add_argument("name", nargs="?")
    check.add_argument("--full", action="store_true", help="the whole lesson's output, then the verdict")
    check.set_defaults(run=cmd_check)
    watching = commands.add_parser("watch")
    watching.add_argument("name", nargs="?")
    watching.set_defaults(run=cmd_watch)
    hint = commands.add_parser("hint")
    hint.add_argument("name", nargs="?")
    hint.set_defaults(run=cmd_hint)
    for name, run in (("reset", cmd_reset), ("stub", cmd_stub)):
        sub = commands.add_parser(name)
        sub.add_argument("name")
        sub.set_defaults(run=run)
    prebuild = commands.add_parser("build")
    prebuild.add_argument("names", nargs="*")
    prebuild.set_defaults(run=cmd_build)
    solution = commands.add_parser("solution")
    solution.add_argument("name")
    solution.add_argument("--force", action="store_true")
    solution.set_defaults(run=cmd_solution)
    return parser.parse_args(argv)


def main(argv):
    try:
        args = parse(argv)
        return args.run(load_exercises(), args)
    except Refused as refused:
        print(f"tutorial: {refused}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
