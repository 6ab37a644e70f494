"""The mathematics includes nothing but itself, xtensor and the standard library.

    python3 tests/math_includes.py

common/math/* and every chapter's math.hpp / math.cpp may include only
"common/math/…", their own chapter's math.hpp, xtensor's headers and standard (and POSIX)
headers: no printing (fmt), no command line (CLI11), nothing of common/lesson/, no
MPI (mpi.h: chapter 17's processes talk in its ring.cpp, not in its mathematics).
(Debian puts fmt and CLI11 on the default include path, so the compiler alone
cannot refuse them.)
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
ALLOWED_SYSTEM = re.compile(r"^(xtensor|xtensor-blas|xtl|xsimd)/|^(sys/)?[a-z_]+(\.h)?$")
REFUSED_SYSTEM = {"mpi.h"}  # looks like a standard header, is a library

files = sorted((ROOT / "common" / "math").glob("*.[ch]pp"))
files += sorted((ROOT / "chapters").glob("*/math.[ch]pp"))
problems = []
for path in files:
    own = f"chapters/{path.parent.name}/math.hpp"
    for quote, header in INCLUDE.findall(path.read_text(encoding="utf-8")):
        ok = ((header.startswith("common/math/") or header == own) if quote == '"'
              else bool(ALLOWED_SYSTEM.match(header)) and header not in REFUSED_SYSTEM)
        if not ok:
            problems.append(f"{path.relative_to(ROOT)}: includes {header}: the mathematics prints nothing and reads "
                            "no command line (only common/math/, xtensor and the standard library)")
print("\n".join(problems) if problems else f"{len(files)} files of mathematics include only mathematics")
sys.exit(1 if problems else 0)
