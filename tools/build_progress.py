#!/usr/bin/env python3
"""How far a build is, told while it runs: Ninja's lines in, the log and one status line out.

    tools/build PRESET [TARGET…] | tools/build_progress.py PRESET LOG PLAN HISTORY

Every line Ninja prints goes to LOG as it comes. On a terminal, stderr holds one line that is
rewritten every second, even while a long step runs and Ninja prints nothing:

    tutorial: building 41 / 156 · 23 s · about 30 s left

The time left is each remaining step's own time the last time it was built (HISTORY, Ninja's
.ninja_log), on as many cores as Ninja runs; a step never built before counts as the mean of the
steps that were (on a first build, the mean this build has shown so far). PLAN is the list of
steps the build will run (`ninja -n`, written by tools/build before Ninja starts; the caller
removes an earlier one): without it no time left is said, nor, on a first build, before the
first step ends. In a pipe, one
line says how many steps there are and the rest stays quiet, as each step is in LOG anyway.
The build's own "tutorial: …" lines (configuring, or why it could not) pass through to stderr.
"""
import os
import queue
import re
import sys
import threading
import time
from pathlib import Path

STEP = re.compile(r"^\[(\d+)/(\d+)\] (.*)$")


def output_of(description):
    """The file a step makes, as CMake's descriptions end with it ("Linking CXX executable bin/ch01")."""
    return description.rsplit(" ", 1)[-1]


def history(path):
    """Seconds each output took the last time it was built (.ninja_log, format 5: start end mtime output hash)."""
    took = {}
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return took
    for line in lines[1:]:
        fields = line.split("\t")
        if len(fields) == 5 and fields[0].isdigit() and fields[1].isdigit():
            took[fields[3]] = (int(fields[1]) - int(fields[0])) / 1000
    return took


def planned(path):
    """The outputs of the steps the build will run, in Ninja's dry-run order; None while there is
    no such file (the caller removes an earlier build's)."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return [output_of(m.group(3)) for m in map(STEP.match, lines) if m]


def seconds_left(plan, done, took, per_step, cores):
    """Seconds the steps not yet done take on `cores`: each its own last time, or `per_step`."""
    remaining = [output for output in plan if output not in done]
    if not remaining:
        return None
    return sum(took.get(output, per_step) for output in remaining) / cores


def main(preset, log_path, plan_path, history_path):
    terminal = sys.stderr.isatty()
    cores = max(1, os.cpu_count() or 1)
    took = history(history_path)
    plan = None  # tools/build writes it before Ninja starts
    lines = queue.Queue()

    def read():
        for line in sys.stdin:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    started = time.monotonic()
    finished, total, done, shown, drawn = 0, 0, set(), False, False

    def status():
        nonlocal plan, total, drawn
        if plan is None:
            plan = planned(plan_path)
        total = total or len(plan or [])
        if not total:
            return  # nothing known yet (configuring), or nothing to build
        elapsed = time.monotonic() - started
        text = f"tutorial: building {finished} / {total} · {elapsed:.0f} s"
        # a step never built before: the mean of those that were, or of this build's so far
        known = [took[output] for output in plan or [] if output in took]
        per_step = sum(known) / len(known) if known else elapsed * cores / max(1, finished)
        left = seconds_left(plan or [], done, took, per_step, cores) if finished or known else None
        if left is not None:
            text += f" · about {max(1, round(left))} s left"
        sys.stderr.write("\r" + text + "\033[K")
        sys.stderr.flush()
        drawn = True

    with open(log_path, "w", encoding="utf-8", errors="replace") as log:
        while True:
            try:
                line = lines.get(timeout=1.0)
            except queue.Empty:
                if terminal:
                    status()
                continue
            if line is None:
                break
            log.write(line)
            log.flush()
            step = STEP.match(line.rstrip("\n"))
            if step:
                finished, total = int(step.group(1)), int(step.group(2))
                done.add(output_of(step.group(3)))
                if terminal:
                    status()
                elif not shown:
                    sys.stderr.write(f"tutorial: building {preset}: {total} steps "
                                     f"(each in build/{preset}-build.log as it finishes)\n")
                shown = True
            elif line.startswith("tutorial: "):
                if drawn:
                    sys.stderr.write("\r\033[K")
                sys.stderr.write(line)
                if drawn:
                    status()
    if drawn:
        sys.stderr.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: tools/build PRESET … | tools/build_progress.py PRESET LOG PLAN HISTORY")
    main(*sys.argv[1:])
