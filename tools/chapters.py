"""The chapters, found once: every folder chapters/NN_name/ with its manifest, chapter.toml.

The manifest says what the build, the tests and the two tables of chapters (README.md and
docs/README.md) need to know of a chapter; everything else is in its folder by convention
(math.hpp/.cpp, main.cpp, checks, exercises.toml, golden.txt, dump_check.py). Its fields:

    title        what the program prints after "Chapter NN · " (main.cpp's Lesson says the same)
    short_title  the name the tables give it, when shorter than the title
    idea         the README's "the one idea": a sentence, Markdown
    question     the docs index's "the question it answers"
    shows_scaled_attention   its self-checks compare attention scaled by 1/√d_k with the
                 reference (tests/unscaled_attention.py expects a ✗ from both unscaled copies)
    measured     why its output differs between runs (timings): then there is no golden output
    uses_mpi     it runs as several processes: the build links Open MPI
    launcher     a script in the folder that starts the program (`launcher PROGRAM ARGS…`)
    pages        docs pages (without .md) that show its output beside its doc
  [tests]
    fast_flags           flags that keep it short where a test does not check its default numbers
    sanitize_fast_flags  the same under the sanitizers (replacing fast_flags there)
    trains               it trains a model: its docs test starts among the first
    skip_under_sanitizers  ["default_run"]: its default run is not repeated under the sanitizers
                         (which run no docs: CMakePresets.json says what they run)
    page_megabytes       what its default page may weigh, when more than the 2 MB of every page
    computing_page_megabytes  the same for its page that computes (its WebAssembly inlined), when
                         more than 3 MB (bench/explorer_open)
    presented_cells      ["matrix", px]: presented, that matrix's cells are at least px wide
    presented_window     [width, height]: the window the page is presented in, when not 1280 × 800
    presented_long_step  a step too long for one screen: presented over several
                         (the three: tests/explorer_browser.py)
  [bad_inputs]         its own cases of tests/bad_inputs.py (that file says what each means)

Used as a program by ./tutorial and CMake:

    python3 tools/chapters.py list               NN  chNN_name  Chapter NN · title
    python3 tools/chapters.py names              chNN_name, one a line
    python3 tools/chapters.py field NN KEY       one field (program, title, heading, idea, pages, …)
    python3 tools/chapters.py fields KEY…        those fields of every chapter, a line each, tab-separated
    python3 tools/chapters.py cmake FILE         the build's add_chapter() calls
    python3 tools/chapters.py tables [--write]   the README's and docs index's tables: checked, or rewritten

A manifest that cannot be read stops it with one line naming the file (and the line) and exit 2.
"""
import json
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = re.compile(r"^(\d\d)_([a-z0-9_]+)$")

TOP_FIELDS = {"title": str, "short_title": str, "idea": str, "question": str, "shows_scaled_attention": bool,
              "measured": str, "uses_mpi": bool, "launcher": str, "pages": list, "tests": dict,
              "bad_inputs": dict}
REQUIRED = ("title", "idea", "question", "shows_scaled_attention")
TEST_FIELDS = {"fast_flags": list, "sanitize_fast_flags": list, "trains": bool, "skip_under_sanitizers": list,
               "page_megabytes": int, "computing_page_megabytes": int, "presented_cells": list,
               "presented_window": list, "presented_long_step": int}
SKIPPABLE = {"default_run"}
BAD_INPUT_FIELDS = {"files": dict, "any_width": list, "one_token_refused": dict, "out_of_range": list,
                    "launched_out_of_range": list, "near_misses": list, "valid_edges": list, "edge_files": list,
                    "conflicts": list, "known": dict}


class ManifestError(Exception):
    """A manifest that cannot be used: the message names its file."""


@dataclass
class Chapter:
    number: str            # "07"
    folder: Path           # chapters/07_multi_head
    title: str
    idea: str
    question: str
    shows_scaled_attention: bool
    short_title: str = ""
    measured: str = ""
    uses_mpi: bool = False
    launcher: str = ""
    pages: list = field(default_factory=list)
    tests: dict = field(default_factory=dict)
    bad_inputs: dict = field(default_factory=dict)

    @property
    def program(self):  # chNN_name: the program, its doc, its test names
        return "ch" + self.folder.name

    @property
    def heading(self):  # what the program prints first
        return f"Chapter {self.number} · {self.title}"

    @property
    def doc(self):
        return self.folder.parent.parent / "docs" / f"{self.program}.md"

    @property
    def golden(self):  # the default run's output; none for a measured chapter
        return self.folder / "golden.txt"

    def fast_flags(self, sanitized=False):
        if sanitized and "sanitize_fast_flags" in self.tests:
            return list(self.tests["sanitize_fast_flags"])
        return list(self.tests.get("fast_flags", []))


