// presentation.js: a step presented (p) as one screen or, when it does not fit one at a
// readable size, several, cut between its blocks (a paragraph, a matrix, a table, a chart, a
// check); its heading is on each, with "(2/3)". Each screen is zoomed to fill the window.
'use strict';

// A screen is drawn z times larger than its layout (CSS zoom: the browser maps the pointer
// through it, so hovering still works), laid out at the screen's width / z. Its zoom is the
// largest that fits, at most LARGEST_ZOOM (larger, a short step of prose is a poster) and at
// least the zoom that makes its text READABLE_PX high: body text of 16 px on a 1280 × 800
// projector, the size a page is read at. A block too big for a screen even alone (a 32 × 32
// heat map beside its head view) is scaled down on its own, so that its text and heading
// stay readable.
const READABLE_PX = 16, LARGEST_ZOOM = 2.5;
const READ = 'p.text, ul.checks li, table.data';  // the text of a step (not a figure's labels)

// The zoom at which text of these sizes (px) is READABLE_PX high, or 1 if it already is.
const readableZoom = (textSizes) => Math.max(1, READABLE_PX / Math.min(...textSizes));

// The room for a screen: the window below the bar of steps, less a margin.
function screenSize(page) {
  const margin = 16;
  return { width: window.innerWidth - 2 * margin, height: window.innerHeight - page.bar.offsetHeight - 2 * margin };
}

// A step's blocks, each with the caption lines under it; each self-check line is one (a
// long list of them goes on over screens), and a model view of every head is one apart from
// the head it shows (together they were too tall for a screen: chapter 22's scaled to 0.6).
function blocksOf(s) {
  const blocks = [];
  for (const e of s.children) {
    if (e.tagName === 'H2') continue;
    if (e.matches('p.caption') && blocks.length) blocks[blocks.length - 1].push(e);
    else if (e.matches('ul.checks')) blocks.push(...[...e.children].map((li) => [li]));
    else if (e.matches('.matrix-view') && e.querySelector(':scope > .model-view')) blocks.push(...[...e.children].map((c) => [c]));
    else blocks.push([e]);
  }
  return blocks;
}

// The size of a block's smallest text (px; Infinity for a figure without any).
function smallestText(block) {
  let smallest = Infinity;
  for (const e of block) {
    for (const t of [e, ...e.querySelectorAll(READ)]) {
      if (t.matches(READ)) smallest = Math.min(smallest, parseFloat(getComputedStyle(t).fontSize));
    }
  }
  return smallest;
}

// Displays only these of the step's blocks, the block `scaled` zoomed by `inner`.
function showOnly(all, blocks, scaled = null, inner = 1) {
  for (const b of all) for (const e of b) {
    e.classList.toggle('off-screen', !blocks.includes(b));
    e.classList.toggle('scaled-to-fit', b === scaled);
    e.style.zoom = b === scaled ? inner : '';
  }
  for (const list of all.flat().filter((e) => e.matches('li:first-child')).map((e) => e.parentNode)) {
    list.classList.toggle('off-screen', [...list.children].every((li) => li.classList.contains('off-screen')));
  }
}

// How far what s displays overflows the screen at zoom z: at most 1 when it fits. (Its
// height says how much room is left; its width only whether something sticks out.)
function overflow(s, z, size) {
  const width = size.width / z;
  s.style.zoom = 1;
  s.style.width = `${width}px`;
  return Math.max(s.scrollWidth > width + 1 ? s.scrollWidth / width : 0, (s.scrollHeight * z - 1) / size.height);
}
const fits = (s, z, size) => overflow(s, z, size) <= 1;

// Each try is a layout of the step (tens of ms for a large map): the zooms are found in a
// few, from what the layout measures, not by halving an interval (a dozen).
// The largest zoom in [lo, hi] at which a step fits (overflowAt(z) ≤ 1), given that it fits
// at lo: grown in proportion, then shrunk by what each try overflows (text wraps anew at
// each width).
function largestZoom(overflowAt, lo, hi) {
  let z = Math.min(hi, lo / overflowAt(lo));
  for (let k = 0; k < 8 && z > lo; k++) {
    const over = overflowAt(z);
    if (over <= 1) return z;
    z = z / over - 0.002;
  }
  return lo;
}

