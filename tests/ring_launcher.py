"""Chapter 17's launcher: one check before mpirun, one line for a bad input, quiet under | head,
whole output wherever it goes.

    python3 tests/ring_launcher.py BIN_DIR [--tutorial]      (ctest runs it as ring_launcher)

bin/ch17_ring_attention.launcher runs the program once, alone, to check its flags and the
number of processes (TUTORIAL_RANKS), and only then mpirun. Here:
  - a bad flag, at any number of ranks: exit 2, one line naming it, nothing on stdout;
  - a bad number of processes (not a whole number, 0, one that would wrap round 2⁶⁴, more
    than --n, more than 4 per core without --allow-many-ranks): the same;
and in both cases mpirun is never started: a stand-in `mpirun` first on PATH notes each start.
A good number reaches it (with --allow-many-ranks beyond 4 per core), as `-n P`.
With the real mpirun (2 ranks, each run in its own process group, killed on a timeout):
  - a bad flag given to mpirun directly is said once, by rank 0, not once per rank;
  - a reader that has gone away (stdout a pipe nobody reads, as after | head) ends the run
    quietly: nothing on stderr, no crash of mpirun;
  - the lesson is whole in a pipe, on a terminal, and in a file between two lines the shell
    writes, in order (`( echo BEFORE; ./tutorial run 17; echo AFTER ) > file`).
--tutorial: the same refusals through ./tutorial run 17 --ranks P (the release build).
"""
import os
import pty
import select
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.argv[1]).resolve()
PROGRAM = BIN / "ch17_ring_attention"
LAUNCHER = BIN / "ch17_ring_attention.launcher"
THROUGH_TUTORIAL = "--tutorial" in sys.argv[2:]
CORES = len(os.sched_getaffinity(0))

failures = []


def fail(what):
    failures.append(what)
    print("✗", what)


def run(command, env, timeout=120, stdout=subprocess.PIPE):
    """(exit code, stdout, stderr) of command in its own process group, killed whole on a timeout."""
    p = subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, "", f"timed out after {timeout} s"
    return p.returncode, (out or b"").decode("utf-8", "replace"), err.decode("utf-8", "replace")