def where(path):
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def expect(path, table, fields, what):
    """Each key of `table` known and of its type; an unknown key is a typo worth a line."""
    for key, value in table.items():
        if key not in fields:
            raise ManifestError(f"{where(path)}: unknown field '{key}' in {what} (known: {', '.join(fields)})")
        if not isinstance(value, fields[key]):
            raise ManifestError(f"{where(path)}: '{key}' in {what} should be a {fields[key].__name__}, "
                                f"not {type(value).__name__}")


def read(folder):
    """The chapter in `folder`, from its chapter.toml."""
    path = folder / "chapter.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{where(path)}: missing (every chapter folder has one: docs/adding_a_chapter.md)")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ManifestError(f"{where(path)}: {e}")
    expect(path, data, TOP_FIELDS, "the manifest")
    expect(path, data.get("tests", {}), TEST_FIELDS, "[tests]")
    expect(path, data.get("bad_inputs", {}), BAD_INPUT_FIELDS, "[bad_inputs]")
    for key in REQUIRED:
        if key not in data:
            raise ManifestError(f"{where(path)}: no '{key}' (needed: {', '.join(REQUIRED)})")
    unknown = set(data.get("tests", {}).get("skip_under_sanitizers", [])) - SKIPPABLE
    if unknown:
        raise ManifestError(f"{where(path)}: skip_under_sanitizers takes {' and '.join(sorted(SKIPPABLE))}, "
                            f"not {', '.join(sorted(unknown))}")
    if data.get("launcher") and not (folder / data["launcher"]).is_file():
        raise ManifestError(f"{where(path)}: its launcher '{data['launcher']}' is not a file of the folder")
    if any(c in str(data["title"]) for c in '"\\;$\n'):  # the build passes it to C++ as a string
        raise ManifestError(f"{where(path)}: its title has one of \" \\ ; $ or a line break (the build cannot pass it)")
    return Chapter(number=FOLDER.match(folder.name).group(1), folder=folder, **data)


def chapters(root=ROOT):
    """Every chapter of the project at `root`, in reading order."""
    return [read(folder) for folder in sorted((root / "chapters").iterdir())
            if folder.is_dir() and FOLDER.match(folder.name)]


def by_number(text):
    """The chapter numbered `text` ("7", "07"), or None."""
    if not re.fullmatch(r"\d{1,3}", text):
        return None
    wanted = f"{int(text):02d}"
    return next((c for c in chapters() if c.number == wanted), None)


# The two tables of chapters: generated here, kept in the files between their header and the
# first line that is not a row.
README_HEADER = "| # | chapter | run it | doc | the one idea |\n| --- | --- | --- | --- | --- |\n"
DOCS_HEADER = "| # | page | the question it answers |\n| --- | --- | --- |\n"


def readme_row(c):
    return (f"| {c.number} | {c.short_title or c.title} | `./tutorial run {c.number}` | "
            f"[doc](docs/{c.program}.md) | {c.idea} |\n")


def docs_row(c):
    return f"| {c.number} | [{c.short_title or c.title}]({c.program}.md) | {c.question} |\n"


def with_table(text, header, rows, path):
    start = text.find(header)
    if start < 0:
        raise ManifestError(f"{where(path)}: its table of chapters (the header {header.splitlines()[0]!r}) is gone")
    body = start + len(header)
    end = body
    while text.startswith("| ", end):
        end = text.index("\n", end) + 1
    return text[:body] + "".join(rows) + text[end:]


def tables(write, root=ROOT):
    """The tables of chapters that differ from what the manifests say (README.md, docs/README.md);
    rewritten when told."""
    found = chapters(root)
    stale = []
    for path, header, row in ((root / "README.md", README_HEADER, readme_row),
                              (root / "docs" / "README.md", DOCS_HEADER, docs_row)):
        text = path.read_text(encoding="utf-8")
        wanted = with_table(text, header, [row(c) for c in found], path)
        if wanted != text:
            stale.append(str(where(path)))
            if write:
                path.write_text(wanted, encoding="utf-8")
    return stale


