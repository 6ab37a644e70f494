"""Every chapter's page (--html) in a real browser: Debian's headless Chromium, driven by Selenium.

    python3 tests/explorer_browser.py BIN_DIR OUT_DIR [--screenshots DIR] [CHAPTER…]
    (ctest runs it as explorer_browser; ./tutorial bless passes --screenshots docs/pictures)

Each chapter runs once (with the fast flags of tests/fast_args.py; with --screenshots, its default
run, which its doc shows) with --html and --dump into OUT_DIR/<chapter>/, and its page is opened
from file://. Then:
  - the page is at most 2 MB (or what the chapter's manifest allows), and loads with no console
    error or warning;
  - every matrix of the dump has cells on the page (a head that a model view holds once its
    thumbnail is clicked), and every cell's number (data-value, read from the DOM) is the
    dump's float32 at its row and column;
  - a matrix larger than 128 rows or columns is on the page as its top-left 128 × 128, drawn
    whole, with a line under it that says so; a smaller one is drawn whole;
  - every value printed in a cell has a contrast of at least 4.5 with its cell; a map of more
    than 16 rows or columns prints none (a hover shows them); prose flows (no line break of
    the terminal's before a lowercase word); chapter 20's slots are a table of numbers and
    its token ids name their positions;
  - hovering a cell of every drawing of a matrix shows its value, its row and column labels and
    its formula (a real hover on the first; the pointer's events sent to the others); hovering
    a head view's token shows the formula too;
    every chart of the lesson is drawn, and hovering a point shows its series, x and y;
  - in a head view, hovering a query token leaves only that token's lines, one per key;
    hovering a key token leaves only the lines into it; moving away shows them all again;
  - a (layers × heads) table that opens heads (chapter 23's scores of each head): its cell (l, h)
    opens layer l, head h of the family it names; on the first such table, Enter on cell (0, 0)
    shows layer 0, head 0 in the first view of the family, on screen, and marks the cell; a click
    on cell (1, 2) then shows layer 1, head 2; presented, a click on a cell shows the screen of
    its head's view; no console error;
  - → makes the next step the current one and ← the one before; p shows only the current step
    (presentation), Escape leaves it as the page was; presented, → walks every screen of every
    step in order (a step too long for one screen at a readable size is several, "(2/3)" after
    its heading, #step-N.2 in the URL; chapters 13, 16 and 20 have such a step), ← goes back
    to the last screen of the step before; every screen fits the window below the bar, its text
    at least 16 px high (a block too big even alone is scaled down, but never its prose;
    chapter 01's 9 × 9 scores with cells at least 56 px wide), and no link of the bar is cut;
  - a screenshot of the page (PNG, 1280 × 800) is written to OUT_DIR/<chapter>.png, or with
    --screenshots DIR to DIR/<chapter>/explorer.png; the chapter's doc shows the one in
    docs/pictures/<chapter>/explorer.png (./tutorial bless writes them).
Then chapter 18 at its largest sizes gives a page of at most 10 MB whose cells are --dump's.
Then a learner's --input whose tokens hold markup ("</script>", "<b>", quotes, "&") gives a page
that loads with no console error and shows the tokens as they are written.
One browser serves every page. The time a page takes to open is measured by
bench/explorer_open.py, not here.
"""
import concurrent.futures
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fast_args import FAST_ARGS  # noqa: E402
from browser_pages import CELLS, browser, cells_against_dump, open_page, page_cells  # noqa: E402
from launch import command  # noqa: E402
from printed_numbers import chapter_programs  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from chapters import chapters  # noqa: E402

LARGEST_PAGE = 2 * 1024 * 1024  # bytes; a chapter's manifest may allow more ([tests] page_megabytes)
PAGE_ALLOWED = {c.program: c.tests["page_megabytes"] * 1024 * 1024 for c in chapters() if "page_megabytes" in c.tests}
CORNER = 128  # the page holds the top-left 128 × 128 of a larger matrix (common/output/run_document.cpp)
DOCS = Path(__file__).resolve().parent.parent / "docs"

args = sys.argv[1:]
screenshots = None
if "--screenshots" in args:
    at = args.index("--screenshots")
    screenshots = Path(args[at + 1]).resolve()
    del args[at:at + 2]
BIN, OUT = Path(args[0]).resolve(), Path(args[1]).resolve()
chosen = args[2:] or chapter_programs()
failures = []


def same_number(written, expected):
    """The page writes a non-finite entry as the data does: "inf", "-inf" or "nan"."""
    value = float(written)  # float() reads those three too
    if np.isnan(expected):
        return np.isnan(value)
    return np.float32(value) == np.float32(expected)


