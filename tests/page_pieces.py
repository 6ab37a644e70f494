"""The page's script in its pieces (explorer/draw/*.js, explorer/live/*.js), in a real browser:
Debian's headless Chromium.

    python3 tests/page_pieces.py D3_JS [BIN_DIR]   (ctest runs it as page_pieces; the release build)

  - the pieces explorer/pieces.txt lists, in the order the page runs them, are the files
    explorer/draw/*.js and explorer/live/*.js, each listed once, the drawing's first;
  - a piece calls only what the pieces before it define: no name that a later piece declares at
    its top level is used in an earlier one (unless that piece declares it for itself, a
    parameter or a local); a later piece reaches an earlier one by a callback;
  - no function of a piece is longer than 150 lines (Debian's node-acorn parses the pieces in the
    page), no two pieces declare the same name at their top level (the pieces are classic
    scripts: what one declares there, the others see), and none of those names is one the
    browser's window already has;
  - each piece with pure functions, loaded alone in a blank page from file:// (after d3 where it
    draws with d3), with no console error, gives known values: numbers as printed, viridis and
    its white or black text (a contrast of at least 4.5 at each of its 256 steps), a heat map's
    sizes, prose that flows, numbers in tables, the zooms of a presented step, the URL's step
    and arguments, a run's progress, a step's run merged into the last whole run, a refusal;
  - with BIN_DIR, a piece missing from explorer/ (in a mount namespace of the test's own: the
    real folder is untouched; this needs root) makes --html refuse in one line, "--html: cannot
    read …/explorer/draw/heat_map.js", exit 2, and write no page.
"""
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_pages import browser  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXPLORER = ROOT / "explorer"
ACORN = Path("/usr/share/nodejs/acorn/dist/acorn.js")
LONGEST_FUNCTION = 150  # lines, from a function's first line to its closing brace
D3 = Path(sys.argv[1])
BIN = Path(sys.argv[2]) if len(sys.argv) > 2 else None
failures = []


def check(what, wrong):
    """wrong: the list of what is not as it should be, empty when all is."""
    if wrong:
        failures.append(f"{what}: {wrong}")
    else:
        print(f"{what}: as expected")


# The order of the pieces, as the page's writer reads it (common/output/explorer_page.cpp).
listed = [line.split()[0] for line in (EXPLORER / "pieces.txt").read_text().splitlines()
          if line.strip() and not line.startswith("#")]
files = sorted(str(p.relative_to(EXPLORER)) for folder in ("draw", "live") for p in (EXPLORER / folder).glob("*.js"))
drawing_first = [p.split("/")[0] for p in listed] == sorted(p.split("/")[0] for p in listed)
check("the pieces listed in explorer/pieces.txt are the files explorer/draw/*.js and live/*.js, drawing first",
      [] if sorted(listed) == files and len(set(listed)) == len(listed) and drawing_first
      else [f"listed {listed}, files {files}"])
pieces = {name: (EXPLORER / name).read_text() for name in listed}
path_of = {name.split("/")[-1]: name for name in listed}