def exercises_of(chapter):
    """The exercises its exercises.toml lists, in order (none without the file)."""
    path = chapter.folder / "exercises.toml"
    if not path.exists():
        return []
    try:
        exercises = tomllib.loads(path.read_text(encoding="utf-8")).get("exercise", [])
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ManifestError(f"{where(path)}: {e}")
    for e in exercises:  # a name is a file name and a build target
        if not re.fullmatch(r"[A-Za-z0-9_]+", str(e.get("name", ""))):
            raise ManifestError(f"{where(path)}: an exercise's name {e.get('name')!r} should be letters, digits "
                                f"and '_' (it names exercises/NAME.cpp)")
    return exercises


def cmake_list(items):
    return " ".join(json.dumps(str(i)) for i in items)


def cmake(out):
    """add_chapter() for every chapter (CMakeLists.txt defines it), into `out`."""
    lines = ["# Made by tools/chapters.py from chapters/*/chapter.toml at configure time: edit those.\n"]
    found = chapters()
    for c in found:
        sources = sorted(p for p in c.folder.glob("*.cpp") if p.name != "math.cpp")
        words = [c.program, cmake_list(sources), "MATH", json.dumps(str(c.folder / "math.cpp")),
                 "HEADING", json.dumps(c.heading, ensure_ascii=False)]
        if c.measured:
            words.append("MEASURED")
        if c.uses_mpi:
            words.append("MPI")
        if c.launcher:
            words += ["LAUNCHER", json.dumps(str(c.folder / c.launcher))]
        if c.tests.get("trains"):
            words.append("TRAINS")
        if c.pages:
            words += ["PAGES", cmake_list(c.pages)]
        if c.tests.get("skip_under_sanitizers"):
            words += ["SKIP_UNDER_SANITIZERS", cmake_list(c.tests["skip_under_sanitizers"])]
        lines.append(f"add_chapter({' '.join(words)})\n")
    # Each write-it-yourself exercise with its chapter's folder (grader/CMakeLists.txt makes
    # a target of each), read from the chapters' exercises.toml.
    exercises = [f"{e['name']}:{c.folder.name}" for c in found for e in exercises_of(c)]
    lines.append(f"set(TUTORIAL_EXERCISES {cmake_list(exercises)})\n")
    lines.append(f"set(TUTORIAL_EXERCISE_LISTS {cmake_list(c.folder / 'exercises.toml' for c in found)})\n")
    text = "".join(lines)
    out = Path(out)
    if not out.exists() or out.read_text(encoding="utf-8") != text:  # unchanged: no rebuild
        out.write_text(text, encoding="utf-8")


def shell_value(value, between):
    """What a shell reads easily: a list's items with `between`, yes or nothing for a flag."""
    if isinstance(value, list):
        return between.join(map(str, value))
    if isinstance(value, bool):
        return "yes" if value else ""
    return str(value)


def main(argv):
    command = argv[0] if argv else ""
    if command == "list":
        for c in chapters():
            print(f"{c.number}  {c.program:<28} {c.heading}")
    elif command == "names":
        for c in chapters():
            print(c.program)
    elif command == "field" and len(argv) == 3:
        c = by_number(argv[1])
        if c is None:
            print(f"tutorial: no chapter {argv[1]} (./tutorial list shows them)", file=sys.stderr)
            return 2
        print(shell_value(getattr(c, argv[2]), "\n"))
    elif command == "fields" and len(argv) >= 2:
        for c in chapters():
            print("\t".join(shell_value(getattr(c, key), " ") for key in argv[1:]))
    elif command == "cmake" and len(argv) == 2:
        cmake(argv[1])
    elif command == "tables" and argv[1:] in ([], ["--write"]):
        stale = tables(write=argv[1:] == ["--write"])
        if stale and argv[1:] != ["--write"]:
            print(f"{' and '.join(stale)}: the table of chapters differs from the manifests "
                  f"(python3 tools/chapters.py tables --write rewrites it)", file=sys.stderr)
            return 1
    else:
        print(__doc__.split("Used as a program")[1].split("\n\n")[1], file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except ManifestError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
