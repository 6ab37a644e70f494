// steps.js: the lesson's steps as sections of the page, each block drawn by its kind, and a
// last section, "Every matrix", for the matrices no step shows. Each section is drawn once,
// in order: the first at once, the rest in slices while the reader reads.
'use strict';

// One block of a step, drawn by its kind (the kinds: common/output/run_document.hpp).
function drawBlock(page, b) {
  switch (b.kind) {
    case 'text': return proseParagraph(b);
    case 'caption': return el('p', 'caption', b.text);
    case 'indices': return matrixView(page, b.name, { decimals: b.decimals ?? 0, maxWidth: WIDTH, indices: true });
    case 'matrix':
    case 'heat_map':
      // A step that shows every head of a layers × heads group (chapter 16) gets one view of
      // the group: its model view and its switch reach the other heads.
      if (page.modelViewsInStep.has(page.families.keyOf(b.name))) return document.createComment(` ${b.name}: in its group's view `);
      return matrixView(page, b.name, { decimals: b.decimals ?? 3, maxWidth: WIDTH, switches: true });
    case 'side_by_side': {
      const row = el('div', 'side-by-side');
      const each = Math.max(320, Math.floor(WIDTH / b.matrices.length) - 24);
      for (const m of b.matrices) {
        row.append(matrixView(page, m.name, { decimals: m.decimals ?? 3, maxWidth: each, switches: true, stacked: true }));
      }
      return row;
    }
    case 'table': return dataTable(b);
    case 'chart': return drawChart(page, b);
    case 'checks': return checksList(b);
    default: return el('p', 'missing', `(a block of kind "${b.kind}" this page does not know)`);
  }
}

function stepSection(page, number, heading, cls) {
  const s = el('section', cls);
  s.id = `step-${number}`;
  s.dataset.step = number;
  const h2 = el('h2', '', heading);
  h2.append(el('span', 'screen-of'));  // "(2/3)": a screen of a presented step
  s.append(h2);
  page.main.append(s);
  return s;
}

// The names of the matrices some step shows: the rest go to the appendix.
function shownMatrices(lesson) {
  const shown = new Set();
  for (const step of lesson.steps)
    for (const b of step.blocks) {
      if (b.kind === 'matrix' || b.kind === 'heat_map' || b.kind === 'indices') shown.add(b.name);
      if (b.kind === 'side_by_side') b.matrices.forEach((m) => shown.add(m.name));
    }
  return shown;
}

// The page's <main>: the title and an empty section a step, each with what fills it in
// page.fills (a step jumped to is drawn first, with every step above it, so that nothing moves
// under the reader). Chapter 16's page, 50 000 elements in all, opens as fast as a small one.
function layOutSteps(page) {
  const { lesson } = page;
  page.main = el('main', 'drawn');
  page.main.append(el('h1', 'lesson-title', lesson.title));
  lesson.steps.forEach((step, k) => {
    const s = stepSection(page, k + 1, `Step ${k + 1}. ${step.heading}`, 'step');
    page.fills.push(() => {
      page.modelViewsInStep = new Set();  // groups whose model view this step already has
      for (const b of step.blocks) s.append(drawBlock(page, b));
    });
  });
  const shown = shownMatrices(lesson);
  const rest = lesson.matrices.filter((m) => !shown.has(m.name));
  const appendix = stepSection(page, lesson.steps.length + 1, 'Every matrix', 'step appendix');
  page.fills.push(() => {
    appendix.append(el('p', 'text', rest.length
      ? 'The matrices of the chapter\'s list that no step shows, in the list\'s order.'
      : 'Every matrix of the chapter\'s list is shown in a step above.'));
    for (const m of rest) appendix.append(drawnWhenAsked(page, m));
  });
}

// Draws the sections up to the n-th (from 1), those not drawn yet.
function drawStepsTo(page, n) {
  while (page.filled < Math.min(n, page.fills.length)) page.fills[page.filled++]();
  if (page.filled === page.fills.length) document.body.dataset.drawn = 'all';  // the tests wait for it
}

// Sections are drawn in slices of about SLICE_MS, the browser free to answer the reader in
// between (a slice a section laid the page out after each one: a tenth of a second in all). A
// rerun that the reader waits for (a knob changed: the page that computes) draws in slices of
// RERUN_SLICE_MS: chapter 07's rerun drew its last cell 390 ms after the change in 40 ms
// slices, 270 ms in one.
const SLICE_MS = 40, RERUN_SLICE_MS = 400;
function drawLater(page) {
  if (page.filled === page.fills.length || page.listening.signal.aborted) return;
  const start = performance.now();
  do drawStepsTo(page, page.filled + 1); while (page.filled < page.fills.length && performance.now() - start < page.sliceMs);
  setTimeout(() => drawLater(page), 0);
}
