"""./tutorial watch [NAME]: one screen, the exercise's verdict (the current one's, or NAME's), again
on each save.

The screen is cleared on every verdict and shows only what explains it (the compiler's first
error, or the first wrong entries and the ✗ self-checks), in at most 40 lines. Only the current
exercise's file is watched (inotifywait, on its folder, filtered by name); an editor that writes
twice in a row is graded once. After a pass it waits for a key: n the next exercise, and at
any time h a hint, s the solution (once passed), f the whole lesson, l the list, q quit.
"""
import os
import select
import shutil
import subprocess
import sys
import termios
import tty

MOST_LINES = 40
QUIET_SECONDS = 0.15        # an editor's second write comes within this: one grade for both
KEYS_WAITING = "f the whole lesson · h a hint · l the list · q quit · save the file to check again"
KEYS_PASSED = "n next · h a hint · s the solution · f the whole lesson · l the list · q quit"


class Screen:
    def __init__(self, ex, exercises):
        self.ex, self.exercises = ex, exercises
        self.tty = sys.stdout.isatty()

    def draw(self, e, verdict, extra=(), busy=False):
        size = shutil.get_terminal_size((100, MOST_LINES))
        height, width = min(MOST_LINES, size.lines), max(40, size.columns)
        # Every line wrapped at spaces to the terminal's width: the rows it shows.
        fit = lambda lines: [row for line in lines for row in self.ex.wrapped(line, width)]
        done, _ = self.ex.read_progress()
        number = self.exercises.index(e) + 1
        head = fit([f"Exercise {number} / {len(self.exercises)} · {e['name']} · {e['title']}",
                    f"your file: {self.ex.pretty(self.ex.learner_file(e))}   "
                    f"({len(done & {x['name'] for x in self.exercises})} of {len(self.exercises)} done)"]
                   + ([e["args_note"]] if "args_note" in e else []) + [""])
        body = fit([f"checking {e['name']} …"] if busy else self.ex.verdict_lines(verdict))
        extra = fit([""] + list(extra)) if extra else []
        keys = fit(["", KEYS_PASSED if verdict and verdict.code == 0 else KEYS_WAITING])
        # The verdict's first rows, then what was asked for (a hint, the list), within the height
        # (one row kept free: the last line's newline would scroll the first row away).
        budget = height - 1 - len(head) - len(keys)
        shown = body + extra
        if len(shown) > budget:
            shown = shown[:budget - 1] + ["  … (f shows the whole lesson)" if budget - 1 < len(body) else "  …"]
        out = "\x1b[H\x1b[2J\x1b[3J" if self.tty else "\n"
        sys.stdout.write(out + "\n".join(head + shown + keys) + "\n")
        sys.stdout.flush()


def start_watching(folder):
    """inotifywait on the learner's folder: one line (the file's name) per save."""
    if shutil.which("inotifywait") is None:
        raise SystemExit("tutorial: watch needs inotifywait (Debian's inotify-tools, which ./tutorial installs)")
    return subprocess.Popen(["inotifywait", "-m", "-q", "-e", "close_write,moved_to", "--format", "%f", str(folder)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)


def saved(notify, name):
    """Reads what inotifywait said: True when the file named `name` was saved. After a save,
    waits until the folder is quiet for QUIET_SECONDS (an editor may write twice)."""
    line = notify.stdout.readline()
    if not line:
        raise SystemExit("tutorial: inotifywait stopped watching the folder (was it removed?); run ./tutorial watch again")
    hit = line.strip() == name
    while select.select([notify.stdout], [], [], QUIET_SECONDS)[0]:
        line = notify.stdout.readline()
        if not line:
            break
        hit = hit or line.strip() == name
    return hit


def show_whole_lesson(verdict):
    if verdict is None or verdict.log is None:
        return
    pager = shutil.which("less")
    if sys.stdout.isatty() and pager:
        subprocess.run([pager, "-R", "+G", str(verdict.log)])
    else:
        sys.stdout.write(verdict.log.read_text(encoding="utf-8", errors="replace"))


def following(exercises, e, done):
    """The exercise after e that is not done yet (a teacher may start the class at chapter 18),
    else the first one not done, else None."""
    after = exercises[exercises.index(e) + 1:] + exercises
    return next((x for x in after if x["name"] not in done), None)


def watch(exercises, ex, name=None):
    """Watches the named exercise (a name as check takes it), or the current one."""
    done, _ = ex.read_progress()
    e = ex.find(exercises, name) if name else ex.current(exercises, done)
    if e is None:
        print("Every exercise is done.")
        return 0
    screen = Screen(ex, exercises)
    ex.ensure_file(e)
    notify = start_watching(ex.learner_file(e).parent)
    keyboard = sys.stdin.isatty()
    saved_mode = termios.tcgetattr(sys.stdin) if keyboard else None
    try:
        if keyboard:
            tty.setcbreak(sys.stdin)  # one key at a time, no Enter; Ctrl-C still stops

        def grade(e):
            screen.draw(e, None, busy=True)
            verdict = ex.grade(e, color=screen.tty, quiet=True)
            screen.draw(e, verdict)
            return verdict

        verdict = grade(e)
        # Keys come from a terminal; without one (input from a file or a pipe) only saves count.
        inputs = [notify.stdout, sys.stdin] if keyboard else [notify.stdout]
        while True:
            ready, _, _ = select.select(inputs, [], [])
            if notify.stdout in ready:
                if saved(notify, ex.learner_file(e).name):
                    verdict = grade(e)
                continue
            key = os.read(sys.stdin.fileno(), 1).decode("utf-8", "replace").lower()
            if key in ("q", ""):
                return 0
            if key == "h":
                screen.draw(e, verdict, ex.hint_lines(e))
            elif key == "l":
                screen.draw(e, verdict, ex.listing(exercises))
            elif key == "f":
                show_whole_lesson(verdict)
                screen.draw(e, verdict)
            elif key == "s":
                passed = verdict.code == 0
                screen.draw(e, verdict, ex.solution_lines(e) if passed else
                            [f"Pass it first; or see it anyway with ./tutorial solution {ex.short_name(e)} --force"])
            elif key == "n" and verdict.code == 0:
                done, _ = ex.read_progress()
                after = following(exercises, e, done)
                if after is None:
                    screen.draw(e, verdict, ["That was the last one: every exercise is done."])
                    continue
                e = after
                ex.ensure_file(e)
                verdict = grade(e)
    except KeyboardInterrupt:
        return 0
    finally:
        notify.terminate()
        if keyboard:
            termios.tcsetattr(sys.stdin, termios.TCSADRAIN, saved_mode)
        print("\nStopped watching.")
