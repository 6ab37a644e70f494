"""Every shell command the docs and the README show runs as written.

    python3 tests/doc_commands.py [--list]      (ctest runs it as doc_commands, release build only)

The commands are the lines of the ```sh blocks of docs/*.md and README.md (a here-document
with its lines) and every inline `./tutorial …` code span. Each runs with bash in a scratch
copy of the project (the sources with their times, the build linked in), so that what a
command writes (--dump out, --svg pictures, hosts) and the exercise files and progress
(TUTORIAL_EXERCISE_FILES) stay out of the tree; the files a doc asks the learner to write
first (`mine.csv`, `compass.csv`, …) are made there from what the doc says. A command fails
the test when it exits with a code the doc does not expect, or outlasts TIMEOUT seconds.
At most two run at once. --list prints each command and what happens to it, without running.

Written shapes (NN, NAME, P, [optional parts]) run with a value put in; `./tutorial check
NAME` asks for the exercise by name with `./tutorial solution NAME --force` (a real grading
compiles for seconds; the exercises test grades every exercise), and one real check runs.
The few commands that cannot run here are in NOT_RUN, each with why.
"""
import concurrent.futures
import csv
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fast_args import FAST_ARGS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
TIMEOUT = 40  # seconds for one command
# A --text command reads chapter 22's model, or trains it first (about a minute, once, under a
# lock: the other runs wait for it and read it back).
TEXT_TIMEOUT = 200
LIST_ONLY = "--list" in sys.argv[1:]

# Commands that cannot run in a test, and why.
NOT_RUN = {
    "./tutorial run": "runs every chapter in order (a minute; the chapter.* tests run each)",
    "./tutorial test": "the whole test suite, of which this test is a part",
    "./tutorial test --full": "the suite twice and minutes of fuzzing",
    "./tutorial bench": "benchmarks: minutes, and a build for this processor",
    "./tutorial bench --benchmark_filter=streaming": "a benchmark (the same)",
    "./tutorial bless": "rewrites the golden outputs and the docs (the golden and docs tests compare them)",
    "./tutorial watch": "waits for the learner's saves until Ctrl-C",
    "./tutorial watch 18": "waits for the learner's saves until Ctrl-C (exercise_watch starts one at a name)",
    "./tutorial watch 18_b": "waits for the learner's saves until Ctrl-C (exercise_watch starts one at a name)",
    "./tutorial watch [NAME]": "waits for the learner's saves until Ctrl-C",
    "./tutorial explore": "every chapter's default run, chapter 16's training too (about two minutes; "
                          "explorer_browser opens a page of each chapter)",
    "cmake --preset release": "configures the build this test runs in",
    "cmake --build --preset release -j": "builds the build this test runs in",
    "ctest --preset release": "the whole test suite, of which this test is a part",
    "mpirun --hostfile hosts -n 16 build/release/bin/ch17_ring_attention --n 16384 --d 64 --measure":
        "needs the two machines of its host file",
    "./tutorial run 10 --max-n 65536 --budget-s 60": "a measurement of up to a minute",
    './tutorial new 90 my_heads "Heads of my own"': "writes a chapter and builds it (a minute; the test "
                                                      "chapter_from_template writes one into a copy of the project)",
    "./tutorial run 90": "runs the chapter that ./tutorial new 90 … writes",
    "./tutorial new": "the command's name: it needs a number, a name and a title (as above)",
    "./tutorial run 17 --ranks P --n 16384 --d 64 [--causal] --measure --step measured":
        "a measurement: about 1 GB (chapter 10's reference at n = 16 384) and tens of seconds per run",
}

# Exit codes a doc expects in its prose, other than 0: (code, what the output must then say).
# (A doc that shows the refusal, `<!-- output: chNN_name ARGS exit=2 -->`, says it there.)
EXPECTED = {
    # ch05: "which self-check fails?"
    "./tutorial run 05 --w-q my_W_Q.csv": (1, "self-checks failed"),
    # ch05: "two self-checks fail, exit code 1"
    "./tutorial run 05 --w-k data/projections/W_Q.csv": (1, "2 of 9 self-checks failed"),
    # exercises.md: check exits 1 on a file that does not pass, here the file as given
    "./tutorial check 01": (1, "✗ not yet"),
    "./tutorial check [NAME]": (1, "✗ not yet"),
    "./tutorial check": (1, "✗ not yet"),
    "./tutorial check NAME --full": (1, "✗ not yet"),
    # exercises.md: the answer once you passed (--force before)
    "./tutorial solution NAME": (1, "Pass it first"),
}

