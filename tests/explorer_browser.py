"""Every chapter's page (--html) in a real browser: Debian's headless Chromium, driven by Selenium.

    python3 tests/explorer_browser.py BIN_DIR OUT_DIR [--screenshots DIR] [CHAPTER…]
    (ctest runs it as explorer_browser; ./tutorial bless passes --screenshots docs/pictures)

Each chapter runs once (with the fast flags of tests/fast_args.py; with --screenshots, its default
run, which its doc shows) with --html and --dump into OUT_DIR/<chapter>/, and its page is opened
from file://. Then:
  - the page is at most 2 MB, and loads with no console error or warning;
  - every matrix of the dump has cells on the page (a head that a model view holds once its
    thumbnail is clicked), and every cell's number (data-value, read from the DOM) is the
    dump's float32 at its row and column;
  - hovering a heat-map cell shows its value, its row and column labels and its formula;
    every chart of the lesson is drawn, and hovering a point shows its series, x and y;
  - in a head view, hovering a query token leaves only that token's lines, one per key;
    hovering a key token leaves only the lines into it; moving away shows them all again;
  - → makes the next step the current one and ← the one before; p shows only the current step
    (presentation), Escape leaves it;
  - a screenshot of the page (PNG, 1280 × 800) is written to OUT_DIR/<chapter>.png, or with
    --screenshots DIR to DIR/<chapter>/explorer.png; the chapter's doc shows the one in
    docs/pictures/<chapter>/explorer.png (./tutorial bless writes them).
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
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fast_args import FAST_ARGS  # noqa: E402
from launch import command  # noqa: E402
from printed_numbers import chapter_programs  # noqa: E402

LARGEST_PAGE = 2 * 1024 * 1024  # bytes
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


def browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,800", "--force-device-scale-factor=1", "--hide-scrollbars"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                            options=options)


# Every heat-map cell of the page, read in one call: [matrix, row, col, value as written].
CELLS = """return Array.from(document.querySelectorAll('rect.cell'),
    c => [c.dataset.matrix, +c.dataset.row, +c.dataset.col, c.dataset.value]);"""


def same_number(written, expected):
    """The page writes a non-finite entry as the data does: "inf", "-inf" or "nan"."""
    value = float(written)  # float() reads those three too
    if np.isnan(expected):
        return np.isnan(value)
    return np.float32(value) == np.float32(expected)


def open_page(driver, page):
    """Opens the page and waits until every step is drawn (the page draws them after the first)."""
    driver.get(page.as_uri())
    WebDriverWait(driver, 20, poll_frequency=0.02).until(lambda d: d.execute_script("return document.body.dataset.drawn === 'all'"))


# A matrix a step shows through its group's model view (chapter 16: one view for every head)
# is drawn when its thumbnail is clicked: click each such one, and read its cells then.
UNDRAWN_MEMBERS = """const drawn = new Set(Array.from(document.querySelectorAll('rect.cell'), c => c.dataset.matrix));
return Array.from(document.querySelectorAll('.model-cell[data-member]'), c => c.dataset.member)
    .filter(name => !drawn.has(name));"""
CLICK_MEMBER = """const cell = document.querySelector(`.model-cell[data-member="${arguments[0]}"]`);
cell.click();
return Array.from(document.querySelectorAll(`rect.cell[data-matrix="${arguments[0]}"]`),
    c => [c.dataset.matrix, +c.dataset.row, +c.dataset.col, c.dataset.value]);"""


def check_numbers(driver, chapter, dumps):
    cells = driver.execute_script(CELLS)
    for member in sorted(set(driver.execute_script(UNDRAWN_MEMBERS))):
        cells += driver.execute_script(CLICK_MEMBER, member)
    seen, wrong = set(), []
    for name, i, j, written in cells:
        seen.add(name)
        if name not in dumps:
            wrong.append(f"{name}: not a dumped matrix")
            continue
        m = dumps[name]
        if i >= m.shape[0] or j >= m.shape[1] or not same_number(written, m[i, j]):
            wrong.append(f"{name}[{i}, {j}] = {written} on the page, "
                         f"{m[i, j] if i < m.shape[0] and j < m.shape[1] else 'outside'} in the dump")
    missing = sorted(set(dumps) - seen)
    if missing:
        failures.append(f"{chapter}: matrices with no cell on the page: {missing}")
    if wrong:
        failures.append(f"{chapter}: {len(wrong)} cells differ from --dump, e.g. {wrong[:3]}")
    return len(cells)


VISIBLE_LINES = """return Array.from(arguments[0].querySelectorAll('line.hv-line'))
    .filter(l => getComputedStyle(l).display !== 'none').map(l => [+l.dataset.query, +l.dataset.key]);"""


def check_head_view(driver, chapter):
    view = driver.execute_script(
        "return Array.from(document.querySelectorAll('svg.head-view')).find(v => v.getClientRects().length > 0)")
    if view is None:
        return "no head view"
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", view)
    away = driver.find_element(By.CSS_SELECTOR, "nav")  # the bar stays on screen: the mouse rests there
    ActionChains(driver, duration=0).move_to_element(away).perform()
    queries = view.find_elements(By.CSS_SELECTOR, ".hv-query")
    keys = view.find_elements(By.CSS_SELECTOR, ".hv-key")
    everything = len(driver.execute_script(VISIBLE_LINES, view))
    if everything != len(queries) * len(keys):
        failures.append(f"{chapter}: a head view shows {everything} lines, not {len(queries)} × {len(keys)}")
    for token, side, other in ((queries[-1], 0, len(keys)), (keys[0], 1, len(queries))):
        index = int(token.get_attribute("data-index"))
        ActionChains(driver, duration=0).move_to_element(token).perform()
        shown = driver.execute_script(VISIBLE_LINES, view)
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


def check_tooltips(driver, chapter, data):
    """A cell's tooltip names its value, labels and formula; a chart point's its series and numbers."""
    told = []
    cell, name, i, j = driver.execute_script(
        "const c = document.querySelector('rect.cell'); return [c, c.dataset.matrix, +c.dataset.row, +c.dataset.col];")
    m = next(m for m in data["matrices"] if m["name"] == name)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", cell)
    ActionChains(driver, duration=0).move_to_element(cell).perform()
    tip = driver.execute_script(TOOLTIP) or ""
    wanted = [f"{m['name']}[{i}, {j}]", m["rows"][i], m["cols"][j], m["formula"]]
    if any(w not in tip for w in wanted):
        failures.append(f"{chapter}: the tooltip of {m['name']}[{i}, {j}] is {tip!r}, not naming {wanted}")
    told.append("cell tooltip")
    charts = [b for step in data["steps"] for b in step["blocks"] if b["kind"] == "chart"]
    if charts:
        count, series = driver.execute_script(
            "const p = document.querySelectorAll('circle.point'); return [p.length, Array.from(p, q => q.dataset.series)];")
        series = set(series)
        missing = [s["label"] for c in charts for s in c["series"] if s["label"] not in series]
        if missing:
            failures.append(f"{chapter}: no points drawn for the series {missing}")
        # A point on top of its place (curves can share a point: the last drawn is the one hovered).
        point = driver.execute_script("""
            const points = document.querySelectorAll('circle.point');
            points[0].closest('svg').scrollIntoView({block: 'center'});
            for (const p of points) {
                const r = p.getBoundingClientRect();
                if (document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === p) return p;
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


CURRENT = "const s = document.querySelector('section.step.current'); return s ? +s.dataset.step : null;"
DISPLAYED = """return Array.from(document.querySelectorAll('section.step'))
    .filter(s => getComputedStyle(s).display !== 'none').map(s => +s.dataset.step);"""


def check_keys(driver, chapter):
    body = driver.find_element(By.TAG_NAME, "body")
    steps = len(driver.find_elements(By.CSS_SELECTOR, "section.step"))
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
    body.send_keys(Keys.ESCAPE)
    if len(driver.execute_script(DISPLAYED)) != steps:
        failures.append(f"{chapter}: after Escape, not every step is displayed")
    return f"{steps} sections; → ← and p move and present"


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


def check(driver, chapter, written):
    where = OUT / chapter
    run = written.result()
    if run.returncode != 0:
        failures.append(f"{chapter}: exit {run.returncode}: {run.stderr.strip()[:300]}")
        return
    page = where / "index.html"
    size = page.stat().st_size
    if size > LARGEST_PAGE:
        failures.append(f"{chapter}: the page is {size} bytes, more than 2 MB")
    dumps = {p.stem: np.load(p) for p in (where / "dump").glob("*.npy")}
    data = json.loads(re.search(r'<script id="lesson" type="application/json">\n(.*?)\n</script>',
                                page.read_text(), re.S).group(1))
    driver.get_log("browser")  # what an earlier page left
    open_page(driver, page)
    complaints = [e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    if complaints:
        failures.append(f"{chapter}: the console says {complaints[:3]}")
    shot = screenshot(driver, chapter)  # first: as a learner first sees the page
    cells = check_numbers(driver, chapter, dumps)
    tips = check_tooltips(driver, chapter, data)
    hover = check_head_view(driver, chapter)
    keys = check_keys(driver, chapter)
    doc, shown = DOCS / f"{chapter}.md", DOCS / "pictures" / chapter / "explorer.png"
    if doc.exists() and f"](pictures/{chapter}/explorer.png)" not in doc.read_text():
        failures.append(f"{chapter}: docs/{doc.name} does not show the page's screenshot")
    if not shown.exists():
        failures.append(f"{chapter}: no screenshot in {shown.relative_to(DOCS.parent)} (./tutorial bless)")
    print(f"{chapter}: {size / 1024:.0f} KiB, {cells} cells = --dump; {tips}; {hover}; {keys}; {shot.name}")


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
finally:
    driver.quit()
    runs.shutdown(cancel_futures=True)
for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