# Every function's lines and every piece's top-level names, from acorn's syntax trees.
# And the names each piece uses: identifiers read, not a property's name after a dot or a key, and
# not those it declares below its top level (parameters, locals: its own).
SHAPES = """const [pieces] = arguments, functions = [], names = [], uses = [];
const bound = (p, into) => {  // the names a declaration's pattern binds
  if (!p) return;
  if (p.type === 'Identifier') into.add(p.name);
  else if (p.type === 'ObjectPattern') p.properties.forEach((q) => bound(q.type === 'RestElement' ? q.argument : q.value, into));
  else if (p.type === 'ArrayPattern') p.elements.forEach((q) => bound(q, into));
  else if (p.type === 'AssignmentPattern') bound(p.left, into);
  else if (p.type === 'RestElement') bound(p.argument, into);
};
for (const [file, text] of Object.entries(pieces)) {
  const tree = acorn.parse(text, { ecmaVersion: 2022, locations: true, sourceType: 'script' });
  const own = new Set(), read = new Set(), notRead = new Set();
  const walk = (node, top) => {
    if (!node || typeof node.type !== 'string') return;
    if (/Function/.test(node.type)) {
      functions.push([file, node.loc.start.line, node.loc.end.line - node.loc.start.line + 1]);
      node.params.forEach((p) => bound(p, own));
      if (node.type === 'FunctionExpression' && node.id) own.add(node.id.name);
    }
    if (node.type === 'VariableDeclarator' && !top) bound(node.id, own);
    if (node.type === 'FunctionDeclaration' && !top) own.add(node.id.name);
    if (node.type === 'CatchClause') bound(node.param, own);
    if (node.type === 'MemberExpression' && !node.computed) notRead.add(node.property);
    if ((node.type === 'Property' || node.type === 'MethodDefinition') && !node.computed && !node.shorthand) notRead.add(node.key);
    if (node.type === 'Identifier' && !notRead.has(node)) read.add(node.name);
    const inner = top && (node.type === 'Program' || node.type === 'VariableDeclaration');
    for (const v of Object.values(node)) if (Array.isArray(v)) v.forEach((c) => walk(c, inner)); else if (v && typeof v === 'object') walk(v, inner);
  };
  walk(tree, true);
  for (const s of tree.body) {
    if (s.type === 'FunctionDeclaration') names.push([file, s.id.name]);
    if (s.type === 'VariableDeclaration') for (const d of s.declarations) names.push([file, d.id.name]);
  }
  for (const name of read) if (!own.has(name)) uses.push([file, name]);
}
return { functions, names, uses };"""

