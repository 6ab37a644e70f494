"""The learner's code cannot hurt the exercise loop, and bad requests get one line.

    python3 tests/exercise_safety.py BUILD_DIR     (ctest runs it as exercise_safety)

In a scratch folder of learner's files, exercise 13_decode_step:
  - an endless loop, a null write, an index out of range, a 1 MB print and exit(0) each get
    a verdict (exit 1) within 15 s that names what happened, and the learner's line where
    there is one; the next correct file passes;
  - two checks at once both give their verdict;
  - a learner's file that is a link to the chapter: reset refuses (exit 2), check only reads
    it, and the chapter is never written; a dangling link is never followed;
  - a .progress that is not UTF-8, an unknown name, a bad option and a read-only file each
    get one line on stderr and exit 2, never a traceback.
"""
import concurrent.futures
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(sys.argv[1]).resolve()
TOOL = ROOT / "grader" / "exercises.py"
CHAPTER = ROOT / "chapters" / "13_kv_cache" / "math.cpp"
NAME = "13_decode_step"
failures = []


def tool(files, *args):
    env = dict(os.environ, TUTORIAL_BUILD=str(BUILD), TUTORIAL_EXERCISE_FILES=str(files))
    started = time.monotonic()
    run = subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, env=env, timeout=120)
    return run.returncode, run.stdout, run.stderr, time.monotonic() - started


def expect(what, ok, output=""):
    print(f"{'✓' if ok else '✗'} {what}", flush=True)
    if not ok:
        failures.append(f"{what}\n{output[-2000:]}")


def with_change(old, new):
    text = CHAPTER.read_text()
    assert text.count(old) == 1, old
    return text.replace(old, new)


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


chapter_before = digest(CHAPTER)
with tempfile.TemporaryDirectory() as tmp:
    files = Path(tmp)
    mine = files / f"{NAME}.cpp"
    append = "    ++cache.length;"
    cases = [
        ("an endless loop", append, "    while (cache.length > 0) ++cache.length;", ["endless loop", f"{NAME}.cpp:"]),
        ("a null write", append, "    ++cache.length; *(volatile int*)nullptr = 1;", ["SIGSEGV", f"{NAME}.cpp:"]),
        ("an index out of range", "    put_row(cache.K, cache.length, token.k);",
         "    ++cache.length; put_row(cache.K, cache.length, token.k);", ["out of bounds", f"{NAME}.cpp:"]),
        ("a 1 MB print", append,
         '    ++cache.length; for (int i = 0; i < 20000; ++i) std::puts("' + "x" * 50 + '");', ["printed more than"]),
        ("exit(0)", append, "    ++cache.length; std::exit(0);", ["before its end", "exit()"]),
    ]
    for what, old, new, words in cases:
        mine.write_text(with_change(old, new))
        code, out, err, seconds = tool(files, "check", NAME)
        expect(f"{what}: exit {code} in {seconds:.1f} s, the verdict names it",
               code == 1 and seconds < 15 and all(w in out for w in words), out + err)
    mine.write_text(CHAPTER.read_text())
    code, out, err, _ = tool(files, "check", NAME)
    expect("the next correct file passes", code == 0 and "passes" in out, out + err)

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        both = list(pool.map(lambda _: tool(files, "check", NAME), range(2)))
    expect("two checks at once both pass", all(c == 0 and "passes" in o for c, o, _, _ in both),
           "".join(o + e for _, o, e, _ in both))

    # A link to the chapter: never written through.
    mine.unlink()
    mine.symlink_to(CHAPTER)
    code, out, err, _ = tool(files, "reset", NAME)
    expect("reset of a linked file: exit 2, one line", code == 2 and err.count("\n") == 1 and "link" in err,
           out + err)
    code, out, err, _ = tool(files, "check", NAME)
    expect("check of a linked file reads it (it passes)", code == 0, out + err)
    progress = files / ".progress"
    progress.unlink(missing_ok=True)
    progress.symlink_to(CHAPTER)  # written by check on a pass: the link is replaced, not followed
    tool(files, "check", NAME)
    expect("the chapter was never written", digest(CHAPTER) == chapter_before)
    progress.unlink()
    dangling = files / "01_dot_products.cpp"
    dangling.symlink_to(files / "nowhere.cpp")
    code, out, err, _ = tool(files, "check", "01")
    expect("a dangling link is refused, not followed", code == 2 and not (files / "nowhere.cpp").exists(), out + err)
    dangling.unlink()

    mine.unlink()
    mine.write_text(CHAPTER.read_text())
    mine.chmod(0o444)
    code, out, err, _ = tool(files, "reset", NAME)
    expect("reset of a read-only file: exit 2, one line", code == 2 and err.count("\n") == 1 and "read-only" in err,
           out + err)
    code, out, err, _ = tool(files, "check", NAME)
    expect("check of a read-only file grades it", code == 0, out + err)
    mine.chmod(0o644)

    progress.write_bytes(b"done 01_dot_products\ndone \xff\xfe\n")
    for args in (["exercises"], ["check", NAME], ["hint"]):
        code, out, err, _ = tool(files, *args)
        expect(f"{' '.join(args)} with a .progress not UTF-8: exit 2, one line naming it",
               code == 2 and err.count("\n") == 1 and ".progress:2" in err and "Traceback" not in err, out + err)
    progress.unlink()
    for args in (["check", "no_such_exercise"], ["check", NAME, "--bogus"], ["reset"], ["frobnicate"]):
        code, out, err, _ = tool(files, *args)
        expect(f"{' '.join(args)}: exit 2, one line", code == 2 and err.count("\n") == 1 and "Traceback" not in err,
               out + err)
    code, out, err, _ = tool(files, "solution", "14_b", "--force")
    expect("solution 14_b --force shows the line the bug changed", code == 0 and "\n- " in out and "\n+ " in out,
           out + err)

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
