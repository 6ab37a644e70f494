"""How the tests start a chapter program: through tools/launch, as every runner does (a
chapter whose manifest names a launcher, chapter 17's mpirun on several processes, has it
copied beside its program as bin/NAME.launcher, and tools/launch starts the program through it).

A bad input is refused before the program needs its processes (exit 2, one line on
stderr), so the cases that expect a refusal (bad_inputs.py, learner_files.py, the /proc case
of output_all_or_nothing.py) start the program directly. (The launcher first runs the program
alone in the same way, to check its flags and the number of processes before mpirun starts:
ring_launcher.py tests that.)
"""
import re
from pathlib import Path


LAUNCH = Path(__file__).resolve().parent.parent / "tools" / "launch"


def launcher(program):
    """The launcher tools/launch would start `program` through, or None (for the one test that
    must put something between the two: a file size limit on each process, not on mpirun)."""
    path = Path(str(program) + ".launcher")
    return path if path.exists() else None


def command(program, *args):
    """The command that starts `program` with `args`."""
    return [str(LAUNCH), str(program), *(str(a) for a in args)]


# What a training says on stderr as it starts, when stderr is not a terminal
# (common/training/training_progress.hpp): the run's work, not a complaint.
TRAINING = re.compile(r"^training( [^:]+)?: \d+ steps$")


def complaints(stderr):
    """stderr without the lines of trainings saying that they start."""
    return "".join(line for line in stderr.splitlines(keepends=True) if not TRAINING.match(line.rstrip("\n")))
