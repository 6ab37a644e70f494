"""Every chapter, fed every kind of bad input that applies to it, answers clearly.

    python3 tests/bad_inputs.py BIN_DIR [CHAPTER…]      (ctest runs it as bad_inputs)

A bad input (a file, a flag, a value) must give:
  - exit code 2,
  - exactly one line on stderr, naming the flag, or the file and its line,
  - nothing on stdout (every such error is found before the first output),
  - no partial files: the run is given --dump, --svg and --html into fresh directories,
    which must be empty (or not exist) afterwards.
Some inputs are odd but fine and must work: a sequence of one token, and a very
long one, whose printed matrices are elided (no line longer than 200 characters,
a bounded number of lines).

The chapters are found from their manifests (tools/chapters.py) and their flags in their --help,
so a chapter that lands later is covered: every PATH flag gets the file cases, every number flag
a non-number. What only a person can know is in the chapter's manifest (below); a chapter whose
manifest says nothing gets the generic cases. Under the sanitizers (their question is memory) the
flags' cases are tried on one flag of each type per chapter (flags_to_try), and a template's
malformed files on the first chapter that reads it (file_template_readers).
"""
import concurrent.futures
import functools
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from printed_numbers import chapter_programs, problems_in  # noqa: E402  (no nan in a matrix, no -0.000)
from launch import command  # noqa: E402  (bin/NAME.launcher, when a chapter has one)
from fast_args import FAST_ARGS, SANITIZED  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from chapters import chapters  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
BIN = Path(sys.argv[1]).resolve()
ONLY = sys.argv[2:]

# What only a person can know of a chapter (which template a file flag reads, which values are
# out of range) is in its manifest's [bad_inputs] (chapters/NN_name/chapter.toml):
#   files = { "--w-q" = ["weights", "projections/W_Q.csv"] }   which file a PATH flag reads, to
#       build good and bad variants from: "sequence" files have one row per token, "weights"
#       files one row per input dimension; a flag not listed reads a sequence like
#       data/embeddings.csv (the template may also be a CSV header: "token,d0,d1"); ["text", "1000"]: a UTF-8
#       text to learn from (a corpus) of at least 1000 characters; ["folder", ""]: a folder (a
#       checkpoint), so that any file given is refused
#   any_width = ["--input"]     sequence flags that take any width (no weights to fit)
#   one_token_refused = { "--input" = "needs at least 2 tokens" }   a sequence of one token
#       works (exit 0) unless the chapter truly needs more and says so, in these words
#   valid_edges = [[flags…], …]   values at the edges of the documented ranges: each works
#   out_of_range = [[[flags…], "--flag"], …]   each exits 2 naming the flag: what the flag's
#       declared range or choices do not say (nan, a width the heads must divide, two flags
#       together); every declared range and choice is tried by tests/option_ranges.py, every
#       number flag is given "abc" here, and every UINT flag "-1"
#   launched_out_of_range       the same, refused by the chapter's launcher (against the
#       number of processes) before mpirun starts
#   near_misses = [[[flags…], "--flag"], …]   a mistyped flag, and the flag the answer suggests
#   edge_files = [{ name, file, flags, refused_naming = [words…] }]   inputs at the edge of what
#       the chapter computes: they work, or are refused in one line holding these words
#   conflicts = [[[flags…], "--flag"], …]   combinations that must be refused ("{encoder}" is
#       replaced by a copy of data/translation/encoder.csv)
#   known = { "case" = "why" }  cases the chapter still gets wrong, to fix there: reported as
#       KNOWN, not failed (when one is fixed, the table says "now passes": delete it)
DEFAULT_FILE = ("sequence", "embeddings.csv")
BAD_INPUTS = {c.program: c.bad_inputs for c in chapters()}
FILES = {(p, flag): tuple(how) for p, b in BAD_INPUTS.items() for flag, how in b.get("files", {}).items()}
ANY_WIDTH = {(p, flag) for p, b in BAD_INPUTS.items() for flag in b.get("any_width", [])}
ONE_TOKEN_REFUSED = {(p, flag): why for p, b in BAD_INPUTS.items() for flag, why in b.get("one_token_refused", {}).items()}
KNOWN = {(p, case): why for p, b in BAD_INPUTS.items() for case, why in b.get("known", {}).items()}


