"""The pages that compute (explorer/live/*.js), in a real browser: Debian's headless Chromium.

    python3 tests/live_page.py BIN_DIR WASM_DIR OUT_DIR [CHAPTER…]
    (ctest runs it as live_page, for chapters 01, 05, 07, 21 and 22)

Each chapter's page is written by its native program (--html, default run) with its WebAssembly
build beside it (WASM_DIR/<program>.pack), then opened from file://. Then:
  - every flag of the chapter's --list-options but its files is a knob (data-flag="--name"),
    the sentence (--text) the first of them;
  - a new sentence is typed and a knob changed (a number but on chapter 01): the page reruns the chapter in its
    worker, and every matrix on the page equals the native program's --dump of the same
    arguments within 1e-5 (relative to the larger of 1 and the number); the same comparison
    of a page whose numbers are off by 1e-3 fails (so this test can fail);
  - the self-checks on the page are those the native run printed (✓ or ✗, in order);
  - the URL holds the arguments: opening it anew reruns them, and the cells are the same;
  - an out-of-range value shows the chapter's own message (its native stderr) beside its knob,
    and the page keeps the last result's cells;
  - no console error or warning;
  - on chapter 22, a training (--train) runs in the worker and the stop button stops it; the
    page keeps its result and the next change computes again;
  - on chapter 22, whose runs are slow, a new sentence draws the step in view first, from a run
    of that step alone: its cells equal the native --dump, the other steps are dimmed until the
    whole run has drawn them again; a recipe that trains is run whole at once (no step first),
    and the model it trained is read back by the next change, not trained again (also after a
    stopped training, by the worker that replaces the stopped one);
  - on chapter 21, GPT-2's tokenizer (its files carried beside the page) on an accent and an
    emoji: the cells and self-checks of the native run;
  - on chapter 22, the writing: "next token" adds one to --generate and draws the writing step
    (odds as bars, each head's attention as lines), the URL keeps it, the page's text and cells
    are the terminal's; "play" writes on until paused, then the whole run, the terminal's text.
"""
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from browser_pages import CELLS, CELLS_UNDER, browser, cells_against_dump, open_page, page_cells  # noqa: E402

TOLERANCE = 1e-5
OFF = 1e-3  # a page off by this much must fail the comparison
SECONDS = 600

# What each chapter's test types and changes: (the sentence, a knob and its new value, a value of
# that knob the chapter refuses). Chapter 01 has no number flag: its --query names a token.
CHANGES = {
    "ch01": ("The whale swam to the ship.", "--query", "he", "dog"),  # its one knob besides: a token
    "ch05": ("Call me Ishmael.", "--layer", "1", "7"),
    "ch07": ("The sea was calm that day.", "--heads", "4", "0"),
    "ch21": ("Call me Ishmael.", "--vocab", "300", "99"),
    "ch22": ("Ahab looked at the sea.", "--temperature", "1.5", "0"),
}


def native(program, args, out):
    """The native run of the same arguments: its --dump, its printed checks, its stderr and code."""
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([str(program), "--no-color", *args, "--dump", str(out)], capture_output=True, text=True,
                       timeout=SECONDS)
    dumps = {f.stem: np.load(f) for f in out.glob("*.npy")} if p.returncode in (0, 1) else {}
    checks = [line[0] for line in p.stdout.splitlines() if line[:1] in ("✓", "✗")]
    return dumps, checks, p.stderr.strip(), p.returncode


def same_number(written, expected):
    value = float(written)
    return value == expected or np.isnan(expected) and np.isnan(value) or \
        abs(value - expected) <= TOLERANCE * max(1.0, abs(expected))


def compare(cells, dumps):
    """What differs between the page's cells and the dump: (lines, matrices with no cell), empty when all agree."""
    return cells_against_dump(cells, dumps, same_number)


def page_checks(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('ul.checks li .mark'), m => m.textContent)"
        ".filter(m => m === '✓' || m === '✗');")


