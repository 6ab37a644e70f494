"""The version of the code that trains chapter 22's GPT: a hash of its source files' tokens.

    python3 tools/code_version.py FILE…      prints 16 hex digits (CMakeLists.txt reads them)

A kept model is read back only by the code version that trained it (common/language_model/trained_gpt.cpp).
The hash is of the tokens, not of the bytes: a comment added or changed, blank lines, indentation
or spaces between tokens leave it as it is, so that a learner who annotates gpt_model.cpp keeps
their trained model; so does a project header's #include "…" line, which says where a file
lives, not what it computes (the files it names are hashed themselves, by their file names, so a
file moved to another folder keeps the version). Any other change (a constant, an operator, a
name) makes a new version, and the model is trained again. The files are taken in the order
given, each named by its file name.
"""
import hashlib
import re
import sys
from pathlib import Path

# A C++ token, as far as telling two versions apart needs: a comment or a project header's
# include (dropped), a string or character literal (kept whole), a word or number, or any other
# one character.
TOKEN = re.compile(r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<include>\#[ \t]*include[ \t]*"[^"\n]*")
  | (?P<literal>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<word>[A-Za-z0-9_.]+)
  | (?P<space>\s+)
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)


def tokens(text):
    """The tokens of a C++ source, comments and spaces left out."""
    return [m.group() for m in TOKEN.finditer(text) if m.lastgroup not in ("comment", "include", "space")]


def version(paths):
    h = hashlib.sha256()
    for path in paths:
        h.update(Path(path).name.encode() + b"\n")
        h.update("\n".join(tokens(Path(path).read_text(encoding="utf-8"))).encode() + b"\n\n")
    return h.hexdigest()[:16]


if __name__ == "__main__":
    print(version(sys.argv[1:]))
