"""The GPT's code version (tools/code_version.py) stays when only comments, spaces and the folders
of the project's included headers change, and moves with anything else: a learner who annotates the GPT's files keeps their trained model, one
who changes a constant trains anew.

    python3 tests/gpt_code_version.py      (ctest runs it as gpt_code_version)

Copies of common/gpt/*.[ch]pp, edited one way each: a comment after every line, a block
comment, indentation doubled and blank lines, every project header included from another
folder; then a constant, an operator, a word.
"""
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from code_version import version  # noqa: E402

SOURCES = sorted((ROOT / "common" / "gpt").glob("*.[ch]pp"))
failures = []


def edited(change):
    """The version of the sources with `change(text)` applied to each."""
    with tempfile.TemporaryDirectory() as folder:
        copies = []
        for source in SOURCES:
            copy = Path(folder) / source.name
            copy.write_text(change(source.read_text(encoding="utf-8")), encoding="utf-8")
            copies.append(copy)
        return version(copies)


def comment_each_line(text):  # not inside a line that ends in a backslash (a macro goes on)
    return "\n".join(line if line.endswith("\\") else line + "  // a learner's note" for line in text.split("\n"))


def first(pattern, replacement):
    return lambda text: re.sub(pattern, replacement, text, count=1)


original = version(SOURCES)
same = {
    "a comment after every line": comment_each_line,
    "a block comment before each file": lambda text: "/* what I learned:\n   the loss falls */\n" + text,
    "indentation doubled, a blank line after each": lambda text: "\n\n".join(
        re.sub(r"^( +)", r"\1\1", line) for line in text.split("\n")),
    "the project's headers included from another folder": lambda text: text.replace(
        '#include "common/', '#include "common/moved/'),
}
different = {
    "a constant": first(r"0\.5f", "0.25f"),
    "an operator": first(r" \+ ", " - "),
    "a word": first(r"\bconst\b", "constexpr"),
}
for what, change in same.items():
    if edited(change) != original:
        failures.append(f"{what}: the version changed (the kept model would be trained again)")
for what, change in different.items():
    if edited(change) == original:
        failures.append(f"{what} changed: the version stayed (a model of other code would be read back)")

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed" if failures else
      f"{len(SOURCES)} files: comments, spaces and the included headers' folders keep the version, "
      "a constant, an operator or a word moves it")
sys.exit(1 if failures else 0)
