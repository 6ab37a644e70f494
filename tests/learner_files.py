"""The files and flags that learners' machines really produce: read them, or refuse them clearly.

    python3 tests/learner_files.py BIN_DIR [CHAPTER…]     (ctest runs it as learner_files)

For every chapter and every file flag it has (found in its --help):
  - read the same as the clean file (the same output, the file's name aside):
    Excel's "CSV UTF-8" (a byte-order mark, CR LF line ends), "CSV (Macintosh)" (lone CR
    line ends), every cell in double quotes;
  - refused in one line that says why and names the file: UTF-16 ("Unicode text"),
    Windows-1252 ("café" as one byte é), a zero-width or no-break space after a number
    (shown escaped: '0.8\\u200b'), a control character in a token name, "+-1",
    /dev/zero, and 300 000 tokens (the n × n matrices, 360 GB, would not fit: refused before
    anything is computed).
For every flag: an empty path; a float flag of 1e39 (float32 would make it inf); "+-1";
an integer beyond 2^64. Each must exit 2 with one line on stderr naming the flag and
nothing on stdout. Dense random sequences of 1 to 1000 tokens, values in [−1, 1] and
[−30, 30], up to 300 dimensions, with long token and dimension names, keep every
self-check true (tolerances follow the data) and print no line wider than the terminal.
And tokens in Chinese and emoji line up in the printed matrices.
Under the sanitizers (their question is memory): one flag of each type per chapter
(bad_inputs.flags_to_try), a template's files on the first chapter that reads it
(bad_inputs.file_template_readers), and the dense sequences up to 300 tokens.
"""
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bad_inputs import DEFAULT_FILE, FILES, FAST_ARGS, ANY_WIDTH, ONE_TOKEN_REFUSED, parse_help, read_template, csv  # noqa: E402,E501
from bad_inputs import SANITIZED, flags_to_try, file_template_readers  # noqa: E402
from printed_numbers import chapter_programs  # noqa: E402
from launch import command  # noqa: E402  (bin/NAME.launcher; refusals start the program directly)

BIN = Path(sys.argv[1]).resolve()
ONLY = sys.argv[2:]
failures, passed = [], 0


def run(args, stdin=None, timeout=120, env=None):
    env = dict(os.environ, NO_COLOR="1", **(env or {}))
    p = subprocess.run([str(a) for a in args], capture_output=True, env=env, timeout=timeout, stdin=stdin)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def expect(ok, what):
    global passed
    if ok:
        passed += 1
    else:
        failures.append(what)


def refused(chapter, args, must_name, case):
    code, out, err = run([BIN / chapter, "--no-color", *args])
    good = code == 2 and err.count("\n") == 1 and not out and all(m in err for m in must_name) and len(err) < 260
    expect(good, f"{chapter} {case}: exit {code}, stderr {err[:300]!r}, {out.count(chr(10))} lines on stdout")


