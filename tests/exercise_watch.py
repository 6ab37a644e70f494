"""./tutorial watch as a learner sees it, in a terminal of 40 × 100 (a pseudo-terminal).

    python3 tests/exercise_watch.py BUILD_DIR     (ctest runs it as exercise_watch)

  - the first screen is cleared and shows the current exercise's verdict in at most 40 lines;
  - `hint` in another shell (which writes .progress) and a save of another file do not regrade;
  - saving the solution regrades once: the screen says it passes, and stays (no next exercise);
  - the key n moves to the next exercise, h shows a hint, q quits with exit code 0;
  - watch NAME starts at that exercise, and in 60 columns every line is wrapped at spaces.
"""
import contextlib
import os
import pty
import re
import select
import struct
import subprocess
import sys
import tempfile
import termios
import fcntl
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(sys.argv[1]).resolve()
TOOL = ROOT / "grader" / "exercises.py"
sys.path.insert(0, str(ROOT / "grader"))
from exercises import load_exercises  # noqa: E402

CLEAR = "\x1b[H\x1b[2J"
failures = []
first, second = load_exercises()[:2]


def expect(what, ok, screen=""):
    print(f"{'✓' if ok else '✗'} {what}", flush=True)
    if not ok:
        failures.append(f"{what}\n{screen[-2500:]}")


master, seen = None, ""  # the terminal of the watch that runs, and all it showed


@contextlib.contextmanager
def watching(files, columns, *args):
    """./tutorial watch ARGS in a terminal of 40 rows × `columns`, in a process group of its own,
    the learner's files in `files`; yields (the process, its environment), stopped whole at the end."""
    global master
    # COLUMNS and LINES as the shell of such a terminal exports them (a learner's may be set)
    env = dict(os.environ, TUTORIAL_BUILD=str(BUILD), TUTORIAL_EXERCISE_FILES=str(files), TERM="xterm",
               COLUMNS=str(columns), LINES="40")
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    watch = subprocess.Popen([sys.executable, str(TOOL), "watch", *args], stdin=slave, stdout=slave, stderr=slave,
                             env=env, start_new_session=True)
    os.close(slave)
    try:
        yield watch, env
    finally:
        if watch.poll() is None:
            os.killpg(watch.pid, 9)
        os.close(master)


def read_until(pattern, seconds):
    """What the terminal showed until the pattern appeared (or the time ran out)."""
    global seen
    start, got = time.monotonic(), ""
    while time.monotonic() - start < seconds:
        if select.select([master], [], [], 0.1)[0]:
            try:
                chunk = os.read(master, 65536).decode("utf-8", "replace")
            except OSError:
                break
            got += chunk
            if pattern and re.search(pattern, got):
                break
    seen += got
    return got


def last_screen(text):
    return text.split(CLEAR)[-1]


with tempfile.TemporaryDirectory() as tmp, watching(Path(tmp), 100) as (watch, env):
    files = Path(tmp)
    got = read_until(r"not yet.*\n(.*\n)*.*save the file", 120)
    screen = last_screen(got)
    expect("the first screen is cleared and has the verdict", CLEAR in got and "not yet" in screen, got)
    expect(f"it fits in 40 lines ({screen.count(chr(10))})", screen.count("\n") <= 40, screen)
    expect("it names the exercise and the progress", f"Exercise 1 / " in screen and first["name"] in screen,
           screen)

    subprocess.run([sys.executable, str(TOOL), "hint", first["name"]], env=env, capture_output=True)
    (files / "notes.txt").write_text("a note\n")
    got = read_until("checking", 2.5)
    expect("a hint (.progress written) and another file do not regrade", "checking" not in got, got)

    (files / f"{first['name']}.cpp").write_text(
        (ROOT / "chapters" / first["chapter"] / "math.cpp").read_text())
    got = read_until(r"passes(.*\n)*.*n next", 60)
    expect("saving the solution regrades: it passes", "passes" in last_screen(got), got)
    expect("one save, one grade", got.count("checking") == 1, got)
    got = read_until("Exercise 2 /", 2)
    expect("after a pass it waits for a key", "Exercise 2 /" not in got, got)

    os.write(master, b"h")
    got = read_until("Hint 1", 5)
    expect("h shows a hint", "Hint 1" in got, got)
    os.write(master, b"n")
    got = read_until(r"Exercise 2 /(.*\n)*.*(not yet|passes)", 120)
    expect("n moves to the next exercise", "Exercise 2 /" in got and second["name"] in got, got)
    os.write(master, b"q")
    code = watch.wait(timeout=10)
    expect(f"q quits (exit {code})", code == 0, seen)

# A teacher's assignment: watch NAME starts at that exercise; in a terminal of 60 columns every
# line is wrapped at spaces by the tool (a line the terminal would break mid-word never leaves it).
named = next(e for e in load_exercises() if e["name"].startswith("02_b"))
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
with tempfile.TemporaryDirectory() as tmp, watching(Path(tmp), 60, "02_b") as (watch, env):
    got = read_until(r"not yet[\s\S]*save\s+the\s+file", 120)  # the keys' line wraps at 60
    screen = last_screen(got)
    number = load_exercises().index(named) + 1
    expect(f"watch 02_b starts at exercise {number}, {named['name']}",
           f"Exercise {number} / " in screen and named["name"] in screen and "not yet" in screen, got)
    os.write(master, b"h")
    # the hint's first line, then the rest of it: the screen may arrive in more than one read
    screen = last_screen(read_until("Hint 1", 5) + read_until(None, 1))
    rows = ANSI.sub("", screen).replace("\r", "").split("\n")
    hint = " ".join(named["hints"][0].split())
    expect("at 60 columns every row fits, and the hint's words are whole",
           all(len(r) <= 60 for r in rows) and hint in " ".join(" ".join(rows).split()), screen)
    os.write(master, b"q")
    code = watch.wait(timeout=10)
    expect(f"q quits (exit {code})", code == 0, screen)

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
