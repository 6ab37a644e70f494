"""The report of --report FILE says what the run did.

    python3 tests/run_report.py BIN_DIR     (ctest runs it as run_report)

Every chapter runs once (with the fast flags of tests/fast_args.py) with --report and --dump,
and its document (common/output/run_document.hpp) is checked against the run:
  - "schema" is 1, and the program and title are the chapter's;
  - its steps (number, name, heading) are what --list-steps prints;
  - every listed matrix is a dumped one and the other way round; its shape is the dump's and
    its values the dump's float32 (its top-left 128 × 128 corner), its labels one per row and
    column held; its kind is one of the declared kinds, a matrix of a family has a head, and a
    table that opens heads opens a family of the list;
  - the self-check lines' statuses agree with their marks and with the summary's counts, and
    the exit code is 1 exactly when one failed;
  - the matrices a step shows are listed.
For chapters 07, 16 and 22, one step alone (--step N, the first that shows a head of a family)
with --report: its document holds that step as the whole run's holds it, and the matrices it
shows with the other members of their families (and those a table of them opens), each as the
whole run's holds it; no other.
Then the report is all or nothing, like the other files of a run: a directory given as the file,
a file in a directory that does not exist or cannot be written (/proc), a file that is not an
earlier report (a learner's CSV: it would be overwritten), is refused before the
lesson prints: exit 2, one line on stderr naming --report, nothing on stdout, no file left.
"""
import concurrent.futures
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fast_args import FAST_ARGS  # noqa: E402
from launch import command  # noqa: E402
from printed_numbers import chapter_programs  # noqa: E402

BIN = Path(sys.argv[1]).resolve()
CORNER = 128  # the document holds the top-left 128 × 128 of a larger matrix
KINDS = {"attention weights", "scores", "mask", "indices", "general"}
STATUS = {"✓": "passed", "✗": "failed", "·": "not checked"}
failures = []


def same(written, expected):
    """A value of the document against the dump's float32: the same float, or the same non-finite one."""
    if isinstance(written, str):
        return {"inf": math.inf, "-inf": -math.inf}.get(written) == expected or (written == "nan" and np.isnan(expected))
    return np.float32(written) == expected


def listed_steps(chapter):
    out = subprocess.run(command(BIN / chapter, *FAST_ARGS.get(chapter, []), "--no-color", "--list-steps"),
                         capture_output=True, text=True, check=True).stdout
    steps = []
    for line in out.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0].isdigit():
            steps.append((int(parts[0]), parts[1], parts[2]))
    return steps


def shown_in(step):
    """The names of the matrices a step shows: as numbers, a heat map, indices or side by side."""
    names = set()
    for b in step["blocks"]:
        if "name" in b and b["kind"] in ("matrix", "heat_map", "indices"):
            names.add(b["name"])
        names.update(m["name"] for m in b.get("matrices", []))
    return names


def check_matrices(chapter, report, dumps, problems):
    listed = {m["name"]: m for m in report["matrices"]}
    families = {m["family"] for m in report["matrices"] if m["family"] is not None}
    if set(listed) != set(dumps):
        problems.append(f"listed {sorted(set(listed) - set(dumps))} not dumped, dumped {sorted(set(dumps) - set(listed))} "
                        f"not listed")
    for name, m in listed.items():
        if name not in dumps:
            continue
        d = dumps[name] if dumps[name].ndim == 2 else dumps[name].reshape(1, -1)
        rows, cols = min(d.shape[0], CORNER), min(d.shape[1], CORNER)
        values = m["values"]
        if tuple(m["shape"]) != d.shape:
            problems.append(f"{name}: shape {m['shape']}, the dump's {d.shape}")
        elif len(values) != rows or any(len(r) != cols for r in values) or len(m["rows"]) != rows \
                or len(m["cols"]) != cols:
            problems.append(f"{name}: {len(values)} rows of values, {len(m['rows'])} row and {len(m['cols'])} column "
                            f"labels, not its {rows} × {cols} corner")
        else:
            wrong = [(i, j) for i in range(rows) for j in range(cols) if not same(values[i][j], d[i, j])]
            if wrong:
                i, j = wrong[0]
                problems.append(f"{name}: {len(wrong)} values differ from the dump, [{i}, {j}] = {values[i][j]} "
                                f"against {d[i, j]}")
        if m["kind"] not in KINDS:
            problems.append(f"{name}: kind {m['kind']!r}")
        if m["family"] is not None and m["head"] is None:
            problems.append(f"{name}: one of the family {m['family']!r} without a head")
        if m["opens"] is not None and m["opens"] not in families:
            problems.append(f"{name}: opens the heads of {m['opens']!r}, which is no family of the list")
    shown = set().union(*map(shown_in, report["steps"]))
    if shown - set(listed):
        problems.append(f"steps show matrices that are not listed: {sorted(shown - set(listed))}")