def check_numbers(driver, chapter, dumps, data):
    cells = page_cells(driver)
    check_corners(driver, chapter, dumps, data, cells)
    wrong, missing = cells_against_dump(cells, dumps, same_number)
    if missing:
        failures.append(f"{chapter}: matrices with no cell on the page: {missing}")
    if wrong:
        failures.append(f"{chapter}: {len(wrong)} cells differ from --dump, e.g. {wrong[:3]}")
    return len(cells)


ELIDED = """return Array.from(document.querySelectorAll('figure.matrix'),
    f => [f.dataset.matrix, (f.querySelector('p.elided') || {}).textContent || null]);"""


def check_corners(driver, chapter, dumps, data, cells):
    """The page holds a large matrix's top-left CORNER × CORNER, drawn whole, and says so under
    it; a smaller matrix is drawn whole, with no such line. (The cells' numbers: check_numbers.)"""
    listed = {m["name"]: m for m in data["matrices"]}
    drawn = {}
    for name, i, j, _ in cells:
        drawn.setdefault(name, set()).add((i, j))
    captions = {}
    for name, caption in driver.execute_script(ELIDED):
        captions.setdefault(name, caption)
    for name, where in drawn.items():
        if name not in dumps or name not in listed:
            continue
        shape = dumps[name].shape if dumps[name].ndim == 2 else (1, dumps[name].size)
        rows, cols = min(shape[0], CORNER), min(shape[1], CORNER)
        if tuple(listed[name]["shape"]) != tuple(shape):
            failures.append(f"{chapter}: the page says {name} is {listed[name]['shape']}, the dump {shape}")
        if len(where) != rows * cols:
            failures.append(f"{chapter}: {name} {shape}: {len(where)} cells drawn, not its {rows} × {cols} corner")
        elided = shape[0] > CORNER or shape[1] > CORNER
        caption = captions.get(name)
        if elided and not (caption and "not on this page" in caption and "--dump" in caption):
            failures.append(f"{chapter}: {name} {shape} is elided to {rows} × {cols} without saying so ({caption!r})")
        if not elided and caption:
            failures.append(f"{chapter}: {name} {shape} is whole, yet the page says {caption!r}")


VISIBLE_LINES = """return Array.from(arguments[0].querySelectorAll('line.hv-line'))
    .filter(l => getComputedStyle(l).display !== 'none').map(l => [+l.dataset.query, +l.dataset.key]);"""


def check_head_view(driver, chapter, data):
    view = driver.execute_script(
        "return Array.from(document.querySelectorAll('svg.head-view')).find(v => v.getClientRects().length > 0)")
    if view is None:
        return "no head view"
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", view)
    away = driver.find_element(By.CSS_SELECTOR, "nav")  # the bar stays on screen: the mouse rests there
    ActionChains(driver, duration=0).move_to_element(away).perform()
    name = view.get_attribute("data-matrix")
    formula = next(m["formula"] for m in data["matrices"] if m["name"] == name)
    queries = view.find_elements(By.CSS_SELECTOR, ".hv-query")
    keys = view.find_elements(By.CSS_SELECTOR, ".hv-key")
    everything = len(driver.execute_script(VISIBLE_LINES, view))
    if everything != len(queries) * len(keys):
        failures.append(f"{chapter}: a head view shows {everything} lines, not {len(queries)} × {len(keys)}")
    for token, side, other in ((queries[-1], 0, len(keys)), (keys[0], 1, len(queries))):
        index = int(token.get_attribute("data-index"))
        ActionChains(driver, duration=0).move_to_element(token).perform()
        shown = driver.execute_script(VISIBLE_LINES, view)
        tip = driver.execute_script(TOOLTIP) or ""
        if formula not in tip or not tip:
            failures.append(f"{chapter}: hovering a token of {name}'s head view shows {tip!r}, not its formula {formula!r}")
        if len(shown) != other or any(line[side] != index for line in shown):
            what = "query" if side == 0 else "key"
            failures.append(f"{chapter}: hovering {what} token {index} shows {len(shown)} lines, "
                            f"{sum(line[side] == index for line in shown)} of them its own (expected {other})")
        ActionChains(driver, duration=0).move_to_element(away).perform()
    after = len(driver.execute_script(VISIBLE_LINES, view))
    if after != everything:
        failures.append(f"{chapter}: after the hover, {after} of {everything} lines show")
    return f"head view of {view.get_attribute('data-matrix')}: hover keeps one token's lines"


