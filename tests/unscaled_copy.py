"""Copies an attention's sources with the 1/√d_k scaling removed.

    python3 tests/unscaled_copy.py OUT_DIR common/attention/attention.cpp common/attention/mask.cpp
    python3 tests/unscaled_copy.py OUT_DIR common/reference/attention_by_loops.cpp

Each file must hold exactly one line `const float scale = 1.0f / std::sqrt(...)` (or, in
double, `const double scale = 1.0 / std::sqrt(...)`); the copy has `scale = 1` there. A file without that line stops the
build, so the test built on the copy can never pass by testing nothing.
"""
import re
import sys
from pathlib import Path

SCALE = re.compile(r"^(\s*const (?:float|double) scale = )(1\.0f?) / std::sqrt\(.*\);$", re.M)

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
for source in map(Path, sys.argv[2:]):
    text = source.read_text(encoding="utf-8")
    unscaled, count = SCALE.subn(r"\g<1>\g<2>;  // the 1/√d_k removed on purpose", text)
    if count != 1:
        sys.exit(f"{source}: expected one line 'const float scale = 1.0f / std::sqrt(…);' "
                 f"(or double, 1.0), found {count}")
    (out / source.name).write_text(unscaled, encoding="utf-8")