// What planning a step's screens measures: { s, size, all: its blocks, sizes: block → its
// smallest text }.
const zoomToRead = (plan, blocks) => readableZoom(blocks.map((b) => plan.sizes.get(b)));
const fitsReadable = (plan, blocks) => (showOnly(plan.all, blocks), fits(plan.s, zoomToRead(plan, blocks), plan.size));
// The zoom of the block `big` at which these blocks fit the screen at a readable zoom: the
// room the others leave it, then a little less while that still overflows.
function innerZoom({ s, size, all, sizes }, blocks, big) {
  const z = readableZoom(blocks.map((b) => sizes.get(b)));
  showOnly(all, blocks, big, 1);
  const over = overflow(s, z, size);
  const tall = big.reduce((h, e) => h + e.getBoundingClientRect().height, 0);
  const wide = Math.max(...big.map((e) => e.scrollWidth));
  let k = Math.min(1, (size.height / z - (s.scrollHeight - tall)) / tall, size.width / z / wide, 1 / over);
  for (let i = 0; i < 30 && k > 0.05; i++, k *= 0.97) {
    showOnly(all, blocks, big, k);
    if (fits(s, z, size)) break;
  }
  return Math.max(k, 0.05);
}

// The step's screens, filled in order: a block joins the screen before while they fit at a
// readable zoom together. A block too big alone takes the paragraph before it along (what
// introduces it) when that costs the block at most a quarter of its size.
function planScreens(page, s) {
  const all = blocksOf(s), screens = [];
  const plan = { s, all, size: screenSize(page), sizes: null };
  // The heading's "(2/3)" can take a line of its own: the blocks are measured under it.
  const count = (k, n) => { s.querySelector('.screen-of').textContent = n > 1 ? ` (${k}/${n})` : ''; };
  count(8, 8);
  plan.sizes = new Map(all.map((b) => [b, smallestText(b)]));
  const prose = (b) => b && b[0].matches('p.text:not(.mono)');
  let open = [];
  for (const b of all) {
    // The paragraph right after a block scaled down alone says what it shows: it joins it
    // on the same terms as the one before.
    const big = !open.length && screens.length && screens[screens.length - 1];
    const joined = big && big.scaled && !big.after && prose(b) && innerZoom(plan, [...big.blocks, b], big.scaled);
    if (joined >= 0.75 * big.alone) {
      Object.assign(big, { inner: joined, after: true });
      big.blocks.push(b);
      continue;
    }
    if (fitsReadable(plan, [...open, b])) { open.push(b); continue; }
    // A paragraph at the foot of a screen introduces the block after it: it moves along.
    const last = open[open.length - 1];
    if (open.length > 1 && prose(last) && fitsReadable(plan, [last, b])) {
      screens.push({ blocks: open.slice(0, -1) });
      open = [last, b];
      continue;
    }
    if (open.length) screens.push({ blocks: open });
    open = [b];
    if (fitsReadable(plan, open)) continue;
    const before = screens.length ? screens[screens.length - 1].blocks : [];
    const text = prose(before[before.length - 1]) ? before[before.length - 1] : null;
    const alone = innerZoom(plan, [b], b), inner = text && innerZoom(plan, [text, b], b);
    if (inner >= 0.75 * alone) {
      before.pop();
      if (!before.length) screens.pop();
      screens.push({ blocks: [text, b], scaled: b, alone, inner });
    } else {
      screens.push({ blocks: [b], scaled: b, alone, inner: alone });
    }
    open = [];
  }
  if (open.length || !screens.length) screens.push({ blocks: open });
  // A scaled block's screen is at the readable zoom; the others as large as they fit.
  screens.forEach((screen, k) => {
    count(k + 1, screens.length);
    const z = zoomToRead(plan, screen.blocks);
    showOnly(all, screen.blocks);
    screen.zoom = screen.scaled ? z : largestZoom((at) => overflow(s, at, plan.size), z, LARGEST_ZOOM);
  });
  return { all, screens };
}

function showScreen(page, s, { all, screens }, k) {
  const { blocks, scaled, inner, zoom } = screens[k];
  showOnly(all, blocks, scaled, inner);
  s.querySelector('.screen-of').textContent = screens.length > 1 ? ` (${k + 1}/${screens.length})` : '';
  s.style.width = `${screenSize(page).width / zoom}px`;
  s.style.zoom = zoom;
}

// The page as it was before the presentation: every block shown, nothing zoomed.
function unfit(page) {
  page.plans.clear();
  for (const s of page.sections) {
    s.style.zoom = '';
    s.style.width = '';
    s.querySelector('.screen-of').textContent = '';
    for (const e of s.querySelectorAll('.off-screen, .scaled-to-fit')) {
      e.classList.remove('off-screen', 'scaled-to-fit');
      e.style.zoom = '';
    }
  }
}

function setPresenting(page, on) {
  document.body.classList.toggle('presenting', on);
  page.presentButton.classList.toggle('selected', on);
  page.presentButton.textContent = on ? 'Leave (Esc)' : 'Present (p)';
  if (!on) unfit(page);
  page.goToStep(page.current, true, 0);
}