def complaints(driver):
    return [e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def runs(driver):
    return int(driver.execute_script("return +(document.body.dataset.runs || 0)"))


def wait_run(driver, before):
    WebDriverWait(driver, SECONDS, poll_frequency=0.05).until(
        lambda d: runs(d) > before and d.execute_script("return window.liveIdle()"))
    WebDriverWait(driver, 60, poll_frequency=0.05).until(
        lambda d: d.execute_script("return document.body.dataset.drawn === 'all'"))


def knob(driver, flag):
    return driver.find_element(By.CSS_SELECTOR, f'form.knobs [data-flag="{flag}"]')


def set_knob(driver, flag, value):
    field = knob(driver, flag)
    before = runs(driver)
    # One call: the old value selected, then replaced as the first key lands. (Emptied first, in
    # calls of their own, the field could sit empty past the page's 250 ms pause on a loaded
    # machine, and the page computed the default in between: a bad value then "kept" that.)
    field.send_keys(Keys.CONTROL, "a", Keys.NULL, value)
    wait_run(driver, before)


def page_arguments(driver):
    return driver.execute_script("return window.liveArguments()")


def check_chapter(driver, program, wasm_dir, out, failures):
    short = program.name[:4]
    sentence, flag, value, bad = CHANGES[short]
    where = out / program.name
    shutil.rmtree(where, ignore_errors=True)
    p = subprocess.run([str(program), "--no-color", "--html", str(where)], capture_output=True, text=True,
                       timeout=SECONDS)
    if p.returncode != 0:
        failures.append(f"{program.name} --html: exit {p.returncode} {p.stderr.strip()}")
        return
    listed = json.loads(subprocess.run([str(program), "--list-options"], capture_output=True, text=True).stdout)
    open_page(driver, where / "index.html")
    driver.get_log("browser")
    flags = driver.execute_script("return Array.from(document.querySelectorAll('form.knobs [data-flag]'), e => e.dataset.flag)")
    expected = [o["name"] for o in listed["options"] if o["type"] not in ("PATH", "DIR")]  # (all four take --text)
    if sorted(flags) != sorted(expected):
        failures.append(f"{program.name}: knobs {flags}, expected {expected}")
    if not flags:  # a page without knobs cannot be tried further
        return
    if "--text" in expected and flags[0] != "--text":
        failures.append(f"{program.name}: the first knob is {flags[0]}, not --text")

    # a new sentence, then a number knob: the worker reruns, the numbers are the native ones
    set_knob(driver, "--text", sentence)
    set_knob(driver, flag, value)
    args = page_arguments(driver)
    if args != ["--text", sentence, flag, value] and sorted(args) != sorted(["--text", sentence, flag, value]):
        failures.append(f"{program.name}: the page ran {args}")
    dumps, checks, _, code = native(program, args, out / f"{program.name}.dump")
    cells = page_cells(driver)
    wrong, missing = compare(cells, dumps)
    failures += [f"{program.name} {args}: {w}" for w in wrong[:10]]
    failures += [f"{program.name} {args}: {name} in the dump, not on the page" for name in missing]
    if not cells:
        failures.append(f"{program.name}: no cells on the page")
    else:  # the same comparison must catch a page off by 1e-3
        name, i, j, written = next(c for c in cells if float(c[3]) != 0.0)
        off = [(name, i, j, repr(float(written) * (1 + OFF)))]
        if not compare(off, {name: dumps[name]})[0]:
            failures.append(f"{program.name}: a cell off by {OFF} passes the comparison")
    if page_checks(driver) != checks:
        failures.append(f"{program.name}: the page's self-checks {page_checks(driver)}, native {checks}")
    shown = driver.execute_script("return document.body.dataset.runMs")
    print(f"{program.name}: rerun with {args} in {shown} ms; {len(cells)} cells equal the native --dump")

    # the URL keeps the arguments: the page opened at it computes them again
    url = driver.current_url
    driver.get("about:blank")
    driver.get(url)
    wait_run(driver, 0)
    again, _ = compare(page_cells(driver), dumps)
    if again or page_arguments(driver) != args:
        failures.append(f"{program.name}: the page opened at {url} ran {page_arguments(driver)}: {again[:3]}")

    # an out-of-range value: the chapter's message beside the knob, the last result kept
    before_cells = page_cells(driver)
    bad_args = [a if a != value else bad for a in args]
    _, _, message, code = native(program, bad_args, out / f"{program.name}.bad")
    set_knob(driver, flag, bad)
    shown = driver.execute_script(
        "return arguments[0].closest('label').querySelector('.knob-error').textContent", knob(driver, flag))
    if code != 2 or not shown or shown not in message:
        failures.append(f"{program.name} {flag} {bad}: beside the knob {shown!r}; native (exit {code}) {message!r}")
    if sorted(map(tuple, page_cells(driver))) != sorted(map(tuple, before_cells)):
        failures.append(f"{program.name} {flag} {bad}: the page did not keep its last result")
    failures += [f"{program.name}: console: {c}" for c in complaints(driver)]


def program_names():
    from chapters import chapters  # noqa: E402
    return [c.program for c in chapters() if c.program[:4] in CHANGES]


def check_stop(driver, failures):
    """Chapter 22's training in the worker: stopped by its button, the page goes on."""
    set_knob(driver, "--temperature", "1.2")  # a good value again after the refused one
    field = knob(driver, "--train")
    before = len(driver.execute_script(CELLS))
    field.click()
    WebDriverWait(driver, 60, poll_frequency=0.05).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "form.knobs .live-stop").is_displayed())
    time.sleep(1)
    driver.find_element(By.CSS_SELECTOR, "form.knobs .live-stop").click()
    stopped = driver.execute_script("return document.body.dataset.stopped === 'yes' && document.body.dataset.running === 'no'")
    after = len(driver.execute_script(CELLS))
    if not stopped or after != before:
        failures.append(f"ch22 --train: the stop button left running={stopped}, cells {before} → {after}")
    field.click()  # off again: the next change computes with a new worker
    set_knob(driver, "--temperature", "0.9")
    if driver.execute_script("return document.body.dataset.running") != "no":
        failures.append("ch22: after the stop, a change did not compute")
    failures += [f"ch22: console: {c}" for c in complaints(driver)]


