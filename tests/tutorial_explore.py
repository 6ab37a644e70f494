"""./tutorial run and ./tutorial explore: what a learner types wrong, and where the pages cannot go.

    python3 tests/tutorial_explore.py      (ctest runs it as tutorial_explore; the release build)

  - a chapter that is not a number (abc, -1, 1e3) or does not exist (99): one line
    "no chapter abc (./tutorial list shows them)", exit 2, for run and explore alike;
  - ./tutorial run FLAGS… runs every chapter with the flags (--list-steps: each lists its steps);
    a flag the chapters refuse is refused by the first, in its one line, exit 2;
  - ./tutorial explore 18 with a bad flag (--heads 0, or --html of its own): the chapter's one
    line, exit 2;
  - build/explorer read-only, or on a full disk: one line that says so, exit 2 (a small tmpfs
    mounted over build/explorer in a mount namespace of the test's own: the real folder is
    untouched; this needs root, as chmod does not stop root);
  - the index page: every chapter's title, and its one idea as the README's table states it.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Pages of the run alone: what is tried here is ./tutorial's own answers, not the WebAssembly
# build (tests/live_page.py tries the pages that compute).
os.environ["TUTORIAL_PAGES"] = "recorded"
TUTORIAL = str(ROOT / "tutorial")
failures = []


def run(*args, timeout=600):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def one_line(what, result, code, pattern):
    """The run exited with `code` and said one line on stderr matching `pattern`."""
    lines = result.stderr.splitlines()
    if result.returncode != code or len(lines) != 1 or not re.search(pattern, lines[0]):
        failures.append(f"{what}: exit {result.returncode}, stderr {result.stderr[-400:]!r}")
    else:
        print(f"{what}: {lines[0]}")


# The chapter's word.
for command in ("run", "explore"):
    for word in ("abc", "-1", "1e3", "99", "0x1"):
        one_line(f"./tutorial {command} {word}", run(TUTORIAL, command, word), 2,
                 rf"^tutorial: no chapter {re.escape(word)} \(\./tutorial list shows them\)$")

# Flags for every chapter.
chapters = [line.split()[1] for line in run(TUTORIAL, "list").stdout.splitlines()]
listed = run(TUTORIAL, "run", "--list-steps")
titles = len(re.findall(r"(?m)^Chapter \d\d · ", listed.stdout))
if listed.returncode != 0 or titles < len(chapters):
    failures.append(f"./tutorial run --list-steps: exit {listed.returncode}, {titles} chapters listed their steps "
                    f"(of {len(chapters)}), stderr {listed.stderr[-300:]!r}")
else:
    print(f"./tutorial run --list-steps: every chapter ({titles}) listed its steps")
one_line("./tutorial run --no-such-flag", run(TUTORIAL, "run", "--no-such-flag"), 2,
         r"^ch01_dot_product_scores: .*--no-such-flag")

# A chapter's own refusal, through explore.
one_line("./tutorial explore 18 --heads 0", run(TUTORIAL, "explore", "18", "--heads", "0"), 2,
         r"^ch18_latent_attention: .*--heads")
one_line("./tutorial explore 18 --html DIR", run(TUTORIAL, "explore", "18", "--html", "/tmp/elsewhere"), 2,
         r"^ch18_latent_attention: .*--html")


def in_own_mount(setup, *args):
    """./tutorial ARGS… with build/explorer replaced by a tmpfs (setup: the mount's shell commands)."""
    (ROOT / "build" / "explorer").mkdir(parents=True, exist_ok=True)
    script = f'cd "{ROOT}" && {setup} && "$@"'
    return run("unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", *args)


can_mount = run("unshare", "--mount", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt").returncode == 0
if not can_mount:
    print("read-only and full build/explorer: not tried (mounting a tmpfs needs root)")
else:
    tmpfs = "mount -t tmpfs -o size={} tmpfs build/explorer"
    one_line("./tutorial explore 01, build/explorer read-only",
             in_own_mount(tmpfs.format("1m") + " && mount -o remount,ro build/explorer", TUTORIAL, "explore", "01"),
             2, r"^tutorial: cannot write in build/explorer: Read-only file system$")
    # The page (about 400 KB) does not fit, the lesson's text does; then not even that fits.
    one_line("./tutorial explore 01, a disk of 64 KB", in_own_mount(tmpfs.format("64k"), TUTORIAL, "explore", "01"),
             2, r"No space left on device")
    one_line("./tutorial explore 01, a full disk",
             in_own_mount(tmpfs.format("64k") + " && (cat /dev/zero >build/explorer/fill 2>/dev/null || true)",
                          TUTORIAL, "explore", "01"),
             2, r"No space left on device")

    # The index page, written where it harms nothing.
    index = in_own_mount(tmpfs.format("8m"), "sh", "-c",
                         f'"{TUTORIAL}" explore 01 >/dev/null 2>&1 && cat build/explorer/index.html')
    text = re.sub(r"<[^>]+>", "", index.stdout).replace("&lt;", "<").replace("&amp;", "&")
    readme = (ROOT / "README.md").read_text()
    ideas = re.findall(r"(?m)^\| (\d\d) \| [^|]+ \| [^|]+ \| [^|]+ \| (.+) \|$", readme)
    unsaid = [n for n, idea in ideas
              if re.sub(r"\[([^]]*)\]\([^)]*\)", r"\1", idea).replace("`", "") not in text]
    if index.returncode != 0 or len(ideas) != len(chapters) or unsaid:
        failures.append(f"the index page: exit {index.returncode}, {len(ideas)} ideas in the README for "
                        f"{len(chapters)} chapters, not on the page: {unsaid}")
    else:
        print(f"the index page: {len(ideas)} chapters, each with its one idea from the README")

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