def cases(key):
    """{chapter: [(flags, the flag named), …]} of one kind of case."""
    return {p: [(args, flag) for args, flag in b.get(key, [])] for p, b in BAD_INPUTS.items()}


VALID_EDGES = {p: b.get("valid_edges", []) for p, b in BAD_INPUTS.items()}
OUT_OF_RANGE, LAUNCHED_OUT_OF_RANGE = cases("out_of_range"), cases("launched_out_of_range")
NEAR_MISSES, CONFLICTS = cases("near_misses"), cases("conflicts")
EDGE_FILES = {p: [(e["name"], e["file"], e["flags"], e["refused_naming"] if "refused_naming" in e else ("ok", ""))
                  for e in b.get("edge_files", [])] for p, b in BAD_INPUTS.items()}

LONG_N = 300            # tokens of the long sequence
MAX_LINE = 200          # characters in the longest printed line
MAX_LINES_GROWTH = 250  # lines a 300-token run may print beyond the default run

NUMBER_TYPES = {"INT", "UINT", "FLOAT"}
VALUE_TYPES = NUMBER_TYPES | {"PATH", "DIR", "TEXT", "NAME"}  # common/lesson/flag_values.hpp

failures = []
results = []  # (chapter, case, outcome) for the table printed at the end


def run(args, timeout=600):
    env = dict(os.environ, NO_COLOR="1")
    p = subprocess.run([str(a) for a in args], capture_output=True, env=env, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# A file the run writes, not one it reads: its bad paths are tests/run_report.py's.
OUTPUT_FILES = {"--report"}


def parse_help(chapter):
    """{flag: its type's name} of the chapter's flags that read something."""
    return dict(help_flags(chapter))


@functools.lru_cache(maxsize=None)
def help_flags(chapter):
    code, out, err = run([BIN / chapter, "--help"])
    assert code == 0, f"{chapter} --help exited {code}: {err}"
    flags = {}
    for line in out.splitlines():
        # (a flag's line starts at column 2; a help's wrapped lines at column 30)
        m = re.match(r"^  (?:-\w,)?(--[a-z][a-z0-9-]*)(?: ([A-Z]+)(?=[\s:=]|$))?", line)
        if m and m.group(1) != "--help" and m.group(1) not in OUTPUT_FILES:
            flags[m.group(1)] = m.group(2) or ""
    return flags


def help_defaults(chapter):
    """{flag: its default as --help writes it ("--vocab UINT=256")}."""
    code, out, err = run([BIN / chapter, "--help"])
    return {m.group(1): m.group(2) for m in re.finditer(r"^  (--[a-z][a-z0-9-]*) [A-Z]+(?::\{[^}]*\})?=(\S+)", out, re.M)}


def several_words(chapter):
    """The flags that take several words (--help writes "TEXT ..."): given twice, they take both."""
    code, out, err = run([BIN / chapter, "--help"])
    return {m.group(1) for m in re.finditer(r"^  (--[a-z][a-z0-9-]*) [A-Z]+ \.\.\.", out, re.M)}


def file_template_readers(chapters):
    """{(chapter, flag)} whose malformed files are tried: every PATH flag; under the sanitizers, the
    first flag (in the chapters' order) that reads each template (FILES, else DEFAULT_FILE). A
    malformed file is refused by the reader of its kind of file (common/inputs/), the same code in
    every chapter that reads one, before the chapter's own code runs; the files that work (one
    token, 300 tokens) go on into each chapter's own code, and are tried in every chapter."""
    readers, seen = set(), set()
    for chapter in chapters:
        for flag in [f for f, t in parse_help(chapter).items() if t == "PATH"]:
            template = FILES.get((chapter, flag), DEFAULT_FILE)
            if not SANITIZED or template not in seen:
                readers.add((chapter, flag))
                seen.add(template)
    return readers


FILE_CASES_FOR = set()  # file_template_readers of the chapters tried (main)


def read_template(spec):
    """(header cells, rows of cells) of a template file or an inline header."""
    if spec.startswith("token,"):
        header = spec.split(",")
        width = len(header) - 1
        rows = [[f"t{i}"] + [f"{((i * 7 + j * 3) % 11) / 10:.1f}" for j in range(width)] for i in range(6)]
        return header, rows
    lines = (DATA / spec).read_text().splitlines()
    return lines[0].split(","), [line.split(",") for line in lines[1:] if line.strip()]


def csv(header, rows):
    return "\n".join(",".join(r) for r in [header] + rows) + "\n"


def file_cases(chapter, flag):
    """[(case name, file text, expectation)] for one PATH flag."""
    kind, spec = FILES.get((chapter, flag), DEFAULT_FILE)
    if kind == "folder":  # a folder the chapter reads (a checkpoint): any file given instead is refused
        return [("empty file", "", ("error", "")), ("a CSV", "token,d0\nthe,1.0\n", ("error", "")),
                ("binary garbage", "\x00\x01\xff\xfe" * 8, ("error", ""))]
    if kind == "text":  # a UTF-8 text to learn from; spec: the fewest characters it takes
        fewest, good = int(spec), "The cat sat on the mat. Call me Ishmael.\n"
        return [("empty file", "", ("error", "")),
                ("binary (NUL bytes)", "\x00\x01 whale " * 200, ("error", "")),
                (f"{fewest - 1} characters (too short)", "a" * (fewest - 1), ("error", "")),
                ("one character, over and over", "a" * (20 * fewest), ("error", "one character")),
                ("a text long enough", good * (fewest // len(good) + 1), ("ok", None))]
    header, rows = read_template(spec)
    width = len(header) - 1
    bad = [
        ("empty file", "", ":1:"),
        ("only blank lines", "\n  \n\n", ":1:"),
        ("header only", csv(header, []), ":2:"),
        ("no header (starts with a row)", csv(rows[0], rows[1:3]), ":1:"),
        ("ragged row (one cell too many)", csv(header, [rows[0], rows[1] + ["0.5"]]), ":3:"),
        ("ragged row (one cell too few)", csv(header, [rows[0], rows[1][:-1]]), ":3:"),
        ("non-numeric cell", csv(header, [rows[0], rows[1][:1] + ["abc"] + rows[1][2:]]), ":3:"),
        ("empty cell", csv(header, [rows[0][:1] + [""] + rows[0][2:]]), ":2:"),
        ("NaN", csv(header, [rows[0], rows[1][:1] + ["nan"] + rows[1][2:]]), ":3:"),
        ("infinity", csv(header, [rows[0], rows[1][:1] + ["inf"] + rows[1][2:]]), ":3:"),
        ("-infinity", csv(header, [rows[0][:1] + ["-inf"] + rows[0][2:]]), ":2:"),
        ("1e39 (beyond float)", csv(header, [rows[0][:1] + ["1e39"] + rows[0][2:]]), ":2:"),
        ("1e20 (products would overflow float)", csv(header, [rows[0], rows[1][:1] + ["1e20"] + rows[1][2:]]), ":3:"),
        ("empty token name", csv(header, [[""] + rows[0][1:]]), ":2:"),
        ("blank line between rows", csv(header, [rows[0]]) + "\n" + csv(rows[1], [])[: -1] + "\n", ":3:"),
        ("binary garbage", "\x00\x01\xff\xfe" * 8, ":1:"),
    ]
    cases = [(name, text, ("error", where)) for name, text, where in bad]
    if kind == "sequence":
        if (chapter, flag) not in ANY_WIDTH:
            narrow = [r[:-1] for r in rows]
            cases.append((f"width {width - 1} (the chapter needs {width})", csv(header[:-1], narrow), ("error", "")))
            wide = [r + ["0.1"] for r in rows]
            cases.append((f"width {width + 1} (the chapter needs {width})", csv(header + ["extra"], wide),
                          ("error", "")))
        refused = ONE_TOKEN_REFUSED.get((chapter, flag))
        cases.append(("one token", csv(header, rows[:1]), ("error", refused) if refused else ("ok", None)))
        huge = [[r[0]] + ["-1e6" if (i + j) % 3 == 0 else "1e6" for j in range(width)] for i, r in enumerate(rows[:3])]
        cases.append(("values of ±1e6 (the largest the reader takes)", csv(header, huge), ("error_or_ok", None)))
        long_rows = [[f"{rows[i % len(rows)][0]}{i}"] + rows[i % len(rows)][1:] for i in range(LONG_N)]
        cases.append((f"{LONG_N} tokens", csv(header, long_rows), ("long", None)))
    else:  # weights: one row per input dimension
        cases.append((f"{len(rows) - 1} rows (d_model is {len(rows)})", csv(header, rows[:-1]), ("error", "")))
        renamed = [["no_such_dimension"] + rows[0][1:]] + rows[1:]
        cases.append(("a row names an unknown dimension", csv(header, renamed), ("error", "")))
        cases.append((f"{width - 1} columns", csv(header[:-1], [r[:-1] for r in rows]), ("error_or_ok", "")))
    return cases


def fast(chapter, args):
    """FAST_ARGS of the chapter, less any flag the case sets itself."""
    extra, given = FAST_ARGS.get(chapter, []), {str(a) for a in args}
    return [x for pair in zip(extra[::2], extra[1::2]) if pair[0] not in given for x in pair]


def one_line(err):
    return err.endswith("\n") and err.count("\n") == 1


def check_error(chapter, case, args, must_name, tmp, outputs=True, launched=False):
    """Runs args (with fresh --dump/--svg/--html dirs) and checks the answer to a bad input."""
    dump, svg, html = (Path(tempfile.mkdtemp(dir=tmp)) / name for name in ("dump", "svg", "html"))
    extra = ["--dump", dump, "--svg", svg, "--html", html] if outputs else []
    # A refusal comes before the program needs its processes: started directly (see launch.py),
    # except the LAUNCHED_OUT_OF_RANGE cases.
    argv = [BIN / chapter, "--no-color", *fast(chapter, args), *args, *extra]
    code, out, err = run(command(*argv) if launched else argv)
    problems = []
    if code != 2:
        problems.append(f"exit {code} (expected 2)")
    if not one_line(err):
        problems.append(f"stderr has {err.count(chr(10))} lines (expected 1): {err[:300]!r}")
    for must in [must_name] if isinstance(must_name, str) else must_name:
        if must and must not in err:
            problems.append(f"stderr does not name {must!r}: {err.strip()[:200]!r}")
    if out:
        problems.append(f"stdout not empty ({out.count(chr(10))} lines, first {out.splitlines()[0][:80]!r})")
    for d in (dump, svg, html):
        if d.exists() and any(d.iterdir()):
            problems.append(f"left files in {d.name}: {sorted(p.name for p in d.iterdir())}")
    return report(chapter, case, problems, err.strip())


def report(chapter, case, problems, answer):
    known = KNOWN.get((chapter, case))
    if problems and known:
        outcome = "KNOWN (to fix in the chapter: " + known + "): " + "; ".join(problems)
    elif problems:
        failures.append(f"{chapter}: {case}: " + "; ".join(problems))
        outcome = "FAIL: " + "; ".join(problems)
    elif known:
        outcome = "now passes (delete it from known in the manifest): " + answer[:120]
    else:
        outcome = "ok: " + answer[:160]
    results.append((chapter, case, outcome))


GOLDEN = {c.program: c.golden for c in chapters()}


def default_line_count(chapter, cache={}):
    """The default run's lines: its golden output, which the suite checks it prints (a measured
    chapter, which has none, is run: under the sanitizers chapter 19's default run takes 20 s)."""
    if chapter not in cache:
        golden = GOLDEN.get(chapter)
        if golden and golden.is_file():
            cache[chapter] = golden.read_text(encoding="utf-8").count("\n")
        else:
            code, out, _ = run(command(BIN / chapter, "--no-color"))
            cache[chapter] = out.count("\n")
    return cache[chapter]


# The frame's own flags (common/lesson/lesson.cpp) are read by the same code in every chapter:
# their bad values are tried on the first chapter and on each chapter with a launcher (which
# reads the command line first), not twenty times over.
FRAME_FLAGS = {"--dump", "--svg", "--html", "--color", "--step"}
FRAME_CHAPTERS = {c.program for i, c in enumerate(chapters()) if i == 0 or c.launcher}


def flags_to_try(flags):
    """Every flag; under the sanitizers, the first of each type. A value is parsed by the code of
    its type (common/lesson/flag_values.hpp), and the sanitizers' question is memory, not each
    flag's message: one flag of a type goes through that code as well as all of them."""
    if not SANITIZED:
        return flags
    chosen = {}
    for flag, type_name in flags.items():
        if type_name not in chosen.values():
            chosen[flag] = type_name
    return chosen


def check_chapter(chapter):
    flags = every_flag = parse_help(chapter)
    if chapter not in FRAME_CHAPTERS:
        flags = {flag: type_name for flag, type_name in flags.items() if flag not in FRAME_FLAGS}
    tmp = Path(tempfile.mkdtemp(prefix=f"bad_{chapter}_"))
    jobs = []

    # Flags
    # (in the tutorial's words, not CLI11's: the flag or the word, then what was expected)
    jobs.append(("unknown flag --bogus", ["--bogus"], ["--bogus: no such flag"], True))
    jobs.append(("stray argument", ["stray"], ["'stray': a word that follows no flag"], True))
    # A flag one letter short of one of the chapter's own (--head for --heads): the real one is named.
    frame = FRAME_FLAGS | {"--no-color", "--list-steps", "--pause"}
    own = [flag for flag in flags if flag not in frame and flag[:-1] not in every_flag and len(flag) > 4]
    near_misses = NEAR_MISSES.get(chapter, []) + [([own[0][:-1], "1"], own[0])] * bool(own)
    for args, meant in near_misses:
        jobs.append((f"{' '.join(args)} (for {meant})", args, [args[0], f"(did you mean {meant}?)"], True))
    for flag, type_name in flags_to_try(flags).items():
        if type_name and type_name not in VALUE_TYPES:
            report(chapter, f"{flag} {type_name}", [f"type name {type_name} (expected one of {sorted(VALUE_TYPES)}: "
                                                   "the frame checks a value by its type name)"], "")
        # A value that is not a number says so (not "not in range"), with a hint for a decimal comma.
        if type_name in NUMBER_TYPES:
            jobs.append((f"{flag} abc", [flag, "abc"], [flag, "'abc' is not a number"], True))
        if type_name == "FLOAT":
            jobs.append((f"{flag} 1,5 (a decimal comma)", [flag, "1,5"], [flag, "'1,5' is not a number", "write 1.5"],
                         True))
        if type_name in ("INT", "UINT"):
            jobs.append((f"{flag} 1.5", [flag, "1.5"], [flag, "'1.5' is not a whole number"], True))
        if type_name == "UINT":
            jobs.append((f"{flag} -1", [flag, "-1"], flag, True))
        if type_name:  # takes a value: given none, or an empty one (also as --flag= before --dump DIR)
            jobs.append((f"{flag} without a value", [flag], [flag, "no value after it; expected"], False))
            default = help_defaults(chapter).get(flag)
            if default and flag not in several_words(chapter):  # (its default: a value it takes)
                jobs.append((f"{flag} given twice", [flag, default, flag, default], [flag, "given 2 times"], True))
            jobs.append((f"{flag} ''", [flag, ""], [flag, "empty"], True))
            jobs.append((f"{flag}= (then --dump DIR)", [f"{flag}="], [flag, "empty"], True))
    # A learner's sentence far longer than a sentence (a command line's argument holds at most
    # 128 KiB, so not 10 MB): refused at once, before the model is read or trained.
    if flags.get("--text") == "TEXT":
        jobs.append(("--text of 100 000 characters", ["--text", "a" * 100_000], "--text", True))
    for args in VALID_EDGES.get(chapter, []):
        jobs.append((" ".join(args) + " (valid)", args, ("ok", ""), False))
    for args, flag in OUT_OF_RANGE.get(chapter, []):
        if flag in flags:
            jobs.append((" ".join(args) if all(args) else f"{args[0]} ''", args, flag, True))
    # Output directories that cannot be written (root ignores permissions, so: under a regular file).
    blocker = tmp / "a_file"
    blocker.write_text("not a directory\n")
    for flag in ("--dump", "--svg", "--html") if chapter in FRAME_CHAPTERS else ():
        jobs.append((f"{flag} under a regular file", [flag, blocker / "out"], flag, False))
        jobs.append((f"{flag} is a regular file", [flag, blocker], flag, False))

    # Files
    path_flags = [f for f, t in flags.items() if t == "PATH"]
    for flag in path_flags:
        missing = tmp / "no_such_file.csv"
        jobs.append((f"{flag} missing file", [flag, missing], str(missing), True))
        jobs.append((f"{flag} a directory", [flag, tmp], str(tmp), True))
        for name, text, (expect, where) in file_cases(chapter, flag):
            if expect == "error" and (chapter, flag) not in FILE_CASES_FOR:
                continue
            path = tmp / f"{flag.strip('-')}_{re.sub(r'[^a-z0-9]+', '_', name.lower())}.csv"
            path.write_bytes(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)
            if expect == "error":
                must = str(path) + (where if where and where.startswith(":") else "")
                jobs.append((f"{flag} {name}", [flag, path], must, True))
                if where and not where.startswith(":"):
                    jobs.append((f"{flag} {name} (reason)", [flag, path], where, True))
            else:
                jobs.append((f"{flag} {name}", [flag, path], (expect, str(path)), True))
    for args, flag in LAUNCHED_OUT_OF_RANGE.get(chapter, []):
        jobs.append((" ".join(args) + " (launched)", args, flag, "launched"))
    for name, rows, args, must in EDGE_FILES.get(chapter, []):
        path = tmp / f"{name}.csv"
        path.write_text(rows)
        jobs.append((f"{name}: {' '.join(args)}", ["--input", path, *args], must, True))
    for args, flag in CONFLICTS.get(chapter, []):
        if flag in flags:
            enc = tmp / "encoder.csv"
            enc.write_text((DATA / "translation/encoder.csv").read_text())
            jobs.append((" ".join(args), [a.replace("{encoder}", str(enc)) for a in args], flag, True))

    for case, args, must, outputs in jobs:
        if isinstance(must, tuple):
            check_ok(chapter, case, args, must[0], must[1])
        else:
            check_error(chapter, case, args, must, tmp, outputs is not False, outputs == "launched")


def check_ok(chapter, case, args, expect, path):
    code, out, err = run(command(BIN / chapter, "--no-color", *fast(chapter, args), *args))
    problems = []
    lines = out.splitlines()
    if expect == "error_or_ok":
        if code == 2:
            if not one_line(err) or path not in err:
                problems.append(f"exit 2 but stderr is not one line naming the file: {err[:200]!r}")
            if out:
                problems.append("stdout not empty")
        elif code != 0:
            problems.append(f"exit {code}: {err.strip()[:200]!r}")
        else:
            problems += [f"exit 0 but {p}" for p in problems_in(out)[:2]]
        return report(chapter, case, problems, f"exit {code} " + (err.strip() or "(works)"))
    if code != 0:
        problems.append(f"exit {code} (expected 0): {err.strip()[:300]!r}")
    problems += problems_in(out)[:2]
    if expect == "long":
        longest = max((len(line) for line in lines), default=0)
        if longest >= MAX_LINE:
            problems.append(f"a line of {longest} characters (at most {MAX_LINE - 1})")
        bound = default_line_count(chapter) + MAX_LINES_GROWTH
        if len(lines) > bound:
            problems.append(f"{len(lines)} lines (at most {bound}: the default run's + {MAX_LINES_GROWTH})")
        answer = f"exit {code}, {len(lines)} lines, longest {longest} chars"
    else:
        answer = f"exit {code}, {len(lines)} lines"
    return report(chapter, case, problems, answer)


def main():
    chapters = chapter_programs()
    if ONLY:
        chapters = [c for c in chapters if any(c.startswith(o) for o in ONLY)]
    missing = [c for c in chapters if not (BIN / c).exists()]
    if missing:
        print(f"not built: {', '.join(missing)}")
        return 1
    FILE_CASES_FOR.update(file_template_readers(chapters))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for future in [pool.submit(check_chapter, c) for c in chapters]:
            future.result()
    for chapter in chapters:
        print(f"== {chapter}")
        for ch, case, outcome in results:
            if ch == chapter:
                print(f"  {case:55s} {outcome}")
    print()
    for f in failures:
        print("FAIL", f)
    known = sum(1 for _, _, outcome in results if outcome.startswith("KNOWN"))
    if known:
        print(f"{known} known failures (known in the chapters' manifests), not counted")
    print(f"{len(results) - len(failures) - known} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
