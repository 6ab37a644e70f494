"""Every chapter's flags keep the ranges and choices they declare (--list-options).

    python3 tests/option_ranges.py BIN_DIR

Each chapter prints its flags as one JSON document. For every number flag with a range, a
value just outside each end (min − 1, max + 1; for a float, a thousandth of the end beyond
it; the end itself when it is excluded) is refused: exit code 2, one line on stderr that
names the flag, nothing on stdout. The ends themselves are accepted. A word flag refuses a
word it does not list. --list-options after the flag still parses and checks it, and
computes nothing, so each run takes milliseconds. The programs run directly, not through a
launcher: nothing is started but the parse. Under the sanitizers (their question is memory),
the first flag of each type with a range, and the first with choices, in each chapter: a
range is checked by the code of its type (common/lesson/flag_values.hpp), whichever flag.
"""
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fast_args import SANITIZED  # noqa: E402

bin_dir = Path(sys.argv[1])
SECONDS = 20  # a run that only parses its flags takes milliseconds
failures = []


def run(program, *args):
    p = subprocess.run([str(program), *args, "--list-options"], capture_output=True, timeout=SECONDS)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def number(value, kind):
    return str(int(value)) if kind in ("INT", "UINT") else repr(float(value))


def just_outside(option):
    """The values beyond each end of the option's range."""
    r, kind = option["range"], option["type"]
    whole = kind in ("INT", "UINT")
    low = r["low"] if not r["low_included"] else r["low"] - 1 if whole else r["low"] - max(abs(r["low"]) * 1e-3, 1e-9)
    values = [low]
    if r["high"] is not None:
        values.append(r["high"] + 1 if whole else r["high"] + max(abs(r["high"]) * 1e-3, 1e-9))
    return [number(v, kind) for v in values]


def ends(option):
    r = option["range"]
    values = [r["low"]] if r["low_included"] else []
    if r["high"] is not None:
        values.append(r["high"])
    return [number(v, option["type"]) for v in values]


def refused(program, flag, value):
    code, out, err = run(program, flag, value)
    lines = err.splitlines()
    if code != 2 or out or len(lines) != 1 or flag not in lines[0]:
        failures.append(f"{program.name} {flag} {value}: expected exit 2 and one line naming {flag}, "
                        f"got exit {code}, {len(lines)} lines on stderr: {err.strip()[:200]!r}, "
                        f"{len(out)} characters on stdout")


def accepted(program, flag, value):
    code, _, err = run(program, flag, value)
    if code != 0:
        failures.append(f"{program.name} {flag} {value}: the end of its range, refused (exit {code}): {err.strip()}")


chapters = sorted(p for p in bin_dir.glob("ch[0-9][0-9]_*") if p.is_file() and p.suffix != ".launcher")
checked = 0
for program in chapters:
    code, out, err = run(program)
    try:
        options = json.loads(out)["options"] if code == 0 else None
    except ValueError as e:
        options, err = None, f"not JSON: {e}"
    if options is None:
        failures.append(f"{program.name} --list-options: exit {code}, {err.strip()}")
        continue
    tried = set()  # under the sanitizers: (type, "range" or "choices") already tried in this chapter
    for option in options:
        flag = option["name"]
        kinds = {(option["type"], k) for k in ("range", "choices") if option.get(k)}
        if SANITIZED and kinds <= tried:
            continue
        tried |= kinds
        if option.get("range"):
            for value in just_outside(option):
                refused(program, flag, value)
            for value in ends(option):
                accepted(program, flag, value)
            checked += 1
        if option.get("choices") and option["type"] == "TEXT":
            refused(program, flag, "not-a-choice")
            for value in option["choices"]:
                accepted(program, flag, value)
            checked += 1

if not chapters:
    failures.append(f"no chapter programs in {bin_dir}")
print(f"{checked} flags with a range or choices in {len(chapters)} chapters")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
