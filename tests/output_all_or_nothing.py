"""--dump, --svg, --html and --report write every file or none, and say so in one line.

    python3 tests/output_all_or_nothing.py BIN_DIR     (ctest runs it as output_all_or_nothing)

For every chapter:
  - a directory where no file can be created (/proc, even for root) is refused
    before the lesson prints anything: exit 2, one line on stderr, empty stdout;
  - a full disk, played by a file size limit of 100 bytes (ulimit -f): the lesson
    prints, then the run exits 2 with one line naming the file it could not
    write, prints no "Wrote …", and leaves no file (not even a partial one) in
    any directory, the report's included (the page, index.html, is the first file written:
    the one refused).
"""
import concurrent.futures
import re
import resource
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from printed_numbers import chapter_programs  # noqa: E402
from launch import complaints, launcher  # noqa: E402  (bin/NAME.launcher, when a chapter has one)
from fast_args import FAST_ARGS  # noqa: E402

BIN = Path(sys.argv[1]).resolve()
failures = []


def small_files():
    # The limit makes write() fail with EFBIG instead of killing the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))


# With a launcher (chapter 17: mpirun), the limit goes on each process of the chapter, not on
# mpirun: mpirun writes files of its own (PMIx's shared store) that 100 bytes cannot hold.
LIMIT_THEN_RUN = ("import os, resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
                  "resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100)); os.execv(sys.argv[1], sys.argv[1:])")


# Open MPI 5 keeps its shared memory in a file, which the limit (unlike a full disk, which leaves
# /dev/shm alone) stops growing: its mpirun then says so between two rulers of dashes and the
# processes talk through the loopback instead. That notice is the test's doing, not the chapter's.
OPEN_MPI_NOTICE = re.compile(r"^-{20,}\n.*?^-{20,}\n\n?", re.MULTILINE | re.DOTALL)


def on_a_full_disk(program, *args):
    """(command, preexec_fn): the program's run with a file size limit of 100 bytes."""
    found = launcher(program)
    if found:
        return [found, sys.executable, "-c", LIMIT_THEN_RUN, program, *args], None
    return [program, *args], small_files


def check(chapter):
    lines = []
    # Refused before the program needs its processes: started directly (see launch.py).
    for flag in ("--dump", "--html"):
        run = subprocess.run([BIN / chapter, "--no-color", flag, "/proc"], capture_output=True, text=True,
                             timeout=600)
        if run.returncode != 2 or run.stderr.count("\n") != 1 or f"{flag} /proc" not in run.stderr or run.stdout:
            failures.append(f"{chapter} {flag} /proc: exit {run.returncode}, stderr {run.stderr!r}, "
                            f"{run.stdout.count(chr(10))} lines on stdout")
        lines.append(f"  {flag} /proc: {run.stderr.strip()}")

    with tempfile.TemporaryDirectory() as tmp:
        dump, svg, html, report = (Path(tmp) / name for name in ("dump", "svg", "html", "report"))
        report.mkdir()
        argv, preexec = on_a_full_disk(BIN / chapter, *FAST_ARGS.get(chapter, []), "--no-color", "--dump", dump,
                                       "--svg", svg, "--html", html, "--report", report / "report.json")
        run = subprocess.run(argv, capture_output=True, text=True, timeout=600, preexec_fn=preexec)
        left = sorted(p.name for d in (dump, svg, html, report) if d.exists() for p in d.iterdir())
        problems = []
        if run.returncode != 2:
            problems.append(f"exit {run.returncode}")
        # A chapter that trains first says so (its trainings ran); then one line of complaint.
        complaint = complaints(OPEN_MPI_NOTICE.sub("", run.stderr) if launcher(BIN / chapter) else run.stderr)
        if complaint.count("\n") != 1 or "cannot write" not in complaint or "index.html" not in complaint:
            problems.append(f"stderr {run.stderr[:200]!r}")
        if "Wrote" in run.stdout:
            problems.append("says it wrote files")
        if left:
            problems.append(f"left {left}")
        if problems:
            failures.append(f"{chapter} with a full disk: " + "; ".join(problems))
        lines.append(f"  a full disk: {complaint.strip()}")
    return chapter, lines


with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    for chapter, lines in pool.map(check, chapter_programs()):
        print(chapter)
        print("\n".join(lines))
for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