def width(line):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def check_chapter(chapter, tmp, readers):
    flags = parse_help(chapter)
    fast = FAST_ARGS.get(chapter, [])
    for flag, type_name in flags_to_try(flags).items():
        if type_name in ("PATH", "DIR"):
            refused(chapter, [*fast, flag, ""], [flag, "empty path"], f"{flag} ''")
        if type_name in ("FLOAT", "NUMBER", "DOUBLE"):
            refused(chapter, [*fast, flag, "1e39"], [flag], f"{flag} 1e39")
        if type_name in ("FLOAT", "NUMBER", "DOUBLE", "INT", "UINT"):
            refused(chapter, [*fast, flag, "+-1"], [flag], f"{flag} +-1")
        if type_name in ("INT", "UINT"):
            refused(chapter, [*fast, flag, "99999999999999999999999"], [flag], f"{flag} 99999999999999999999999")

    for flag in [f for f, t in flags.items() if t == "PATH" and (chapter, f) in readers]:
        kind, spec = FILES.get((chapter, flag), DEFAULT_FILE)
        if kind in ("text", "folder"):  # a corpus or a checkpoint: not a CSV that a spreadsheet writes
            continue
        header, rows = read_template(spec)
        rows = rows[:5] if kind == "sequence" else rows  # a weights file needs every row
        clean = tmp / f"{chapter}{flag}_clean.csv"
        clean.write_text(csv(header, rows))
        code, reference, err = run(command(BIN / chapter, *fast, flag, clean))
        if code not in (0, 1):
            expect(False, f"{chapter} {flag}: the clean file gives exit {code}: {err.strip()[:200]}")
            continue
        text = csv(header, rows)
        same = {
            "Excel CSV UTF-8 (BOM, CR LF)": b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode(),
            "CSV (Macintosh) (CR line ends)": text.replace("\n", "\r").encode(),
            "every cell in double quotes": "".join(",".join(f'"{c}"' for c in line.split(",")) + "\n"
                                                   for line in text.splitlines()).encode(),
        }
        for case, data in same.items():
            path = tmp / f"{chapter}{flag}_{re.sub('[^a-z]+', '_', case.lower())}.csv"
            path.write_bytes(data)
            code2, out, err = run(command(BIN / chapter, *fast, flag, path))
            # The same words; a line that names the file may wrap elsewhere, the name being longer.
            same_text = out.replace(str(path), str(clean)).split() == reference.split()
            expect(code2 == code and same_text,
                   f"{chapter} {flag} {case}: exit {code2} (clean: {code}), output "
                   f"{'the same' if same_text else 'differs'}; {err[:200]!r}")
        number = rows[1][1]
        bad = {
            "UTF-16 (Unicode text)": (text.encode("utf-16"), ["UTF-16", "CSV UTF-8"]),
            "Windows-1252 café": (csv(header, [rows[0], ["café"] + rows[1][1:]]).encode("cp1252"), [":3:", "0xe9"]),
            "a zero-width space after a number": (csv(header, [rows[0], [rows[1][0], number + "\u200b"] + rows[1][2:]])
                                                  .encode(), [":3:", "\\u200b"]),
            "a no-break space after a number": (csv(header, [rows[0], [rows[1][0], number + "\u00a0"] + rows[1][2:]])
                                                .encode(), [":3:", "\\u00a0"]),
            "a control character in a token": (csv(header, [["\x1b[31mred"] + rows[0][1:]]).encode(),
                                               [":2:", "control character"]),
            "+-1 in a cell": (csv(header, [[rows[0][0], "+-1"] + rows[0][2:]]).encode(), [":2:", "'+-1'"]),
        }
        if kind == "sequence":
            # far too many for any machine, and few enough to read in a second under the sanitizers
            too_many = tmp / f"too_many_{len(header)}.csv"  # one per width, shared by the chapters
            if not too_many.exists():
                row = "," + ",".join(rows[0][1:]) + "\n"
                too_many.write_text(",".join(header) + "\n" + "".join(f"t{i}{row}" for i in range(300_000)))
            refused(chapter, [*fast, flag, too_many], [str(too_many), "300000 tokens", "would need"],
                    f"{flag} 300 000 tokens")
        for case, (data, must) in bad.items():
            path = tmp / f"{chapter}{flag}_{re.sub('[^a-z0-9]+', '_', case.lower())}.csv"
            path.write_bytes(data)
            refused(chapter, [*fast, flag, path], [str(path), *must], f"{flag} {case}")
        refused(chapter, [*fast, flag, "/dev/zero"], ["/dev/zero"], f"{flag} /dev/zero")


# Dense random sequences: (tokens, values in [−size, size], width of an any-width chapter, seed).
# Every self-check must hold for every valid input (tolerances follow the data), and no
# printed line may be wider than the terminal (100 columns in a pipe), whatever the labels.
DENSE = [(1, 1.0, None, 1), (50, 30.0, 300, 50), (300, 1.0, None, 300), (1000, 1.0, None, 28)]
if SANITIZED:  # the sanitizers ask about memory: 1000 tokens go through the code 300 did
    DENSE = DENSE[:-1]