# Chapters whose default run trains or measures for seconds: their commands run with these
# flags added (unless the command sets the flag), since what is checked here is that the
# command is right, not the training or the timing (the chapter.* and docs.* tests run those).
# The flags are those the other tests use (fast_args.py); chapter 16 trains 40 steps here.
SHORTER = {name[2:4]: flags for name, flags in FAST_ARGS.items()}
SHORTER.setdefault("16", ["--steps", "40"])


def shortened(command):
    found = re.fullmatch(r"(\./tutorial run (\d\d)\b[^|;&<>]*)", command)
    if not found or found.group(2) not in SHORTER:
        return command
    extra = SHORTER[found.group(2)]
    given = command.split()
    added = [x for flag, value in zip(extra[::2], extra[1::2]) if flag not in given for x in (flag, value)]
    return " ".join([command, *added]) if added else command


# Written shapes and the values they run with.
SHAPES = [(r"\[--ranks P\]", "--ranks 2"), (r"--ranks P\b", "--ranks 2"), (r"\[--causal\]", "--causal"),
          (r"\brun NN\b", "run 01"), (r" \[NAME\]", ""), (r"\bNAME\b", "01_dot_products")]


def commands_of(doc):
    """The shell commands of one doc, in order: ```sh block lines (a here-document joined with
    its lines, comments and blank lines dropped) and inline `./tutorial …` spans."""
    text = doc.read_text(encoding="utf-8")
    found = []
    for block in re.finditer(r"^```(?:sh|bash|shell)\n(.*?)^```", text, re.S | re.M):
        lines = block.group(1).splitlines()
        i = 0
        while i < len(lines):
            line = re.sub(r"\s+#.*$", "", lines[i]).strip()
            i += 1
            if not line or line.startswith("#"):
                continue
            heredoc = re.search(r"<<\s*'?(\w+)'?", line)
            if heredoc:
                while i < len(lines) and lines[i].strip() != heredoc.group(1):
                    line += "\n" + lines[i]
                    i += 1
                line += "\n" + heredoc.group(1)
                i += 1
            found.append(line)
    for span in re.finditer(r"`(\./tutorial[^`]*)`", text):
        found.append(span.group(1).strip())
    return found


def embeddings_rows(*tokens):
    rows = list(csv.reader(io.StringIO((ROOT / "data" / "embeddings.csv").read_text())))
    by_token = {r[0]: r for r in rows[1:]}
    return "\n".join(",".join(r) for r in [rows[0]] + [by_token[t] for t in tokens]) + "\n"


def weights_with(path, row, value):
    rows = list(csv.reader(io.StringIO((ROOT / path).read_text())))
    for r in rows:
        if r[0] == row:
            r[1] = value
    return "\n".join(",".join(r) for r in rows) + "\n"


# The files a doc asks the learner to write before a command, as it describes them. (A file
# whose text the doc shows — "Write a file `compass.csv`:" and a block — is taken from it.)
FILES = {
    "ch01_dot_product_scores.md": {"mine.csv": lambda: embeddings_rows("dog", "sits", "rug")},
    "ch05_projections.md": {
        "my_W_Q.csv": lambda: weights_with("data/projections/W_Q.csv", "pronoun", "0.0"),
        "it.csv": lambda: embeddings_rows("the", "was", "animal", "it", "tired"),
    },
    "ch06_masking.md": {"mine.csv": lambda: embeddings_rows("it", "was", "the", "animal")},
    "README.md": {"my.csv": lambda: (ROOT / "data" / "embeddings.csv").read_text()},
}


def shown_files(doc):
    """{name: text} of the files a doc shows in full: "Write (a file) `NAME`:" then a block."""
    text = doc.read_text(encoding="utf-8")
    return {m.group(1): m.group(2)
            for m in re.finditer(r"Write (?:a file )?`([\w.]+)`:\s*\n\s*\n```\w*\n(.*?)^```", text, re.S | re.M)}


def refusals_shown(doc):
    """{"./tutorial run NN ARGS": exit code} of the output blocks a doc marks with exit=N."""
    text = doc.read_text(encoding="utf-8")
    return {f"./tutorial run {m.group(1)}{m.group(2)}".strip(): int(m.group(3))
            for m in re.finditer(r"<!-- output: ch(\d\d)_\w+((?: (?!exit=)\S+)*) exit=(\d+) -->", text)}