# A new sentence; then, as soon as the page has drawn the step in view (arguments[1]) from a
# run of that step alone, its cells, and which steps are dimmed (the whole run is still computing).
STEP_FIRST = """const done = arguments[arguments.length - 1], [sentence, step] = arguments;
const before = +(document.body.dataset.stepRuns || 0);
const field = document.querySelector('form.knobs [data-flag="--text"]');
field.value = sentence;
field.dispatchEvent(new Event('change', {bubbles: true}));
const wait = () => {
  if (+(document.body.dataset.stepRuns || 0) === before) { setTimeout(wait, 2); return; }
  const inView = document.querySelector(`section.step[data-step="${step}"]`);
  done({cells: (""" + CELLS_UNDER + """)(inView),
        dimmed: Array.from(document.querySelectorAll('section.step'), s => s.classList.contains('stale'))});
};
wait();"""


def check_step_first(driver, program, out, failures):
    """Chapter 22: the step in view is drawn from a run of it alone, then the whole run."""
    listed = subprocess.run([str(program), "--list-steps"], capture_output=True, text=True).stdout
    step = next(int(words[0]) for words in map(str.split, listed.splitlines()) if words[1:2] == ["your-sentence"])
    driver.execute_script(f"location.hash = '#step-{step}' + location.hash.replace(/^[^&]*/, '')")
    before = runs(driver)
    seen = driver.execute_async_script(STEP_FIRST, "Queequeg smoked his pipe.", step)
    wait_run(driver, before)
    args = page_arguments(driver)
    dumps, _, _, _ = native(program, args, out / f"{program.name}.step")
    wrong, _ = compare(seen["cells"], dumps)
    failures += [f"{program.name} {args}, step {step} drawn first: {w}" for w in wrong[:10]]
    if not seen["cells"]:
        failures.append(f"{program.name}: step {step} drawn first has no cells")
    expected = [k + 1 != step for k in range(len(seen["dimmed"]))]
    if seen["dimmed"] != expected:
        failures.append(f"{program.name}: while the whole run computed, dimmed {seen['dimmed']}, expected {expected}")
    if driver.execute_script("return document.querySelectorAll('section.step.stale').length"):
        failures.append(f"{program.name}: steps still dimmed after the whole run")
    print(f"{program.name}: step {step} drawn first in {driver.execute_script('return document.body.dataset.stepMs')} ms"
          f" ({len(seen['cells'])} cells equal the native --dump), the whole run in"
          f" {driver.execute_script('return document.body.dataset.runMs')} ms")
    # a recipe of its own trains: the step alone gives way to the whole run, which trains it once
    step_runs = "return +(document.body.dataset.stepRuns || 0)"
    drawn_first = driver.execute_script(step_runs)
    set_knob(driver, "--steps", "20")
    if driver.execute_script(step_runs) != drawn_first:
        failures.append(f"{program.name} --steps 20: the step alone was drawn first, training the model twice")
    # what the page trained is kept while it is open: a change that keeps the recipe reads it back
    trained = "return document.body.dataset.trained"
    if driver.execute_script(trained) != "yes":
        failures.append(f"{program.name} --steps 20: the page did not say it trained")
    set_knob(driver, "--sample-seed", "2")
    if driver.execute_script(trained) != "no":
        failures.append(f"{program.name} --steps 20, then --sample-seed 2: trained again, not read back")
    # a training stopped: the worker that replaces the stopped one gets what the page kept
    driver.execute_script("const k = document.querySelector('form.knobs [data-flag=\"--steps\"]');"
                          "k.value = '300'; k.dispatchEvent(new Event('change', {bubbles: true}));")
    WebDriverWait(driver, 60, poll_frequency=0.05).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "form.knobs .live-stop").is_displayed())
    driver.find_element(By.CSS_SELECTOR, "form.knobs .live-stop").click()
    set_knob(driver, "--steps", "20")
    if driver.execute_script(trained) != "no":
        failures.append(f"{program.name} --steps 20 after a stopped training: trained again, not read back")