TOOLTIP = "const t = document.querySelector('.tooltip'); return t && t.style.display !== 'none' ? t.textContent : null;"


# The last cell of every drawing of a matrix on the page (heat maps of the steps, side by side,
# in a group's view, in the appendix; tables of indices): the pointer moved onto it.
HOVER_EVERY_MATRIX = """const last = new Map();
for (const c of document.querySelectorAll('.cell[data-matrix], .cell-grid[data-matrix]')) last.set(c.closest('figure'), c);
const told = [];
for (const c of last.values()) {
    c.scrollIntoView({block: 'center'});
    // a map drawn as one image: the pointer on its last cell
    const grid = c.classList.contains('cell-grid'), R = +c.dataset.rows, C = +c.dataset.cols;
    const r = c.getBoundingClientRect();
    const x = grid ? r.right - r.width / C / 2 : r.x + r.width / 2, y = grid ? r.bottom - r.height / R / 2 : r.y + r.height / 2;
    for (const type of ['mouseover', 'mousemove'])
        c.dispatchEvent(new MouseEvent(type, {bubbles: true, clientX: x, clientY: y}));
    const t = document.querySelector('.tooltip');
    told.push([c.dataset.matrix, grid ? R - 1 : +c.dataset.row, grid ? C - 1 : +c.dataset.col, t.style.display !== 'none' ? t.textContent : '']);
    c.dispatchEvent(new MouseEvent('mouseout', {bubbles: true, clientX: x, clientY: y}));
}
return told;"""


def check_tooltips(driver, chapter, data):
    """A cell's tooltip names its value, labels and formula (every drawing of every matrix: the
    pointer's events sent to one cell of each); a real hover on the first cell; a chart point's
    tooltip its series and numbers."""
    told = []
    listed = {m["name"]: m for m in data["matrices"]}
    hovered = driver.execute_script(HOVER_EVERY_MATRIX)
    for name, i, j, tip in hovered:
        m = listed[name]
        wanted = [f"{name}[{i}, {j}]", m["rows"][i], m["cols"][j], m["formula"]]
        if any(w not in tip for w in wanted):
            failures.append(f"{chapter}: the tooltip of {name}[{i}, {j}] is {tip!r}, not naming {wanted}")
    # The pointer on the first cell: of a map of rects, else of one drawn as an image.
    cell, name, i, j, dx, dy = driver.execute_script("""
        const c = document.querySelector('rect.cell'), g = document.querySelector('.cell-grid');
        if (c) return [c, c.dataset.matrix, +c.dataset.row, +c.dataset.col, 0, 0];
        const r = g.getBoundingClientRect(), w = r.width / +g.dataset.cols, h = r.height / +g.dataset.rows;
        return [g, g.dataset.matrix, 0, 0, Math.round(-r.width / 2 + w / 2), Math.round(-r.height / 2 + h / 2)];""")
    m = listed[name]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", cell)
    ActionChains(driver, duration=0).move_to_element_with_offset(cell, dx, dy).perform()
    tip = driver.execute_script(TOOLTIP) or ""
    wanted = [f"{m['name']}[{i}, {j}]", m["rows"][i], m["cols"][j], m["formula"]]
    if any(w not in tip for w in wanted):
        failures.append(f"{chapter}: the tooltip of {m['name']}[{i}, {j}] is {tip!r}, not naming {wanted}")
    told.append(f"cell tooltips of {len(hovered)} drawings")
    charts = [b for step in data["steps"] for b in step["blocks"] if b["kind"] == "chart"]
    if charts:
        count, series = driver.execute_script(
            "const p = document.querySelectorAll('circle.point'); return [p.length, Array.from(p, q => q.dataset.series)];")
        series = set(series)
        missing = [s["label"] for c in charts for s in c["series"] if s["label"] not in series]
        if missing:
            failures.append(f"{chapter}: no points drawn for the series {missing}")
        # A point on top of its place and alone there: curves can share a point, or (chapter 10's
        # measured times) pass within a pixel or two of each other, and the pointer then shows
        # the nearest or the last drawn, which may be the other curve's.
        point = driver.execute_script("""
            const points = Array.from(document.querySelectorAll('circle.point'));
            points[0].closest('svg').scrollIntoView({block: 'center'});
            const centre = p => { const r = p.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; };
            for (const p of points) {
                const [x, y] = centre(p);
                const alone = points.every(q => q === p || Math.hypot(centre(q)[0] - x, centre(q)[1] - y) > 12);
                if (alone && document.elementFromPoint(x, y) === p) return p;
            }
            return null;""")
        if point is not None:
            ActionChains(driver, duration=0).move_to_element(point).perform()
            tip = driver.execute_script(TOOLTIP) or ""
            label = driver.execute_script("return arguments[0].dataset.series", point)
            if label not in tip:
                failures.append(f"{chapter}: hovering a point of {label!r} shows {tip!r}")
        told.append(f"{len(charts)} charts, {count} points")
    return ", ".join(told)


