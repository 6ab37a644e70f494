"""A new chapter from the template in tools/chapter_template/: its folder, its doc, and its rows in
the two tables of chapters. ./tutorial new NN name "Title" runs this, then builds the chapter and
writes its golden output and its doc's output blocks from what it prints.

    python3 tools/new_chapter.py NN name "Title"

The template is a small, whole chapter (scaled dot-product self-attention of a sentence) that
builds, runs, checks itself against the reference, has a doc, a dump check and an exercise:
edit it into the new lesson. docs/adding_a_chapter.md walks through it.
"""
import re
import sys
from pathlib import Path

from chapters import ROOT, ManifestError, chapters, tables

TEMPLATE = Path(__file__).resolve().parent / "chapter_template"
IN_FOLDER = ("chapter.toml", "math.hpp", "math.cpp", "checks.hpp", "checks.cpp", "main.cpp", "exercises.toml",
             "dump_check.py")


def refuse(text):
    print(f"tutorial new: {text}", file=sys.stderr)
    sys.exit(2)


def new_chapter(number, name, title, root=ROOT):
    """Writes the chapter; returns its program name (chNN_name)."""
    if not re.fullmatch(r"\d{2}", number) or number == "00":
        refuse(f"the number '{number}' should be two digits, 01 to 99 (./tutorial new 90 my_heads \"Heads of my own\")")
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or len(name) > 40:
        refuse(f"the name '{name}' should be lower-case letters, digits and '_', starting with a letter "
               f"(it names the folder and the program: chapters/{number}_my_heads, ch{number}_my_heads)")
    if not title.strip() or "\n" in title or '"' in title or "\\" in title:
        refuse("the title should be one line of text, without quotes or backslashes")
    taken = next((c for c in chapters(root) if c.number == number), None)
    if taken:
        refuse(f"chapter {number} is already {taken.folder.relative_to(root)}")
    folder = root / "chapters" / f"{number}_{name}"
    program = f"ch{number}_{name}"
    doc = root / "docs" / f"{program}.md"
    for path in (folder, doc):
        if path.exists():
            refuse(f"{path.relative_to(root)} already exists")
    fill = {"@NN@": number, "@folder@": folder.name, "@program@": program, "@Title@": title.strip()}

    def filled(template):
        text = (TEMPLATE / template).read_text(encoding="utf-8")
        for key, value in fill.items():
            text = text.replace(key, value)
        return text

    folder.mkdir(parents=True)
    for name_in_folder in IN_FOLDER:
        (folder / name_in_folder).write_text(filled(name_in_folder), encoding="utf-8")
    doc.write_text(filled("doc.md"), encoding="utf-8")
    tables(write=True, root=root)
    return program


if __name__ == "__main__":
    if len(sys.argv) != 4:
        refuse('usage: ./tutorial new NN name "Title" (./tutorial new 90 my_heads "Heads of my own")')
    try:
        print(new_chapter(*sys.argv[1:]))
    except ManifestError as e:
        refuse(str(e))
