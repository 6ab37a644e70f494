"""The folders of common/, read once from the table of common/README.md: what each holds, which
folders it may include, and the library it belongs to (math and reference: only mathematics).

    from common_folders import folders
    for f in folders(): f.name, f.may_include, f.library, f.files()
"""
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^\| `([a-z_]+)/` \| (.+) \| (.+) \| ([a-z]+) \|$")
PURE_LIBRARIES = ("math", "reference")


@dataclass
class Folder:
    name: str
    holds: str
    may_include: tuple
    library: str

    @property
    def path(self):
        return ROOT / "common" / self.name

    @property
    def pure(self):
        return self.library in PURE_LIBRARIES

    def files(self):
        return sorted(self.path.glob("*.[ch]pp"))


def folders():
    table = []
    for line in (ROOT / "common" / "README.md").read_text(encoding="utf-8").splitlines():
        row = ROW.match(line)
        if row:
            name, holds, includes, library = row.groups()
            may = tuple(word.strip() for word in includes.split(",") if word.strip() not in ("—", ""))
            table.append(Folder(name, holds, may, library))
    return table
