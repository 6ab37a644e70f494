"""The build's progress line (tools/build_progress.py): every second at a terminal, the time left
from each step's own history, one line in a pipe, and every line of Ninja in the log.

    python3 tests/build_progress.py      (ctest runs it as build_progress)

A made-up build of three steps whose last times were 6, 1 and 0.5 s (a .ninja_log) is fed to it
slowly, as Ninja would: nothing for 2.5 s (a long first step), then the steps. At a terminal (a
pseudo-terminal) the line must come at least once a second before the first step ends, say the
time left from the history, count down after the first step, and end with the count whole; in a
pipe only one line. Each problem is one line.
"""
import os
import pty
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "build_progress.py"
STEPS = ["[1/3] Building CXX object a.o", "[2/3] Building CXX object b.o", "[3/3] Linking CXX executable bin/c"]
HISTORY = "# ninja log v5\n0\t6000\t0\ta.o\t1\n0\t1000\t0\tb.o\t2\n0\t500\t0\tbin/c\t3\n"
problems = []


def feed(run):
    time.sleep(2.5)
    run.stdin.write(STEPS[0] + "\n")
    run.stdin.flush()
    time.sleep(1.2)
    run.stdin.write("\n".join(STEPS[1:]) + "\n")
    run.stdin.close()


with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    (tmp / "plan").write_text("\n".join(STEPS) + "\n")
    (tmp / "history").write_text(HISTORY)
    args = [sys.executable, str(TOOL), "release", str(tmp / "log"), str(tmp / "plan"), str(tmp / "history")]

    # At a terminal.
    main_end, terminal = pty.openpty()
    run = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=terminal, text=True)
    os.close(terminal)
    feed(run)
    run.wait(timeout=30)
    shown = b""
    while True:
        try:
            chunk = os.read(main_end, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(main_end)
    lines = [line for line in re.split(r"[\r\n]", shown.decode()) if line.strip()]
    cores = os.cpu_count() or 1
    waiting = [line for line in lines if "building 0 / 3" in line]
    if len(waiting) < 2:
        problems.append(f"at a terminal, {len(waiting)} lines before the first step ended in 2.5 s (at least 2): {lines}")
    first_left = round((6 + 1 + 0.5) / cores)
    if not any(f"about {max(1, first_left)} s left" in line for line in waiting):
        problems.append(f"the time left before the first step is not the history's {first_left} s: {waiting}")
    after_first = [line for line in lines if "building 1 / 3" in line]
    if not any(f"about {max(1, round((1 + 0.5) / cores))} s left" in line for line in after_first):
        problems.append(f"after the first step the time left is not the other two's: {after_first}")
    if not lines or "building 3 / 3" not in lines[-1] or "left" in lines[-1]:
        problems.append(f"the last line is not the whole count: {lines[-1:]}")
    if (tmp / "log").read_text().splitlines() != STEPS:
        problems.append("the log does not hold Ninja's lines as they came")

    # In a pipe: one line.
    run = subprocess.run(args, input="\n".join(STEPS) + "\ntutorial: configuring\n", capture_output=True,
                         text=True, timeout=30)
    said = run.stderr.splitlines()
    if said != ["tutorial: building release: 3 steps (each in build/release-build.log as it finishes)",
                "tutorial: configuring"]:
        problems.append(f"in a pipe it said {said}, not one line for the steps and the build's own line")

if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
print("at a terminal: a line each second, the time left from the history; in a pipe: one line")