# The checks of each piece loaded alone: [what, got, expected] for each value that differs.
SAME = """const wrong = [];
const same = (what, got, expected) => { if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push([what, got, expected]); };
const near = (what, got, expected, within = 1e-9) => { if (!(Math.abs(got - expected) <= within)) wrong.push([what, got, expected]); };
"""
CHECKS = {
    "numbers.js": (False, """
same("toNumber('-inf')", toNumber('-inf'), -Infinity);
same("toNumber('inf') > 1e308", toNumber('inf') > 1e308, true);
same("toNumber('nan') is NaN", Number.isNaN(toNumber('nan')), true);
same("formatValue(0.12345, 3)", formatValue(0.12345, 3), '0.123');
same("formatValue(-2, 2)", formatValue(-2, 2), '-2.00');
same("formatValue('-inf', 3)", formatValue('-inf', 3), '-inf');
same("fourDigits(2000)", fourDigits(2000), '2000');
same("fourDigits(1.23456)", fourDigits(1.23456), '1.235');
same("fourDigits(0.000123456)", fourDigits(0.000123456), '0.0001235');
same("valueRange, -inf left out", valueRange({ values: [[1, '-inf'], [3, 2]] }), [1, 3]);
same("valueRange of a constant", valueRange({ values: [[2, 2]] }), [1.5, 2.5]);
same("valueRange of nothing finite", valueRange({ values: [['nan']] }), [0, 1]);
"""),
    "colours.js": (True, """
near("luminance of white", luminance('#ffffff'), 1);
near("luminance of black", luminance('#000000'), 0);
same("viridis steps", VIRIDIS.length, 256);
same("white text on viridis's dark end", WHITE_TEXT[0], true);
same("black text on viridis's yellow end", WHITE_TEXT[255], false);
const contrast = (k) => { const l = luminance(VIRIDIS[k]); return WHITE_TEXT[k] ? 1.05 / (l + 0.05) : (l + 0.05) / 0.05; };
same("the smallest contrast of a value on its cell ≥ 4.5", Math.min(...VIRIDIS.map((c, k) => contrast(k))) >= 4.5, true);
same("viridisStep over [0, 10]", [0, 5, 10].map((x) => viridisStep(x, [0, 10])), [0, 128, 255]);
same("grey", [GREY_RGB.r, GREY_RGB.g, GREY_RGB.b], [189, 189, 189]);
"""),
    "heat_map.js": (False, """
const pick = (l) => [l.cw, l.ch, l.withValues, l.rotated, l.top, l.rowEvery, l.colEvery];
same("3 × 3 with its values", pick(heatMapLayout({ rows: 3, cols: 3, valueWidth: 30, rowLabelWidth: 40, colLabelWidth: 20, maxWidth: 1180 })),
     [40, 20, true, false, 16, 1, 1]);
same("128 × 128 in 1180 pixels", pick(heatMapLayout({ rows: 128, cols: 128, valueWidth: 30, rowLabelWidth: 48, colLabelWidth: 30, maxWidth: 1180 })),
     [8, 8, false, true, 34, 2, 2]);
same("long column labels stand at an angle", pick(heatMapLayout({ rows: 4, cols: 4, valueWidth: 30, rowLabelWidth: 40, colLabelWidth: 100, maxWidth: 1180 })),
     [40, 20, true, true, 90, 1, 1]);
same("17 columns print no values", pick(heatMapLayout({ rows: 2, cols: 17, valueWidth: 20, rowLabelWidth: 30, colLabelWidth: 10, maxWidth: 1180 })),
     [30, 22, false, false, 16, 1, 1]);
"""),
    "text_and_tables.js": (False, """
same("numeric", ['0.17', '-1.5e-3', '−2', '12 ms', '3 KiB', ', 0.17', 'the', ''].map(numeric),
     [true, true, true, true, true, false, false, false]);
same("a paragraph flows", flowingText('the cat\\nsat on the mat'), 'the cat sat on the mat');
same("a blank line stays", flowingText('first paragraph\\n\\nsecond'), 'first paragraph\\n\\nsecond');
same("a list's items stay lines", flowingText('a list:\\n- one\\n- two'), 'a list:\\n- one\\n- two');
same("aligned columns keep every line", flowingText('x    y\\n1    2\\n3    4'), null);
"""),
    "presentation.js": (False, """
same("readableZoom of 16 px text", readableZoom([16, Infinity]), 1);
near("readableZoom of 12 px text", readableZoom([12, 20]), 16 / 12);
const zoom = largestZoom((z) => z / 1.7, 1, LARGEST_ZOOM);
same("largestZoom of a step that fits up to 1.7", zoom >= 1.69 && zoom <= 1.7 + 1e-9, true);
same("largestZoom is at most LARGEST_ZOOM", largestZoom((z) => z / 4, 1, LARGEST_ZOOM), LARGEST_ZOOM);
"""),
    "navigation.js": (False, """
same("stepHash keeps the arguments", stepHash(4, 1, '#step-1&--d-k=8'), '#step-4.2&--d-k=8');
same("stepHash of a first screen", stepHash(3, 0, '#step-3.2'), '#step-3');
same("stepHash of no hash", stepHash(2, 0, ''), '#step-2');
same("parseStepHash", ['#step-4.2&--text=a', '#step-7', '', '#elsewhere'].map(parseStepHash), [[4, 1], [7, 0], [0, 0], [0, 0]]);
"""),
    "live_knobs.js": (False, """
const args = ['--d-k', '8', '--causal', '--text', 'the cat = a cat'];
const hash = hashWithArguments('#step-3.2&--old=1', args, (flag) => flag !== '--causal');
same("hashWithArguments", hash, '#step-3.2&--d-k=8&--causal&--text=the%20cat%20%3D%20a%20cat');
same("argumentsOfHash of it", argumentsOfHash(hash), args);
same("argumentsOfHash, an '=' in a value", argumentsOfHash('#step-1&--text=a=b'), ['--text', 'a=b']);
same("argumentsOfHash of a step alone", argumentsOfHash('#step-2'), null);
same("hashWithArguments of nothing", hashWithArguments('', [], () => true), '#step-1');
same("flagNamed, the first named", flagNamed(['--d-k', '--d-model'], '--d-model: must be a multiple of --d-k'), '--d-model');
same("flagNamed, not a longer flag", flagNamed(['--d-k'], '--d-kv: too large'), undefined);
const options = [{ name: '--n', type: 'INT' }, { name: '--input', type: 'PATH' }, { name: '--text', type: 'TEXT' }];
same("shownOptions, --text first", shownOptions({ options, text: true }).map((o) => o.name), ['--text', '--n']);
same("shownOptions, --text refused", shownOptions({ options, text: false }).map((o) => o.name), ['--n']);
"""),
    "live_progress.js": (False, """
same("progressOf a training's step", progressOf('step 40/200 loss 2.1'), { done: 40, total: 200 });
same("progressOf spaced", progressOf('12 / 50'), { done: 12, total: 50 });
same("progressOf a line without", progressOf('reading the book'), null);
"""),
    "live_runs.js": (False, """
const last = { title: 't', steps: [{ number: 1, x: 'a' }, { number: 2, x: 'b' }], matrices: [{ name: 'A', v: 1 }, { name: 'B', v: 1 }] };
const one = { steps: [{ number: 2, x: 'B' }], matrices: [{ name: 'B', v: 2 }, { name: 'C', v: 2 }] };
same("withStep", withStep(last, one), { title: 't', steps: [{ number: 1, x: 'a' }, { number: 2, x: 'B' }],
     matrices: [{ name: 'A', v: 1 }, { name: 'B', v: 2 }, { name: 'C', v: 2 }] });
same("refusalLine, the chapter's own", refusalLine(['step 1/10', 'ch07_multi_head: --heads: must divide 8'], 2), '--heads: must divide 8');
same("refusalLine, the last line", refusalLine(['', 'something broke', ''], 3), 'something broke');
same("refusalLine of nothing said", refusalLine([], 2), 'exit 2');
"""),
}