# What a reader must be able to read: every value printed in a cell against its cell (WCAG's
# contrast ratio, at least 4.5, the fill's opacity counted); no values printed in a map of more
# than 16 rows or columns (its cells are too small: a hover shows them); prose whose lines flow
# (a line break before a lowercase word is the terminal's, not the text's, unless the line before
# is an indented formula).
READABLE = """const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
const lum = ([r, g, b]) => [r, g, b].map((v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
    .reduce((sum, v, k) => sum + v * [0.2126, 0.7152, 0.0722][k], 0);
let lowest = [Infinity, null];
for (const t of document.querySelectorAll('text.cell-value')) {
    const cell = t.previousElementSibling, style = getComputedStyle(t);
    const back = rgb(getComputedStyle(cell).fill), ink = rgb(style.fill), a = +style.fillOpacity * +style.opacity;
    const seen = ink.slice(0, 3).map((v, k) => a * v + (1 - a) * back[k]);
    const [l1, l2] = [lum(seen), lum(back)].sort((x, y) => y - x);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    if (ratio < lowest[0]) lowest = [ratio, `${cell.dataset.matrix}[${cell.dataset.row}, ${cell.dataset.col}] "${t.textContent}"`];
}
const crowded = Array.from(document.querySelectorAll('svg.heat-map'))
    .filter((svg) => svg.querySelector('text.cell-value'))
    .map((svg) => { const cells = svg.querySelectorAll('rect.cell'), last = cells[cells.length - 1];
                    return [last.dataset.matrix, +last.dataset.row + 1, +last.dataset.col + 1]; })
    .filter(([, r, c]) => r > 16 || c > 16);
const broken = Array.from(document.querySelectorAll('p.text:not(.mono)'), (p) => p.textContent)
    .filter((t) => t.split('\\n').some((line, k, lines) => k > 0 && /^[a-z]/.test(line) && /^\\S/.test(lines[k - 1])))
    .map((t) => t.slice(0, 80));
return [lowest, crowded, broken];"""


def check_indices_and_tokens(driver, chapter, data):
    """Chapter 20's slots hold positions: a table of numbers, not a heat map; its rows of tokens
    (ids that repeat in the second half) also name their positions."""
    heat, table = driver.execute_script("""return [
        document.querySelectorAll('rect.cell[data-matrix="slots"], .cell-grid[data-matrix="slots"]').length,
        document.querySelectorAll('td.cell[data-matrix="slots"]').length];""")
    if heat or not table:
        failures.append(f"{chapter}: slots drawn as {heat} heat-map cells and {table} table cells")
    labels = driver.execute_script("""return Array.from(document.querySelectorAll(
        'figure.matrix[data-matrix="weights_full"] :is(.row-label, .hv-query)[data-index="1"]'), t => t.textContent);""")
    if not labels or not all(label.startswith("1: ") for label in labels):
        failures.append(f"{chapter}: weights_full's row 1 is labelled {labels}, not by position and token")


def check_readable(driver, chapter):
    (ratio, where), crowded, broken = driver.execute_script(READABLE)
    if ratio is not None and ratio < 4.5:
        failures.append(f"{chapter}: the value {where} has a contrast of {ratio:.2f} with its cell (< 4.5)")
    if crowded:
        failures.append(f"{chapter}: values printed in the cells of large maps {crowded[:3]}")
    if broken:
        failures.append(f"{chapter}: prose keeps the terminal's line breaks: {broken[:2]}")
    return f"contrast ≥ {ratio:.1f}" if ratio is not None else "no values in cells"


CURRENT = "const s = document.querySelector('section.step.current'); return s ? +s.dataset.step : null;"
DISPLAYED = """return Array.from(document.querySelectorAll('section.step'))
    .filter(s => getComputedStyle(s).display !== 'none').map(s => +s.dataset.step);"""