# The writing step's last paragraph, "The text (prompt ▸ written): …", as the page shows it.
WRITTEN = """const p = Array.from(document.querySelectorAll('section.step p.text'))
  .filter(e => e.textContent.startsWith('The text (prompt')).pop();
return p ? p.textContent : null;"""


def native_text(program, args):
    """The native run's "The text (prompt ▸ written):" line and the one after it, joined as the page flows them."""
    lines = subprocess.run([str(program), "--no-color", *args, "--step", "writing"], capture_output=True, text=True,
                           timeout=SECONDS).stdout.splitlines()
    at = next((k for k, line in enumerate(lines) if line.startswith("The text (prompt")), None)
    return None if at is None else f"{lines[at]} {lines[at + 1]}"


def generated(driver):
    return int(driver.execute_script("return +document.querySelector('form.knobs [data-flag=\"--generate\"]').value"))


def check_writing(driver, program, page, out, failures):
    """Chapter 22's writing: "next token" and "play" write on, the same text as the terminal's."""
    driver.get("about:blank")
    driver.get(f"{page.as_uri()}#step-1&--prompt=Call%20me&--generate=3")
    wait_run(driver, 0)
    top = driver.execute_script("return window.scrollY")
    if top != 0:
        failures.append(f"{program.name}: #step-1 opens the page {top} px down, its knobs out of view")
    for _ in range(2):
        before = runs(driver)
        driver.find_element(By.CSS_SELECTOR, "form.knobs button.one-more:not(.play)").click()
        wait_run(driver, before)
    args = page_arguments(driver)
    if generated(driver) != 5 or "--generate" not in args or args[args.index("--generate") + 1] != "5":
        failures.append(f"{program.name}: after two clicks of next token, the page ran {args}")
    if "--generate=5" not in driver.current_url:
        failures.append(f"{program.name}: the URL {driver.current_url} does not keep --generate=5")
    expected = native_text(program, args)
    shown = driver.execute_script(WRITTEN)
    if shown is None or shown != expected:
        failures.append(f"{program.name} {args}: the page wrote {shown!r}, the terminal {expected!r}")
    dumps, _, _, _ = native(program, args, out / f"{program.name}.writing")
    wrong, missing = compare(page_cells(driver), dumps)
    failures += [f"{program.name} {args}: {w}" for w in wrong[:10]]
    failures += [f"{program.name} {args}: {name} in the dump, not on the page" for name in missing]
    bars = driver.execute_script("return document.querySelectorAll('.table-wrap.bars td.bar').length")
    views = driver.execute_script("return document.querySelectorAll('svg.head-view[data-matrix$=\"_writing\"]').length")
    if bars < 2 * 5 * 5 - 2 or views < 1:
        failures.append(f"{program.name} {args}: {bars} odds drawn as bars, {views} head views of the writing")
    # play: a token every while, until paused; then the whole run, and the terminal's text again
    driver.find_element(By.CSS_SELECTOR, "form.knobs button.one-more.play").click()
    WebDriverWait(driver, SECONDS, poll_frequency=0.05).until(lambda d: generated(d) >= 8)
    driver.find_element(By.CSS_SELECTOR, "form.knobs button.one-more.play").click()
    WebDriverWait(driver, SECONDS, poll_frequency=0.05).until(
        lambda d: d.execute_script("return window.liveIdle() && !document.querySelector('section.step.stale')"
                                   " && document.body.dataset.running === 'no'"))
    args = page_arguments(driver)
    expected, shown = native_text(program, args), driver.execute_script(WRITTEN)
    if generated(driver) < 8 or shown != expected:
        failures.append(f"{program.name}: played to {args}: the page wrote {shown!r}, the terminal {expected!r}")
    print(f"{program.name}: next token, then play to --generate {generated(driver)}: {shown}")
    # play to the end of the context (3 prompt tokens + 61 = 64): refused one more, it stops at 61
    driver.get("about:blank")
    driver.get(f"{page.as_uri()}#step-1&--prompt=Call%20me&--generate=59")
    wait_run(driver, 0)
    driver.find_element(By.CSS_SELECTOR, "form.knobs button.one-more.play").click()
    WebDriverWait(driver, SECONDS, poll_frequency=0.05).until(
        lambda d: d.execute_script("return document.body.dataset.playing === 'no' && window.liveIdle()"
                                   " && !document.querySelector('section.step.stale') && document.body.dataset.running === 'no'"))
    said = driver.execute_script("return document.querySelector('.live-state').textContent")
    args = page_arguments(driver)
    if generated(driver) != 61 or args[args.index("--generate") + 1] != "61" or "The play stopped: --generate 62" not in said:
        failures.append(f"{program.name}: played to the end of the context: {args}, the page says {said!r}")
    print(f"{program.name}: played to the context's end, --generate {generated(driver)}: {said}")
    # a sentence the model cannot read, then next token: refused, said, the count kept
    for click in (False, True):
        before = runs(driver)
        if click:
            driver.find_element(By.CSS_SELECTOR, "form.knobs button.one-more:not(.play)").click()
        else:
            driver.execute_script("const k = document.querySelector(`form.knobs [data-flag='--text']`);"
                                  "k.value = 'жук'; k.dispatchEvent(new Event('change', {bubbles: true}));")
        WebDriverWait(driver, SECONDS, poll_frequency=0.05).until(
            lambda d: runs(d) > before and d.execute_script("return window.liveIdle()"))
    said = driver.execute_script("return document.querySelector('.live-state').textContent")
    if generated(driver) != 61 or "next token: not written (--text: the character 'ж'" not in said:
        failures.append(f"{program.name}: next token after a refused --text: --generate {generated(driver)}, "
                        f"the page says {said!r}")
    failures += [f"{program.name}: console: {c}" for c in complaints(driver)]
    print(f"{program.name}: next token after a refused --text: {said}")


