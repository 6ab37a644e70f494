"""--list-steps computes nothing, and --step NAME only what that step shows.

    python3 tests/list_steps.py BIN_DIR

Every chapter lists its steps with no training: the chapters that train run with their
largest --steps, whose trainings would take minutes, and must answer within seconds, say
nothing on stderr (a training says what it does there) and keep no trained model
(TUTORIAL_TRAINED points at an empty folder). Chapter 19's steps before "trained" train
nothing either, and chapter 20's rolling buffer trains only the model it reads. Through a pipe,
a training says on stderr that it runs. Each run is bounded in time, in a process group of its own, killed whole.
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import command  # noqa: E402

bin_dir = Path(sys.argv[1])
SECONDS = 20  # bounds a run that trains nothing; the trainings asked for take minutes
failures = []


def options_of(program):
    """The program's --list-options: {flag: its description}, and whether --text goes through chapter 22's model."""
    listed = json.loads(subprocess.run(command(program, "--list-options"), capture_output=True, text=True,
                                       timeout=SECONDS, check=True).stdout)
    return {o["name"]: o for o in listed["options"]}, listed.get("sentence_through_model", False)


def largest(options, flag):
    """[flag, its largest value] when the chapter has the flag, else []."""
    return [flag, str(options[flag]["range"]["high"])] if flag in options else []


def run(program, *args):
    """(exit code, stdout, stderr, trained models kept) of one bounded run."""
    with tempfile.TemporaryDirectory() as trained:
        env = dict(os.environ, TUTORIAL_TRAINED=trained)
        p = subprocess.Popen(command(program, "--no-color", *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=env, start_new_session=True)
        try:
            out, err = p.communicate(timeout=SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            p.communicate()
            return None, "", f"still running after {SECONDS} s", 0
        return p.returncode, out.decode(), err.decode(), len(os.listdir(trained))


def expect_untrained(what, code, out, err, kept, lines_like=None):
    if code != 0 or err or kept:
        failures.append(f"{what}: exit {code}, stderr {err.strip()[:200]!r}, {kept} trained model(s) kept")
    elif lines_like and not any(lines_like in line for line in out.splitlines()):
        failures.append(f"{what}: no line with {lines_like!r} in {out[:200]!r}")
    else:
        print(f"✓ {what}: nothing trained")


chapters = sorted(p for p in bin_dir.glob("ch[0-9][0-9]_*") if p.is_file() and os.access(p, os.X_OK)
                  and p.suffix != ".launcher")
text_runs = 0
for program in chapters:
    options, through_model = options_of(program)
    # A chapter that trains, with its largest number of steps.
    args = largest(options, "--steps")
    code, out, err, kept = run(program, "--list-steps", *args)
    expect_untrained(f"{program.name} --list-steps {' '.join(args)}", code, out, err, kept, lines_like=" checks ")
    # --text that reads chapter 22's model, or trains it first: --list-steps does neither (none is
    # kept here), at its deepest layer.
    if through_model:
        args = largest(options, "--layer")
        code, out, err, kept = run(program, "--list-steps", "--text", "Call me Ishmael.", *args)
        expect_untrained(f"{program.name} --list-steps --text … {' '.join(args)}", code, out, err, kept,
                         lines_like=" checks ")
        text_runs += 1
nineteen = bin_dir / "ch19_linear_attention"
longest = largest(options_of(nineteen)[0], "--steps")
for step in ["sequence", "parallel", "recurrent", "chunked", "delta-rule", "memory"]:
    code, out, err, kept = run(nineteen, "--step", step, *longest)
    expect_untrained(f"ch19 --step {step} --steps 5000", code, out, err, kept)

# Through a pipe too, a training says what it is doing: one line on stderr as each starts. Chapter
# 20's steps train what they read: on one thread its rolling buffer reads the MHA model only (on
# two, the sink model trains beside it); the whole run trains the eight models of its table, each
# once (those of one step side by side, on the machine's threads: their lines in any order).
for args, trained in [(["--threads", "1", "--step", "rolling-buffer"], ["MHA"]),
                      (["--threads", "2", "--step", "rolling-buffer"], ["MHA", "sink logit"]),
                      ([], ["MHA", "sink logit", "MQA", "GQA", "MLA", "linear", "DeltaNet", "gated DeltaNet"])]:
    code, out, err, kept = run(bin_dir / "ch20_sparse_attention", "--steps", "10", *args)
    said = [line for line in err.splitlines() if line.startswith("training ")]
    expected = [f"training {name}: 10 steps" for name in trained]
    if code != 0 or sorted(said) != sorted(expected) or kept != len(trained):
        failures.append(f"ch20 --steps 10 {' '.join(args)} through a pipe: exit {code}, stderr says {said} "
                        f"(expected {expected}), {kept} models kept (expected {len(trained)})")
    else:
        print(f"✓ ch20 --steps 10 {' '.join(args)} through a pipe trains {', '.join(trained)}, once each, and says so")

print("\n".join(failures))
print(f"{len(chapters) + 9 + text_runs - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