# In presentation mode: the current step and screen ("(2/3)" after its heading, #step-N.2 in the
# URL); whether its box is below the bar and inside the window; the size of its heat maps' cells;
# whether its link in the bar shows its whole heading; the smallest text on screen (paragraphs,
# checks, tables: font size × zoom, in px) outside a block scaled down to fit the screen alone;
# the prose in such a block (none should be).
ON_SCREEN = """const s = document.querySelector('section.step.current'), r = s.getBoundingClientRect();
const bar = document.querySelector('nav').getBoundingClientRect().bottom;
const cells = Array.from(s.querySelectorAll(`rect.cell[data-matrix="${arguments[0]}"]`), (c) => c.getBoundingClientRect().width);
const links = Array.from(document.querySelectorAll('nav a'));
const of = /\\((\\d+)\\/(\\d+)\\)/.exec(s.querySelector('h2').textContent) || [0, 1, 1];
const shown = (e) => e.getClientRects().length > 0;
const text = Array.from(s.querySelectorAll('p.text, ul.checks li, table.data td, table.data th')).filter(shown);
const px = text.filter((e) => !e.closest('.scaled-to-fit'))
    .map((e) => parseFloat(getComputedStyle(e).fontSize) * e.currentCSSZoom);
return [+s.dataset.step, +of[1], +of[2], location.hash,
        r.top >= bar - 1 && r.bottom <= innerHeight + 1 && r.left >= -1 && r.right <= innerWidth + 1,
        [Math.round(r.top), Math.round(r.bottom), Math.round(r.left), Math.round(r.right)],
        cells.length ? Math.min(...cells) : null, links.every((a) => a.scrollWidth <= a.clientWidth + 1),
        px.length ? Math.min(...px) : null,
        text.filter((e) => e.closest('.scaled-to-fit') && !e.closest('table')).map((e) => e.textContent.slice(0, 40))];"""
# From the manifests: a matrix whose presented cells are at least so wide, to read from the back;
# a window other than the tests' 1280 × 800 to present in; a step presented over several screens.
SMALLEST_CELLS = {c.program: tuple(c.tests["presented_cells"]) for c in chapters() if "presented_cells" in c.tests}
PRESENTED_IN = {c.program: tuple(c.tests["presented_window"]) for c in chapters() if "presented_window" in c.tests}
LONG_STEPS = {c.program: c.tests["presented_long_step"] for c in chapters() if "presented_long_step" in c.tests}
# Presented text is at least this high (px) on a 1280 × 800 screen: body text, read from the back.
READABLE_PX = 16


def check_presentation(driver, chapter, body, steps):
    """→ from the first step walks every screen of every step in order; each fits the window
    (scaled up or down to it), its text readable; ← and PageDown move back and on."""
    body.send_keys(Keys.HOME)
    driver.execute_script("document.querySelector('nav a').click()")
    biggest, smallest, walked = 0, None, []
    matrix, wanted = SMALLEST_CELLS.get(chapter, ("", 0))
    for _ in range(200):  # more than any chapter has screens
        step, k, n, hash_, fits, box, cell, whole, px, scaled_prose = driver.execute_script(ON_SCREEN, matrix)
        walked.append((step, k, n))
        if step == steps:  # the last section, the appendix of every matrix, scrolls
            break
        where = f"step {step}" + (f", screen {k}/{n}" if n > 1 else "")
        if not fits:
            failures.append(f"{chapter}: in presentation mode {where} does not fit the window: {box}")
        if hash_ != f"#step-{step}" + (f".{k}" if k > 1 else ""):
            failures.append(f"{chapter}: at {where} the URL ends in {hash_}")
        if px is not None and px < READABLE_PX - 0.05:
            failures.append(f"{chapter}: presented, {where} has text of {px:.1f} px (< {READABLE_PX})")
        if scaled_prose:
            failures.append(f"{chapter}: presented, {where} scales prose down with a figure: {scaled_prose[:1]}")
        if not whole:
            failures.append(f"{chapter}: at {where}, a link in the bar is cut short (…)")
        if cell is not None:
            biggest = max(biggest, cell)
        if px is not None:
            smallest = px if smallest is None else min(smallest, px)
        body.send_keys(Keys.ARROW_RIGHT)
    # In order: each screen of a step, then the next step's first.
    expected = [(1, 1)]
    for step, k, n in walked[:-1]:
        expected.append((step, k + 1) if k < n else (step + 1, 1))
    if [(s, k) for s, k, _ in walked] != expected[:len(walked)] or walked[-1][0] != steps:
        failures.append(f"{chapter}: → walked the screens {[(s, k) for s, k, _ in walked][:12]}…, "
                        f"not every screen of every step in order")
    screens = {s: n for s, _, n in walked}
    if chapter in LONG_STEPS and screens.get(LONG_STEPS[chapter], 1) < 2:
        failures.append(f"{chapter}: step {LONG_STEPS[chapter]} is presented on one screen, not split")
    # ← from the appendix lands on the last screen of the step before; PageDown comes back.
    last = walked[-2] if len(walked) > 1 else None
    body.send_keys(Keys.ARROW_LEFT)
    back = driver.execute_script(ON_SCREEN, "")[:2]
    body.send_keys(Keys.PAGE_DOWN)
    on = driver.execute_script(ON_SCREEN, "")[:2]
    if last and (back != [last[0], last[2]] or on != [steps, 1]):
        failures.append(f"{chapter}: from the last section ← went to {back} (not {[last[0], last[2]]}), "
                        f"then PageDown to {on}")
    if wanted and biggest < wanted:
        failures.append(f"{chapter}: presented, {matrix}'s cells are {biggest:.0f} px wide (< {wanted})")
    split = [f"{s}: {n}" for s, n in sorted(screens.items()) if n > 1]
    return (f"{len(walked) - 1} screens fit the window" + (f" (steps {', '.join(split)})" if split else "")
            + (f", text ≥ {smallest:.0f} px" if smallest else "")
            + (f", {matrix}'s cells {biggest:.0f} px wide" if wanted else ""))


