"""How the tests start a chapter program.

Most programs run as they are. A chapter whose folder holds a `launcher` script (chapter 17:
mpirun on several processes) has it copied beside its program as bin/NAME.launcher, and runs
as `bin/NAME.launcher bin/NAME ARGS…`; command() does that for every test.

A bad input is refused before the program needs its processes (exit 2, one line on
stderr), so the cases that expect a refusal (bad_inputs.py, learner_files.py, the /proc case
of output_all_or_nothing.py) start the program directly. (The launcher first runs the program
alone in the same way, to check its flags and the number of processes before mpirun starts:
ring_launcher.py tests that.)
"""
import re
from pathlib import Path


def launcher(program):
    """bin/NAME.launcher beside bin/NAME, or None."""
    program = Path(program)
    path = program.with_name(program.name + ".launcher")
    return path if path.exists() else None


def command(program, *args):
    """[program, args…], with the program's launcher in front when it has one."""
    found = launcher(program)
    return ([str(found)] if found else []) + [str(program), *(str(a) for a in args)]


# What a training says on stderr as it starts, when stderr is not a terminal
# (common/lesson/training_progress.hpp): the run's work, not a complaint.
TRAINING = re.compile(r"^training( [^:]+)?: \d+ steps$")


def complaints(stderr):
    """stderr without the lines of trainings saying that they start."""
    return "".join(line for line in stderr.splitlines(keepends=True) if not TRAINING.match(line.rstrip("\n")))