def plan():
    """[(doc, command as written, command to run or None, why not / what is put in, exit code expected)]"""
    rows, seen = [], set()
    for doc in DOCS:
        for written in commands_of(doc):
            if written in seen:
                continue
            seen.add(written)
            if written in NOT_RUN:
                rows.append((doc, written, None, NOT_RUN[written], None))
                continue
            command, note = written, ""
            for shape, value in SHAPES:
                command = re.sub(shape, value, command)
            check = re.fullmatch(r"\./tutorial check (\S+)", command)
            if check and written != "./tutorial check 01":
                command, note = f"./tutorial solution {check.group(1)} --force", "the exercise's name, asked with solution"
            elif command != written:
                note = "with values put in"
            if shortened(command) != command:
                command, note = shortened(command), (note + "; " if note else "") + "shortened"
            shown = refusals_shown(doc)
            expected = EXPECTED.get(written, (shown[written], "") if written in shown else (0, ""))
            rows.append((doc, written, command, note, expected))
    return rows


def scratch_copy(into):
    """A copy of the project for commands to run in: the sources with their times (so that
    ./tutorial finds the build up to date), the build linked in."""
    for name in ["chapters", "common", "data", "exercises", "grader", "bench", "tests", "tools"]:
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, into / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ["tutorial", "CMakeLists.txt", "CMakePresets.json", "README.md"]:
        shutil.copy2(ROOT / name, into / name)
    (into / "build").symlink_to(ROOT / "build")
    (into / "exercise_files").mkdir()


def run(doc, written, command, expected, where):
    # (./tutorial explore writes pages of the run alone here: the WebAssembly build is live_page's)
    env = dict(os.environ, NO_COLOR="1", TUTORIAL_EXERCISE_FILES=str(where / "exercise_files"),
               TUTORIAL_PAGES="recorded")
    env.pop("TUTORIAL_RANKS", None)
    # git reads the checkout and writes nothing; the exercise loop builds in the tree's build
    # (its exercise targets) and writes only there and to TUTORIAL_EXERCISE_FILES.
    exercise_loop = re.match(r"\./tutorial (check|hint|reset|solution|exercises)\b", command)
    cwd = ROOT if command.startswith("git ") or exercise_loop else where
    started = time.monotonic()
    expected, says = expected
    p = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    timeout = TEXT_TIMEOUT if "--text" in command else TIMEOUT
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return f"✗ {doc.name}: {written}\n    still running after {timeout} s"
    seconds = time.monotonic() - started
    if p.returncode != expected:
        last = err.decode("utf-8", "replace").strip().splitlines()[-3:]
        return (f"✗ {doc.name}: {written}\n    exit code {p.returncode}, the doc expects {expected}"
                + "".join(f"\n    {line}" for line in last))
    if says and says not in (out + err).decode("utf-8", "replace"):
        return f"✗ {doc.name}: {written}\n    exit code {expected} as expected, but the output does not say {says!r}"
    return f"✓ {doc.name}: {written} ({seconds:.1f} s{', exit ' + str(expected) if expected else ''})"


def main():
    rows = plan()
    if LIST_ONLY:
        for doc, written, command, note, expected in rows:
            what = f"not run: {note}" if command is None else (f"runs `{command}`" if command != written else "runs")
            print(f"{doc.name}: {written.splitlines()[0]}  → {what}")
        return 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        copies = {}
        for doc in DOCS:
            where = Path(tmp) / f"{len(copies):02d}_{doc.stem}"
            scratch_copy(where)
            for name, text in {**shown_files(doc), **{k: f() for k, f in FILES.get(doc.name, {}).items()}}.items():
                (where / name).write_text(text)
            copies[doc] = where
        # The slow ones first (--text may train chapter 22's model, chapter 10 measures for
        # seconds, 16 trains), so that the two
        # workers finish together.
        slow = ["--text", "run 10", "run 16", "run 17", "run 03"]
        order = sorted((r for r in rows if r[2] is not None),
                       key=lambda r: next((i for i, s in enumerate(slow) if s in r[2]), len(slow)))
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda r: run(r[0], r[1], r[2], r[4], copies[r[0]]), order))
    failed = [r for r in results if r.startswith("✗")]
    for line in results:
        print(line)
    print(f"\nnot run ({sum(r[2] is None for r in rows)}):")
    for doc, written, command, note, _ in rows:
        if command is None:
            print(f"  {doc.name}: {written.splitlines()[0]} — {note}")
    print(f"\n{len(results)} commands in {time.monotonic() - started:.0f} s, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