def check_gpt2(driver, program, out, failures):
    """Chapter 21's --tokenizer gpt2 in the browser (GPT-2's files carried beside the page): an accent
    and an emoji, as the native program splits them."""
    # (--vocab first: a good value again after the refused one)
    for flag, value in (("--vocab", "300"), ("--tokenizer", "gpt2"), ("--text", "café 🐋 the whale!")):
        before = runs(driver)
        driver.execute_script("const k = document.querySelector(`form.knobs [data-flag='${arguments[0]}']`);"
                              "k.value = arguments[1]; k.dispatchEvent(new Event('change', {bubbles: true}));", flag, value)
        wait_run(driver, before)
    args = page_arguments(driver)
    dumps, checks, _, _ = native(program, args, out / f"{program.name}.gpt2")
    cells = page_cells(driver)
    wrong, missing = compare(cells, dumps)
    failures += [f"{program.name} {args}: {w}" for w in wrong[:10]]
    failures += [f"{program.name} {args}: {name} in the dump, not on the page" for name in missing]
    if "--tokenizer" not in args or not cells or page_checks(driver) != checks:
        errors = driver.execute_script("return Array.from(document.querySelectorAll('.knob-error'), e => e.textContent)")
        failures.append(f"{program.name} {args}: {len(cells)} cells, checks {page_checks(driver)}, native {checks}; "
                        f"said {[e for e in errors if e]}")
    failures += [f"{program.name}: console: {c}" for c in complaints(driver)]
    print(f"{program.name}: {args} in {driver.execute_script('return document.body.dataset.runMs')} ms; "
          f"{len(cells)} cells equal the native --dump")