def check_checks(report, code, problems):
    lines = [line for s in report["steps"] for b in s["blocks"] if b["kind"] == "checks" for line in b["lines"]]
    wrong = [line for line in lines if STATUS.get(line["mark"]) != line["status"]]
    if wrong:
        problems.append(f"self-check lines whose status is not their mark's: {wrong[:2]}")
    counted = {status: sum(line["status"] == status for line in lines) for status in STATUS.values()}
    summary = report["summary"]["self_checks"]
    said = {"passed": summary["passed"], "failed": summary["failed"], "not checked": summary["not_checked"]}
    if counted != said:
        problems.append(f"the summary counts {said}, the lines {counted}")
    if (code == 1) != (summary["failed"] > 0) or code not in (0, 1):
        problems.append(f"exit code {code} with {summary['failed']} self-checks failed")
    if report["summary"]["grading"] is not None:
        problems.append("a grading outside ./tutorial check")
    return len(lines)


def check(chapter):
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        report_path, dump = Path(tmp) / "report.json", Path(tmp) / "dump"
        run = subprocess.run(command(BIN / chapter, *FAST_ARGS.get(chapter, []), "--no-color", "--report", report_path,
                                     "--dump", dump), capture_output=True, text=True, timeout=600)
        if not report_path.exists():
            return chapter, [f"no report (exit {run.returncode}, stderr {run.stderr[-300:]!r})"], ""
        report = json.loads(report_path.read_text())
        dumps = {p.stem: np.load(p) for p in dump.glob("*.npy")}
    if report.get("schema") != 1 or report["program"] != chapter or not report["title"].startswith("Chapter "):
        problems.append(f"schema {report.get('schema')}, program {report['program']!r}, title {report['title']!r}")
    steps = [(s["number"], s["name"], s["heading"]) for s in report["steps"]]
    if steps != listed_steps(chapter):
        problems.append(f"steps {steps[:3]}… are not --list-steps' {listed_steps(chapter)[:3]}…")
    check_matrices(chapter, report, dumps, problems)
    count = check_checks(report, run.returncode, problems)
    if chapter[:4] in ONE_STEP:
        problems += check_one_step(chapter, report)
    return chapter, problems, f"{len(steps)} steps, {len(report['matrices'])} matrices, {count} self-check lines"


ONE_STEP = ("ch07", "ch16", "ch22")


def check_one_step(chapter, whole):
    """The report of one step against the whole run's (the page draws the step in view from it first)."""
    families = {m["name"]: m["family"] for m in whole["matrices"]}
    step = next((s for s in whole["steps"] if any(families.get(n) for n in shown_in(s))), None)
    if step is None:
        return ["no step shows a head of a family"]
    shown = shown_in(step)
    kept = {families[n] for n in shown if families.get(n)} | {m["opens"] for m in whole["matrices"]
                                                               if m["name"] in shown and m["opens"]}
    expected = [m for m in whole["matrices"] if m["name"] in shown or m["family"] in kept]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "step.json"
        run = subprocess.run(command(BIN / chapter, *FAST_ARGS.get(chapter, []), "--no-color", "--step",
                                     str(step["number"]), "--report", path), capture_output=True, text=True, timeout=600)
        if run.returncode not in (0, 1) or not path.exists():
            return [f"--step {step['number']} --report: exit {run.returncode} {run.stderr[-200:]!r}"]
        one = json.loads(path.read_text())
    problems = []
    if one["steps"] != [step]:
        problems.append(f"--step {step['number']}: its steps are not the whole run's step {step['number']}")
    if one["matrices"] != expected:
        problems.append(f"--step {step['number']}: matrices {[m['name'] for m in one['matrices']][:6]}…, expected "
                        f"{[m['name'] for m in expected][:6]}… as the whole run's")
    return problems


def refused(chapter, path, why):
    """--report PATH is refused before anything prints; no file is left there."""
    run = subprocess.run([BIN / chapter, "--no-color", "--report", path], capture_output=True, text=True, timeout=600)
    complaint = run.stderr
    if run.returncode != 2 or complaint.count("\n") != 1 or "--report" not in complaint or run.stdout:
        failures.append(f"{chapter} --report {path} ({why}): exit {run.returncode}, stderr {complaint!r}, "
                        f"{run.stdout.count(chr(10))} lines on stdout")
    else:
        print(f"✓ --report {path} ({why}): {complaint.strip()}")


with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    for chapter, problems, said in pool.map(check, chapter_programs()):
        if problems:
            failures += [f"{chapter}: {p}" for p in problems]
        else:
            print(f"✓ {chapter}: {said}")

with tempfile.TemporaryDirectory() as tmp:
    refused("ch01_dot_product_scores", tmp, "a directory")
    refused("ch01_dot_product_scores", f"{tmp}/missing/report.json", "no such directory")
    refused("ch01_dot_product_scores", "/proc/report.json", "a directory that takes no files")
    left = list(Path(tmp).iterdir())
    if left:
        failures.append(f"refused runs left {left}")
    # A report replaces an earlier report, never a learner's file (--report typed for --input).
    data = Path(tmp) / "my_sequence.csv"
    data.write_text("token,d0\na,1\n")
    refused("ch01_dot_product_scores", data, "a file that is not a report")
    if data.read_text() != "token,d0\na,1\n":
        failures.append(f"--report {data} changed the file it refused")
    again = Path(tmp) / "again.json"
    for turn in ("first", "second"):
        run = subprocess.run([BIN / "ch01_dot_product_scores", "--no-color", "--report", again], capture_output=True,
                             timeout=600)
        if run.returncode != 0:
            failures.append(f"--report {again}, {turn} time (an earlier report there): exit {run.returncode}")

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