# After Escape: the page as it was, no block hidden or scaled, no screen counted.
LEFT_ALONE = """return Array.from(document.querySelectorAll('.off-screen, .scaled-to-fit')).length
    + Array.from(document.querySelectorAll('section.step')).filter((s) => s.style.zoom).length
    + Array.from(document.querySelectorAll('.screen-of')).filter((e) => e.textContent).length;"""


# What the first view of a family shows now (the first figure of one of its members: a view
# shows one at a time), whether it is on screen, and which cells of a table are marked selected.
OPENED = """const [table, members] = arguments;
const figure = Array.from(document.querySelectorAll('figure.matrix')).find(f => members.includes(f.dataset.matrix));
const box = figure && figure.getClientRects().length ? figure.getBoundingClientRect() : {top: -1};
return [figure ? figure.dataset.matrix : null, box.top >= 0 && box.top < innerHeight,
        Array.from(document.querySelectorAll(`.cell.selected[data-matrix="${table}"]`), c => [+c.dataset.row, +c.dataset.col])];"""
# The head each cell of every drawing of a table opens: [row, col, member] (null where none).
OPENS = """return Array.from(document.querySelectorAll(`.cell[data-matrix="${arguments[0]}"]`),
    c => [+c.dataset.row, +c.dataset.col, c.dataset.opens || null]);"""