LONG_LABEL = "token_with_a_rather_long_name_{}"


def check_dense_inputs(chapter, tmp):
    """Random dense --input files of several sizes: exit 0, every self-check ✓, no line over 100 columns."""
    import random
    flags = parse_help(chapter)
    if "--input" not in flags:
        return
    kind, spec = FILES.get((chapter, "--input"), DEFAULT_FILE)
    header, _ = read_template(spec)
    for n, size, any_width, seed in DENSE:
        names = header
        if any_width and (chapter, "--input") in ANY_WIDTH:
            names = ["token"] + [f"dimension_with_a_long_name_{j}" for j in range(any_width)]
        draw = random.Random(seed)
        path = tmp / f"{chapter}_dense_{n}.csv"
        path.write_text(",".join(names) + "\n" + "".join(
            LONG_LABEL.format(i) + "," + ",".join(f"{draw.uniform(-size, size):.9g}" for _ in names[1:]) + "\n"
            for i in range(n)))
        code, out, err = run(command(BIN / chapter, *FAST_ARGS.get(chapter, []), "--input", path),
                             env={"COLUMNS": "100"})
        case = f"{chapter} --input of {n} dense tokens in [−{size:g}, {size:g}], width {len(names) - 1}"
        if code == 2 and n == 1 and ONE_TOKEN_REFUSED.get((chapter, "--input")) in err:
            expect(True, case)
            continue
        crossed = [line for line in out.splitlines() if line.startswith("✗")]
        expect(code == 0 and not crossed, f"{case}: exit {code}, {crossed[:2]} {err[:200]!r}")
        wide = [line for line in out.splitlines() if width(line) > 100]
        expect(not wide, f"{case}: {len(wide)} lines wider than 100 columns, the first {width(wide[0]) if wide else 0}: "
               f"{wide[0][:120] if wide else ''!r}")


def check_wide_characters(tmp):
    """Chinese and emoji tokens: every row of the printed X has the same display width."""
    path = tmp / "wide.csv"
    path.write_text("token,a,b\n猫,0.1,0.2\n🐈,0.3,0.4\ncat,0.5,0.6\n")
    code, out, err = run([BIN / "ch01_dot_product_scores", "--input", path])
    block = out.split("X   (3 × 2)\n", 1)[1].split("\n\n", 1)[0].splitlines()
    widths = {width(line.rstrip()) for line in block[1:]}
    expect(code == 0 and len(widths) == 1, f"wide characters: rows of X are {sorted(widths)} columns wide:\n"
           + "\n".join(block))


def check_color():
    """--color=always shades even into a pipe; never and TERM=dumb do not."""
    ch = BIN / "ch01_dot_product_scores"
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    always = subprocess.run([ch, "--color=always"], capture_output=True, text=True, env=env).stdout
    never = subprocess.run([ch, "--color=never"], capture_output=True, text=True, env=env).stdout
    dumb = subprocess.run([ch], capture_output=True, text=True, env=dict(env, TERM="dumb")).stdout
    expect("\x1b[" in always and "\x1b[" not in never and "\x1b[" not in dumb,
           "--color: always must shade, never and TERM=dumb must not")


def main():
    import tempfile
    chapters = [c for c in chapter_programs() if not ONLY or any(c.startswith(o) for o in ONLY)]
    readers = file_template_readers(chapters)
    with tempfile.TemporaryDirectory() as tmp:
        for chapter in chapters:
            check_chapter(chapter, Path(tmp), readers)
            check_dense_inputs(chapter, Path(tmp))
            print(f"{chapter}: {passed} passed so far, {len(failures)} failed", flush=True)
        check_wide_characters(Path(tmp))
        check_color()
    for f in failures:
        print("FAIL", f)
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
