"""The folders of common/ include only what common/README.md allows them, and each holds one
concept of a size a learner reads through.

    python3 tests/include_arrows.py      (ctest runs it as include_arrows)

Every folder of common/ is a row of the table in common/README.md; every `#include "common/X/…"`
in a folder's files names X itself or a folder of its row's "may include"; the arrows so allowed
never go round in a circle; no folder holds more than 25 source files. Each problem is one line:
the file, the line, the arrow, and what its folder may include.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from common_folders import ROOT, folders  # noqa: E402

INCLUDE = re.compile(r'^\s*#\s*include\s*"common/([a-z_]+)/')
MOST_FILES = 25

table = {folder.name: folder for folder in folders()}
problems = []
on_disk = {path.name for path in (ROOT / "common").iterdir() if path.is_dir()}
for name in sorted(on_disk - table.keys()):
    problems.append(f"common/{name}/: not in the table of common/README.md (what it holds, what it may include)")
for name in sorted(table.keys() - on_disk):
    problems.append(f"common/README.md: names common/{name}/, which does not exist")
for folder in table.values():
    for name in folder.may_include:
        if name not in table:
            problems.append(f"common/README.md: common/{folder.name}/ may include {name}/, which is not in the table")
    files = folder.files()
    if len(files) > MOST_FILES:
        problems.append(f"common/{folder.name}/: {len(files)} source files, more than {MOST_FILES}: "
                        "split it where a second concept starts")
    allowed = ", ".join(folder.may_include) or "no other folder"
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            arrow = INCLUDE.match(line)
            if arrow and arrow.group(1) != folder.name and arrow.group(1) not in folder.may_include:
                problems.append(f"{path.relative_to(ROOT)}:{number}: includes common/{arrow.group(1)}/: "
                                f"common/{folder.name}/ may include {allowed} (common/README.md)")


def circle_from(name, path):
    for next_name in table[name].may_include if name in table else ():
        if next_name in path:
            return path[path.index(next_name):] + [next_name]
        found = circle_from(next_name, path + [next_name])
        if found:
            return found
    return None


for name in table:
    circle = circle_from(name, [name])
    if circle:
        problems.append("common/README.md: the arrows go round: " + " → ".join(circle))
        break
if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"{len(table)} folders of common/ include only what common/README.md allows")
