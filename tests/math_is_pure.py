"""The mathematics is only mathematics: a step of the build, which fails when it is not.

    python3 tests/math_is_pure.py [STAMP]     (the build runs it before compiling any math
                                               file; STAMP is touched when it passes)

The folders of the libraries math and reference (common/README.md), and every chapter's
math.hpp / math.cpp, may include only the folders of the library math (the reference also
"common/reference/…"), their own chapter's math.hpp,
xtensor's headers and standard headers, and they print nothing and ask the system nothing:
  - no printing (fmt, <iostream>, <cstdio>, printf, puts, std::cout, std::cerr),
  - no command line (CLI11), nothing of the lesson's or the language model's folders,
  - no MPI (mpi.h: chapter 17's processes talk in its ring.cpp, not in its mathematics),
  - no questions to the system (/proc, sysconf, getenv, <unistd.h>): those are the
    lesson's (common/machine/machine_memory.hpp).
And a file of those folders holds one concept, which a learner reads through in a few screens:
at most 450 lines (the attention-only model keeps its token mixers in mixer_*.cpp and its
products in fixed_order_product.cpp).
(Debian puts fmt and CLI11 on the default include path, so the compiler alone cannot
refuse them.) Each problem is one line: the file, the line, what it uses, and why not.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from common_folders import folders  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# BLAS is mathematics; mmap is how the long-sequence kernels allocate pages (not a question).
ALLOWED_SYSTEM = re.compile(r"^(xtensor|xtensor-blas|xtl|xsimd)/|^[a-z_]+$|^cblas\.h$|^sys/mman\.h$")
REFUSED_SYSTEM = {"iostream", "cstdio"}  # look like any standard header, are printing
# Uses in code (comments and strings left out) that print or ask the system.
REFUSED_CODE = re.compile(r"\b(printf|fprintf|puts|fputs|std::cout|std::cerr|std::clog|sysconf|getenv)\b|/proc/")
MOST_LINES = 450  # of a file of the mathematics' folders
MATH = tuple(f"common/{f.name}/" for f in folders() if f.library == "math")
WHY = ("the mathematics prints nothing and asks the system nothing (only the folders of the library math "
       "in common/README.md, xtensor and the standard library)")


def code_of(line):
    """The line without its comment and without the text of its string literals."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    return line.split("//")[0]


files = [file for folder in folders() if folder.pure for file in folder.files()]
files += sorted((ROOT / "chapters").glob("*/math.[ch]pp"))
problems = []
for path in files:
    own = f"chapters/{path.parent.name}/math.hpp"
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        where = f"{path.relative_to(ROOT)}:{number}"
        include = INCLUDE.match(line)
        if include:
            quote, header = include.groups()
            # The reference may include the mathematics; the mathematics never the reference.
            prefixes = (*MATH, "common/reference/") if path.parent.name == "reference" else MATH
            ok = ((header.startswith(prefixes) or header == own) if quote == '"'
                  else bool(ALLOWED_SYSTEM.match(header)) and header not in REFUSED_SYSTEM)
            if not ok:
                problems.append(f"{where}: includes {header}: {WHY}")
            continue
        used = REFUSED_CODE.search(code_of(line))
        if used:
            problems.append(f"{where}: uses {used.group(0)}: {WHY}")
    if path.parent.parent == ROOT / "common" and len(lines) > MOST_LINES:
        problems.append(f"{path.relative_to(ROOT)}: {len(lines)} lines, more than {MOST_LINES}: "
                        "one concept per file (split it where a second one starts)")
if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"{len(files)} files of mathematics are only mathematics")
if len(sys.argv) > 1:
    Path(sys.argv[1]).touch()