def page(folder, name, scripts):
    """A page of these scripts, as the page's writer inlines them, in folder/name."""
    path = folder / name
    path.write_text('<!doctype html>\n<html lang="en"><head><meta charset="utf-8"></head>\n<body>\n'
                    + "".join(f"<script>\n{s}</script>\n" for s in scripts) + "</body></html>\n")
    return path


def console_errors(driver):
    return [e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


driver = browser()
try:
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        driver.get(page(scratch, "blank.html", []).as_uri())
        on_window = set(driver.execute_script("return Object.getOwnPropertyNames(window).concat(Object.keys(window))"))
        driver.get(page(scratch, "acorn.html", [ACORN.read_text()]).as_uri())
        console_errors(driver)  # (what the blank page and acorn's said: not a piece's)
        shapes = driver.execute_script(SHAPES, pieces)
        long = [f"{file}:{line} is {n} lines" for file, line, n in shapes["functions"] if n > LONGEST_FUNCTION]
        longest = max(shapes["functions"], key=lambda f: f[2])
        check(f"no function longer than {LONGEST_FUNCTION} lines (the longest: {longest[0]}:{longest[1]}, "
              f"{longest[2]} lines)", long)
        declared = {}
        for file, name in shapes["names"]:
            declared.setdefault(name, []).append(file)
        check("no name declared by two pieces", [f"{n}: {f}" for n, f in declared.items() if len(f) > 1])
        check("no piece's name is one the window has", sorted(set(declared) & on_window))
        order = {name: k for k, name in enumerate(listed)}
        later = [f"{file} uses {name}, which {declared[name][0]} defines after it (explorer/pieces.txt)"
                 for file, name in shapes["uses"]
                 if name in declared and order[declared[name][0]] > order[file]]
        check("a piece calls only what the pieces before it define", sorted(later))

        d3 = D3.read_text()
        for name, (with_d3, checks) in CHECKS.items():
            driver.get(page(scratch, name.replace(".js", ".html"), [d3] * with_d3 + [pieces[path_of[name]]]).as_uri())
            wrong = console_errors(driver) + driver.execute_script(
                SAME + f"try {{{checks}}} catch (e) {{ wrong.push(['threw', String(e)]); }}\nreturn wrong;")
            check(f"{name} alone{' (after d3)' if with_d3 else ''}", wrong)

        if BIN is not None:
            mounts = subprocess.run(["unshare", "--mount", "sh", "-c", "mount -t tmpfs tmpfs /mnt"],
                                    capture_output=True, timeout=60).returncode == 0
            if not mounts:
                print("a missing piece: not tried (a mount namespace needs root)")
            else:
                copy, out = scratch / "explorer", scratch / "page"
                shutil.copytree(EXPLORER, copy)
                (copy / "draw" / "heat_map.js").unlink()
                script = f'mount --bind "{copy}" "{EXPLORER}" && exec "$@"'
                run = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                                      str(BIN / "ch01_dot_product_scores"), "--html", str(out)],
                                     capture_output=True, text=True, timeout=60)
                lines = run.stderr.splitlines()
                said = len(lines) == 1 and re.fullmatch(
                    r"ch01_dot_product_scores: --html: cannot read .*/explorer/draw/heat_map\.js", lines[0])
                check("a missing piece: one line, exit 2, no page",
                      [] if run.returncode == 2 and said and not (out / "index.html").exists()
                      else [f"exit {run.returncode}, stderr {run.stderr[-300:]!r}"])
finally:
    driver.quit()

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