def main():
    if sys.argv[1:] == ["--chapters"]:  # what ./tutorial test builds for the browser
        print(" ".join(program_names()))
        return 0
    bin_dir, wasm_dir, out = (Path(a).resolve() for a in sys.argv[1:4])
    wanted = sys.argv[4:] or sorted(CHANGES)
    # chapter 22 first: its run trains the model (when none is kept) that the others' sentences go through
    programs = sorted((p for p in bin_dir.iterdir() if p.name[:4] in wanted and p.suffix == ""),
                      key=lambda p: (not p.name.startswith("ch22"), p.name))
    out.mkdir(parents=True, exist_ok=True)
    failures = []
    for program in programs:
        if not (wasm_dir / f"{program.name}.pack").is_file():
            failures.append(f"{program.name}: no WebAssembly build in {wasm_dir} (./tutorial test builds it)")
    if failures:  # without its WebAssembly a page has no knobs: nothing more to try
        for f in failures:
            print(f"✗ {f}")
        return 1
    driver = browser()
    try:
        for program in programs:
            check_chapter(driver, program, wasm_dir, out, failures)
            if program.name.startswith("ch21"):
                check_gpt2(driver, program, out, failures)
            if program.name.startswith("ch22"):
                check_stop(driver, failures)
                check_step_first(driver, program, out, failures)
                check_writing(driver, program, out / program.name / "index.html", out, failures)
    finally:
        driver.quit()
    for f in failures:
        print(f"✗ {f}")
    print(f"{len(programs)} pages, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
