"""Every chapter has its manifest (chapters/NN_name/chapter.toml), and every piece it promises
is there: the rows of the two tables of chapters, the title in main.cpp, a doc, a golden
output (unless measured), a dump check, exercises, its launcher and pages; and its main() is
a short list of steps, at most 40 lines. A piece forgotten
fails here, by name, instead of passing silently (a chapter without a dump check would
otherwise just not be checked).

    python3 tests/chapter_manifests.py        (ctest runs it as chapter_manifests)

It also shows that it can fail: on a copy of the project with one chapter's dump check
removed and a table row edited, it must name both.
"""
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from chapters import ManifestError, chapters, tables  # noqa: E402

# The longest main() a chapter has: its flags, its parts and its steps, one line or two each.
LONGEST_MAIN = 40

# Files that were markers before the manifest: the manifest says these things now.
OLD_MARKERS = ("measured", "uses_mpi", "pages")


def problems(root):
    try:
        found = chapters(root)
    except ManifestError as e:
        return [str(e)]
    wrong = [f"{name}: the table of chapters differs from the manifests "
             f"(python3 tools/chapters.py tables --write)" for name in tables(write=False, root=root)]
    # ./tutorial finds chapter NN by the glob chapters/NN_*/chapter.toml, without Python: every
    # folder that glob finds is one of the chapters, and there is one per number.
    programs = {c.program for c in found}
    for manifest in sorted((root / "chapters").glob("[0-9][0-9]_*/chapter.toml")):
        if "ch" + manifest.parent.name not in programs:
            wrong.append(f"{manifest.parent.name}: ./tutorial would take it for chapter {manifest.parent.name[:2]}, "
                         f"tools/chapters.py does not (a folder is NN_ and lower-case letters, digits, _)")
    numbers = [c.number for c in found]
    wrong += [f"chapter {n}: {numbers.count(n)} folders" for n in sorted(set(numbers)) if numbers.count(n) > 1]
    for c in found:
        def missing(path, what):
            if not path.exists():
                wrong.append(f"{c.program}: no {what} ({path.relative_to(root)})")
        for name in ("math.hpp", "math.cpp", "main.cpp", "exercises.toml", "dump_check.py"):
            missing(c.folder / name, name)
        missing(c.doc, "doc")
        if not c.measured:
            missing(c.golden, "golden output")
        elif c.golden.exists():
            wrong.append(f"{c.program}: measured, yet has a golden output")
        for page in c.pages:
            missing(root / "docs" / f"{page}.md", f"page {page}")
        for marker in OLD_MARKERS:
            if (c.folder / marker).exists():
                wrong.append(f"{c.program}: a file '{marker}': its manifest says that now")
        main = c.folder / "main.cpp"
        if main.exists():
            text = main.read_text(encoding="utf-8")
            if not text.startswith(f"// {c.heading}\n"):
                wrong.append(f"{c.program}: main.cpp's first line is not '// {c.heading}'")
            lines = text.splitlines()
            start = next((k for k, line in enumerate(lines) if line.startswith("int main(")), None)
            end = next((k for k in range(start or 0, len(lines)) if lines[k] == "}"), None)
            if start is None or end is None:
                wrong.append(f"{c.program}: main.cpp has no 'int main(' closed by a '}}' at the line's start")
            elif end - start + 1 > LONGEST_MAIN:
                wrong.append(f"{c.program}: main() is {end - start + 1} lines (main.cpp:{start + 1}), more than "
                             f"{LONGEST_MAIN}: move a part or a step's set-up into a function of its own")
    presets = (root / "CMakePresets.json").read_text(encoding="utf-8")
    wrong += [f"CMakePresets.json names {c.program}: a manifest's skip_under_sanitizers says that"
              for c in found if c.program in presets]
    return wrong


def can_fail():
    """On a copy with a dump check gone, a table row changed and a main() grown, all three are named."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp)
        shutil.copytree(ROOT / "chapters", copy / "chapters")
        (copy / "docs").mkdir()
        for doc in (ROOT / "docs").glob("*.md"):
            shutil.copy(doc, copy / "docs")
        shutil.copy(ROOT / "README.md", copy)
        shutil.copy(ROOT / "CMakePresets.json", copy)
        (copy / "chapters" / "03_scaling" / "dump_check.py").unlink()
        main = copy / "chapters" / "01_dot_product_scores" / "main.cpp"
        text = main.read_text(encoding="utf-8")
        opening = text.index("\n", text.index("int main(")) + 1
        main.write_text(text[:opening] + "\n" * LONGEST_MAIN + text[opening:], encoding="utf-8")
        readme = copy / "README.md"
        readme.write_text(readme.read_text(encoding="utf-8").replace("| 02 | Softmax |", "| 02 | Softmax! |"),
                          encoding="utf-8")
        found = problems(copy)
    return (any("ch03_scaling: no dump_check.py" in p for p in found) and any("README.md" in p for p in found)
            and any("ch01_dot_product_scores: main() is" in p for p in found))


def main():
    found = problems(ROOT)
    for line in found:
        print("✗", line)
    if not can_fail():
        print("✗ this test does not notice a missing dump check, a changed table row or a long main()")
        return 1
    print(f"{len(chapters())} chapters, {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