with tempfile.TemporaryDirectory() as scratch:
    scratch = Path(scratch)
    # The stand-in mpirun: notes its arguments and starts nothing.
    fake = scratch / "bin"
    fake.mkdir()
    # (The launcher asks mpirun --version which flags it takes: not a start.)
    (fake / "mpirun").write_text('#!/bin/sh\n[ "$1" = --version ] && exit 0\nprintf "%s\\n" "$*" >>"$MPIRUN_STARTS"\n')
    (fake / "mpirun").chmod(stat.S_IRWXU)
    starts = scratch / "starts"

    def with_stand_in(ranks, *args, tutorial=False):
        """Runs the launcher (or ./tutorial run 17 --ranks) with the stand-in mpirun; returns
        (exit code, stdout, stderr, the stand-in's starts)."""
        starts.write_text("")
        env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}", MPIRUN_STARTS=str(starts), NO_COLOR="1")
        env.pop("TUTORIAL_RANKS", None)
        if tutorial:
            command = [str(ROOT / "tutorial"), "run", "17", *args, "--ranks", ranks]
        else:
            if ranks is not None:
                env["TUTORIAL_RANKS"] = ranks
            command = [str(LAUNCHER), str(PROGRAM), *args]
        code, out, err = run(command, env)
        return code, out, err, starts.read_text().splitlines()

    def refused(ranks, args, names, tutorial=False):
        how = f"./tutorial run 17 --ranks {ranks}" if tutorial else f"TUTORIAL_RANKS={ranks!r} launcher"
        case = f"{how} {' '.join(args)}"
        code, out, err, started = with_stand_in(ranks, *args, tutorial=tutorial)
        if code != 2:
            fail(f"{case}: exit code {code}, expected 2 ({err.strip()[:200]})")
        elif not (err.endswith("\n") and err.count("\n") == 1):
            fail(f"{case}: {err.count(chr(10))} lines on stderr, expected one: {err[:300]!r}")
        elif names not in err:
            fail(f"{case}: the line does not name {names}: {err.strip()}")
        elif out:
            fail(f"{case}: printed on stdout: {out[:100]!r}")
        elif started:
            fail(f"{case}: mpirun was started ({started[0]})")
        else:
            print(f"✓ {case}: {err.strip()}")

    def reaches_mpirun(ranks, args, expected_n):
        case = f"TUTORIAL_RANKS={ranks!r} launcher {' '.join(args)}"
        code, out, err, started = with_stand_in(ranks, *args)
        if code != 0 or len(started) != 1 or f"-n {expected_n} " not in started[0] + " ":
            fail(f"{case}: exit {code}, mpirun started {started}, expected once with -n {expected_n} ({err.strip()})")
        else:
            print(f"✓ {case}: mpirun -n {expected_n}")

    many = 4 * CORES + 1  # one more than 4 per core
    # A bad flag, whatever the number of ranks: one line, before mpirun.
    for ranks in ["1", "2", "3", "4", str(4 * CORES)]:
        refused(ranks, ["--d", "0"], "--d")
    refused("4", ["--n", "3"], "--ranks")
    refused("4", ["--step", "nosuchstep", "--n", "0"], "--n")
    refused("2", ["--dump", "/proc/no/such/dir"], "--dump")
    # A bad number of processes.
    for ranks, args in [("0", []), ("two", []), ("-1", []), ("3x", []), ("+2", []), (" 2", []),
                        ("18446744073709551617", ["--n", "2"]), ("18446744073709551620", []),
                        ("1000", ["--n", "20"]), ("5", ["--n", "4"]), (str(many), ["--n", str(many + 10)]),
                        (str(many + 1), ["--n", str(many), "--allow-many-ranks"])]:
        refused(ranks, args, "--ranks")
    # Good numbers reach mpirun unchanged.
    reaches_mpirun(None, [], 4)
    reaches_mpirun("", [], 4)
    reaches_mpirun("1", ["--n", "1"], 1)
    reaches_mpirun(str(many), ["--n", str(many), "--allow-many-ranks"], many)
    if THROUGH_TUTORIAL:
        for ranks, args, names in [("8", ["--d", "0"], "--d"), ("18446744073709551617", ["--n", "2"], "--ranks"),
                                   ("1000", ["--n", "20"], "--ranks"), ("0", [], "--ranks"),
                                   ("two", [], "--ranks"), ("2", ["--", "--d", "0"], "--d"),
                                   ("2", ["--", "--n", "1"], "--ranks")]:
            refused(ranks, args, names, tutorial=True)

    # The real mpirun, 2 ranks (each start is heavy on a small machine).
    env = dict(os.environ, NO_COLOR="1")
    # Open MPI 4's mpirun takes -q (no banner when a rank exits non-zero), as the launcher gives it;
    # Open MPI 5's refuses -q and frames a banner of its own between lines of dashes.
    open_mpi_4 = "(Open MPI) 4." in subprocess.run(["mpirun", "--version"], capture_output=True, text=True).stdout
    mpirun = ["mpirun", *(["-q"] if open_mpi_4 else []), "-n", "2", "--oversubscribe", "--bind-to", "none",
              "--mca", "btl_tcp_if_include", "lo", "--mca", "btl_vader_single_copy_mechanism", "none"]
    env_root = dict(env, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    code, out, err = run(mpirun + [str(PROGRAM), "--d", "0"], env_root)
    if not open_mpi_4:  # the program's own lines, without Open MPI 5's framed banner
        err = "".join(line for line in err.splitlines(keepends=True) if line.startswith(PROGRAM.name))
    if code is None or err.count("\n") != 1 or "--d" not in err or out:
        fail(f"mpirun -n 2 PROGRAM --d 0: exit {code}, {err.count(chr(10))} lines on stderr, expected one: {err[:300]!r}")
    else:
        print(f"✓ mpirun -n 2 PROGRAM --d 0: said once: {err.strip()}")

    # A reader that has gone: before the fix, about one run in two made mpirun print
    # "SIGPIPE detected" lines, or crash (SIGSEGV, a 22-line backtrace).
    for attempt in range(4):
        read_end, write_end = os.pipe()
        os.close(read_end)
        code, out, err = run([str(LAUNCHER), str(PROGRAM)], dict(env, TUTORIAL_RANKS="2"), stdout=write_end)
        os.close(write_end)
        if code not in (0, 128 + signal.SIGPIPE, -signal.SIGPIPE) or err:
            fail(f"launcher with nobody reading its stdout (run {attempt + 1}): exit {code}, stderr {err[:300]!r}")
            break
    else:
        print("✓ 4 runs with nobody reading stdout (as after | head) ended quietly")
    # And one whose reader takes a line, then goes.
    p = subprocess.Popen([str(LAUNCHER), str(PROGRAM), "--n", "64"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=dict(env, TUTORIAL_RANKS="2"), start_new_session=True)
    first = p.stdout.readline().decode()
    p.stdout.close()
    try:
        err = p.communicate(timeout=60)[1].decode()
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        err = "timed out"
    if not first.startswith("Chapter 17") or err or p.returncode not in (0, 141, -signal.SIGPIPE):
        fail(f"launcher | head -1: first line {first!r}, exit {p.returncode}, stderr {err[:300]!r}")
    else:
        print(f"✓ launcher | head -1: {first.strip()!r}, exit {p.returncode}, nothing on stderr")

    # Whole in a file, in a pipe and on a terminal. In a file, between two lines the shell writes:
    # before the fix, rank 0 reopened the file with an offset of its own, and the shell's
    # "AFTER" landed over the lesson's first lines.
    # Without NO_COLOR: a file or a pipe gets plain text (mpirun hands rank 0 a terminal of its own).
    lesson = [str(LAUNCHER), str(PROGRAM), "--n", "64"]
    plain = {k: v for k, v in env.items() if k != "NO_COLOR"}
    code, piped, err = run(lesson, dict(plain, TUTORIAL_RANKS="2"))
    if code != 0 or not piped.startswith("Chapter 17") or err:
        fail(f"launcher into a pipe: exit {code}, first line {piped[:60]!r}, stderr {err[:300]!r}")
    else:
        print(f"✓ launcher into a pipe: {len(piped.splitlines())} lines")
    written = scratch / "lesson.txt"
    with open(written, "wb") as file:
        shell = 'echo BEFORE; "$@"; echo AFTER'
        code, _, err = run(["sh", "-c", shell, "sh", *lesson], dict(plain, TUTORIAL_RANKS="2"), stdout=file)
    text = written.read_text()
    if code != 0 or text != "BEFORE\n" + piped + "AFTER\n":
        fail(f"(echo BEFORE; launcher; echo AFTER) > file: exit {code}, the file starts {text[:120]!r}, "
             f"{len(text.splitlines())} lines, expected {len(piped.splitlines()) + 2} ({err[:200]!r})")
    else:
        print(f"✓ (echo BEFORE; launcher; echo AFTER) > file: BEFORE, the {len(piped.splitlines())} lines, AFTER")
    terminal, screen = pty.openpty()
    p = subprocess.Popen(lesson, stdout=screen, stderr=subprocess.DEVNULL, env=dict(env, TUTORIAL_RANKS="2"),
                         start_new_session=True)
    os.close(screen)
    shown = b""
    while True:  # read until the terminal closes (EIO), or the run is too long
        ready, _, _ = select.select([terminal], [], [], 120)
        try:
            chunk = os.read(terminal, 65536) if ready else b""
        except OSError:  # EIO: every writer has closed the terminal
            chunk = b""
        if not chunk:
            break
        shown += chunk
    if ready == []:
        os.killpg(p.pid, signal.SIGKILL)
    os.close(terminal)
    code = p.wait()
    shown = shown.decode("utf-8", "replace").replace("\r\n", "\n")
    if code != 0 or shown != piped:
        fail(f"launcher on a terminal: exit {code}, {len(shown.splitlines())} lines, expected "
             f"{len(piped.splitlines())}: starts {shown[:120]!r}")
    else:
        print(f"✓ launcher on a terminal: the same {len(piped.splitlines())} lines")

if failures:
    print(f"\n{len(failures)} failed")
    sys.exit(1)
print("\nall passed")
