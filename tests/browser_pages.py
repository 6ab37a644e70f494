"""What the tests of the pages share: headless Chromium through Selenium, a page opened and drawn,
every heat-map cell of it read, and the cells held against a --dump (tests/explorer_browser.py,
tests/live_page.py)."""
import shutil

import numpy as np

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait


def browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,800", "--force-device-scale-factor=1", "--hide-scrollbars"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                            options=options)


# The heat-map cells under a root element as the tests read them: [matrix, row, col, value as
# written], from a rect or table cell each, and from every cell of a map drawn as one image of
# pixels (explorer/draw/heat_map.js: GRID_CELLS), whose values the image holds (JavaScript).
CELLS_UNDER = """(root) => {
  const cells = Array.from(root.querySelectorAll('.cell[data-matrix]'),
                           c => [c.dataset.matrix, +c.dataset.row, +c.dataset.col, c.dataset.value]);
  for (const g of root.querySelectorAll('.cell-grid[data-matrix]'))
    for (let i = 0; i < +g.dataset.rows; i++) for (let j = 0; j < +g.dataset.cols; j++)
      cells.push([g.dataset.matrix, i, j, String(g.cellValues[i][j])]);
  return cells;
}"""
# Every heat-map cell of the page, read in one call.
CELLS = f"return ({CELLS_UNDER})(document);"


def open_page(driver, page):
    """Opens the page and waits until every step is drawn (the page draws them after the first)."""
    driver.get(page.as_uri())
    WebDriverWait(driver, 20, poll_frequency=0.02).until(lambda d: d.execute_script("return document.body.dataset.drawn === 'all'"))


# A matrix a step shows through its group's model view (chapter 16: one view for every head)
# is drawn when its thumbnail is clicked: click each such one, and read its cells then.
UNDRAWN_MEMBERS = """const drawn = new Set(Array.from(document.querySelectorAll('.cell[data-matrix], .cell-grid[data-matrix]'), c => c.dataset.matrix));
return Array.from(document.querySelectorAll('.model-cell[data-member]'), c => c.dataset.member)
    .filter(name => !drawn.has(name));"""
CLICK_MEMBER = """const cell = document.querySelector(`.model-cell[data-member="${arguments[0]}"]`);
cell.click();
return (""" + CELLS_UNDER + """)(document).filter(c => c[0] === arguments[0]);"""


# A large matrix of the appendix is drawn when its button is clicked: click them all.
DRAW_LATER = """for (const b of document.querySelectorAll('figure.matrix-later button.draw-later')) b.click();"""


def page_cells(driver):
    """Every cell of the page, with those of the large matrices of the appendix and of the heads a
    model view draws once clicked."""
    driver.execute_script(DRAW_LATER)
    cells = driver.execute_script(CELLS)
    for member in sorted(set(driver.execute_script(UNDRAWN_MEMBERS))):
        cells += driver.execute_script(CLICK_MEMBER, member)
    return cells


def cells_against_dump(cells, dumps, same):
    """Where the page's cells and the --dump disagree: a line for each cell that differs (same(written,
    expected) compares one number), and the dumped matrices with no cell on the page. A 1-D array
    (n,), as PyTorch dumps a bias, is the page's (1 × n) row."""
    wrong, seen = [], set()
    for name, i, j, written in cells:
        seen.add(name)
        if name not in dumps:
            wrong.append(f"{name}: on the page, not in the dump")
            continue
        m = np.atleast_2d(dumps[name])
        inside = i < m.shape[0] and j < m.shape[1]
        if not inside or not same(written, m[i, j]):
            wrong.append(f"{name}[{i}, {j}]: {written} on the page, {m[i, j] if inside else 'outside'} in the dump")
    return wrong, sorted(set(dumps) - seen)