def check_opened_heads(driver, chapter, data):
    """Every cell (l, h) of a table that opens heads opens the family's member of layer l, head h.
    On the first such table: Enter or a click on a cell shows that member in the family's first
    view, scrolled into view, and marks the cell; presented, a click goes to the screen that
    shows the view. (One table: each click redraws a view, and presenting takes a second.)"""
    tables = [m for m in data["matrices"] if m["opens"]]
    for m in tables:
        members = {(x["layer"], x["head"]): x["name"] for x in data["matrices"] if x["family"] == m["opens"]}
        wrong = [cell for cell in driver.execute_script(OPENS, m["name"]) if cell[2] != members.get(tuple(cell[:2]))]
        if wrong:
            failures.append(f"{chapter}: {len(wrong)} cells of {m['name']} open another head or none: {wrong[:3]}")
    if tables:
        m = tables[0]
        members = {(x["layer"], x["head"]): x["name"] for x in data["matrices"] if x["family"] == m["opens"]}
        last_layer, last_head = m["shape"][0] - 1, m["shape"][1] - 1
        # Each opens another head than the one shown before (the last, after check_numbers).
        for (layer, head), how in (((0, 0), "Enter"), ((min(1, last_layer), min(2, last_head)), "click"),
                                   ((0, last_head), "presented")):
            cell = driver.find_element(By.CSS_SELECTOR, f'.cell[data-matrix="{m["name"]}"][data-row="{layer}"]'
                                                        f'[data-col="{head}"]')
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", cell)
            if how == "click":
                cell.click()
            elif how == "Enter":
                cell.send_keys(Keys.ENTER)
            else:  # presenting the step of the family's view (the table may be on no screen of it)
                driver.find_element(By.TAG_NAME, "body").send_keys("p")
                driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", cell)
            shown, on_screen, selected = driver.execute_script(OPENED, m["name"], list(members.values()))
            if how == "presented":
                driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
            wanted = members.get((layer, head))
            if shown != wanted or not on_screen or selected != [[layer, head]]:
                failures.append(f"{chapter}: {how} on {m['name']}[{layer}, {head}] shows {shown} "
                                f"({'on' if on_screen else 'off'} screen), not {wanted}; cells selected: {selected}")
    complaints = [e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    if complaints:
        failures.append(f"{chapter}: opening heads, the console says {complaints[:3]}")
    return f"{len(tables)} tables open heads; " if tables else ""


def check_keys(driver, chapter):
    body = driver.find_element(By.TAG_NAME, "body")
    steps = len(driver.find_elements(By.CSS_SELECTOR, "section.step"))
    first = driver.execute_script(CURRENT)
    if first == steps:  # the checks before left the page at its last section: one back first
        body.send_keys(Keys.ARROW_LEFT)
        first = driver.execute_script(CURRENT)
    body.send_keys(Keys.ARROW_RIGHT)
    second = driver.execute_script(CURRENT)
    body.send_keys(Keys.ARROW_LEFT)
    back = driver.execute_script(CURRENT)
    if steps > 1 and not (first is not None and second == first + 1 and back == first):
        failures.append(f"{chapter}: → then ← went {first} → {second} → {back}")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys("p")
    presenting = driver.execute_script(DISPLAYED)
    if presenting != [driver.execute_script(CURRENT)]:
        failures.append(f"{chapter}: in presentation mode, steps {presenting} are displayed, "
                        f"not only the current one")
    if chapter in PRESENTED_IN:
        size = driver.get_window_size()
        driver.set_window_size(*PRESENTED_IN[chapter])
    smallest = check_presentation(driver, chapter, body, steps)
    if chapter in PRESENTED_IN:
        driver.set_window_size(size["width"], size["height"])
    body.send_keys(Keys.ESCAPE)
    if len(driver.execute_script(DISPLAYED)) != steps or driver.execute_script(LEFT_ALONE):
        failures.append(f"{chapter}: after Escape, not every step is displayed as on the page")
    return f"{steps} sections; → ← and p move and present, {smallest}"


def screenshot(driver, chapter):
    # The last model view (chapter 16's trained heads come after their start), else the first
    # head view, else the first heat map: what the page is for, below the bar of steps.
    driver.execute_script("""
        const models = document.querySelectorAll('.model-view');
        const target = models[models.length - 1] || document.querySelector('svg.head-view')
            || document.querySelector('rect.cell');
        if (!target) return;
        const figure = target.closest('figure') || target;
        const bar = document.querySelector('nav');
        window.scrollTo(0, figure.getBoundingClientRect().top + window.scrollY
            - (bar ? bar.getBoundingClientRect().height : 0) - 40);""")
    path = (screenshots / chapter / "explorer.png") if screenshots else OUT / f"{chapter}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    return path


def write_page(chapter):
    """The chapter's run with --html and --dump into OUT/<chapter>/."""
    where = OUT / chapter
    shutil.rmtree(where, ignore_errors=True)
    fast = [] if screenshots else FAST_ARGS.get(chapter, [])
    return subprocess.run(command(BIN / chapter, *fast, "--no-color", "--html", where, "--dump", where / "dump"),
                          capture_output=True, text=True, timeout=600)


def written_page(where, what, largest):
    """The page a run wrote in `where` (its size checked against `largest` bytes), its --dump
    matrices by name, and the lesson's data the page carries."""
    page = where / "index.html"
    size = page.stat().st_size
    if size > largest:
        failures.append(f"{what}: the page is {size} bytes, more than {largest / 1024 / 1024:.0f} MB")
    # a bias dumped as PyTorch's 1-D array (n,) is the page's (1 × n) row
    dumps = {p.stem: np.atleast_2d(np.load(p)) for p in (where / "dump").glob("*.npy")}
    data = json.loads(re.search(r'<script id="lesson" type="application/json">\n(.*?)\n</script>',
                                page.read_text(), re.S).group(1))
    return page, size, dumps, data


def check(driver, chapter, written):
    where = OUT / chapter
    run = written.result()
    if run.returncode != 0:
        failures.append(f"{chapter}: exit {run.returncode}: {run.stderr.strip()[:300]}")
        return
    page, size, dumps, data = written_page(where, chapter, PAGE_ALLOWED.get(chapter, LARGEST_PAGE))
    driver.get_log("browser")  # what an earlier page left
    open_page(driver, page)
    complaints = [e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    if complaints:
        failures.append(f"{chapter}: the console says {complaints[:3]}")
    shot = screenshot(driver, chapter)  # first: as a learner first sees the page
    cells = check_numbers(driver, chapter, dumps, data)
    readable = check_readable(driver, chapter)
    if chapter == "ch20_sparse_attention":
        check_indices_and_tokens(driver, chapter, data)
    tips = check_tooltips(driver, chapter, data)
    hover = check_head_view(driver, chapter, data)
    opened = check_opened_heads(driver, chapter, data)
    keys = check_keys(driver, chapter)
    doc, shown = DOCS / f"{chapter}.md", DOCS / "pictures" / chapter / "explorer.png"
    if doc.exists() and f"](pictures/{chapter}/explorer.png)" not in doc.read_text():
        failures.append(f"{chapter}: docs/{doc.name} does not show the page's screenshot")
    if not shown.exists():
        failures.append(f"{chapter}: no screenshot in {shown.relative_to(DOCS.parent)} (./tutorial bless)")
    print(f"{chapter}: {size / 1024:.0f} KiB, {cells} cells = --dump; {readable}; {tips}; {hover}; {opened}"
          f"{keys}; {shot.name}")


# Chapter 18 at its largest sizes (its --help): matrices of up to 4096 columns, which the page
# holds as their corners; whole, they made a page of 364 MB.
LARGEST_RUN = ["--heads", "64", "--head-dim", "64", "--latent", "512", "--q-latent", "512", "--rope-dim", "64",
               "--d-model", "512"]
LARGEST_ANY_PAGE = 10 * 1024 * 1024  # bytes, for any input


def check_largest_page(driver):
    """The page of chapter 18's largest sizes: at most 10 MB, and its elided matrices honest."""
    chapter = "ch18_latent_attention"
    where = OUT / "largest"
    shutil.rmtree(where, ignore_errors=True)
    run = subprocess.run([BIN / chapter, *LARGEST_RUN, "--no-color", "--html", where, "--dump", where / "dump"],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        failures.append(f"{chapter} at its largest: exit {run.returncode}: {run.stderr.strip()[:300]}")
        return
    page, size, dumps, data = written_page(where, f"{chapter} at its largest", LARGEST_ANY_PAGE)
    open_page(driver, page)
    cells = check_numbers(driver, f"{chapter} at its largest", dumps, data)
    elided = sum(1 for m in dumps.values() if m.ndim == 2 and max(m.shape) > CORNER)
    print(f"{chapter} at its largest: {size / 1024 / 1024:.1f} MB, {cells} cells = --dump, "
          f"{elided} matrices held as their {CORNER} × {CORNER} corner")


MARKUP_TOKENS = ["</script>", "<b>bold</b>", '"quoted"', "a&b", "<!--"]


def check_markup_tokens(driver):
    """Tokens are text, not markup: the data and the labels survive them."""
    where = OUT / "markup_tokens"
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    csv = where / "tokens.csv"
    csv.write_text("token,d0,d1\n" + "".join(
        f'"{t.replace(chr(34), chr(34) * 2)}",{i},{1 - i}\n' for i, t in enumerate(MARKUP_TOKENS)))
    run = subprocess.run([BIN / "ch01_dot_product_scores", "--no-color", "--input", csv, "--html", where],
                         capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        failures.append(f"tokens with markup: ch01 exit {run.returncode}: {run.stderr.strip()[:200]}")
        return
    driver.get_log("browser")
    open_page(driver, where / "index.html")
    complaints = [e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    labels = set(driver.execute_script("return Array.from(document.querySelectorAll('svg text'), t => t.textContent)"))
    missing = [t for t in MARKUP_TOKENS if t not in labels]
    if complaints or missing:
        failures.append(f"tokens with markup: console {complaints[:2]}, labels not shown as written: {missing}")
    else:
        print(f"tokens with markup: {', '.join(MARKUP_TOKENS)} shown as written, no console error")


OUT.mkdir(parents=True, exist_ok=True)
# The chapters run one after another in a thread of their own, ahead of the browser's checks.
runs = concurrent.futures.ThreadPoolExecutor(max_workers=1)
written = {chapter: runs.submit(write_page, chapter) for chapter in chosen}
driver = browser()
try:
    for chapter in chosen:
        try:
            check(driver, chapter, written[chapter])
        except Exception as e:  # a page that breaks the test is a failure of that page
            failures.append(f"{chapter}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    if "ch01_dot_product_scores" in chosen:
        check_markup_tokens(driver)
    if "ch18_latent_attention" in chosen:
        check_largest_page(driver)
finally:
    driver.quit()
    runs.shutdown(cancel_futures=True)
for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
