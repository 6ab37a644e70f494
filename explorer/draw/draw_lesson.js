// draw_lesson.js: window.drawLesson(lesson, { step, rerun }) turns a chapter's lesson (the JSON in
// <script id="lesson">) into the page, and draws it again after a rerun (live_runs.js): what
// an earlier drawing put on the page goes, and its listeners with it. The pieces before this
// one draw; here is the page's shared state, and the first drawing.
'use strict';

// Every matrix comes with its shape and the corner of it the page holds (all of a small
// matrix): its values, and one label per row and column of the corner.
// (The document's members: common/output/run_document.hpp.)
// Labels that repeat (a token that occurs twice: "the" in a sentence, every token of the copy
// task's second half) do not say which row is which: the page writes the position too,
// "3: the", as the terminal's heat maps write the index before the label.
const withPositions = (words) => (new Set(words).size < words.length ? words.map((w, i) => `${i}: ${w}`) : words);

let stopListening = null;  // ends the listeners of the drawing before
window.drawLesson = (lesson, { step, rerun = false } = {}) => {
  if (stopListening) stopListening.abort();
  stopListening = new AbortController();
  for (const e of document.querySelectorAll('body > .drawn')) e.remove();
  delete document.body.dataset.drawn;
  for (const m of lesson.matrices) [m.rows, m.cols] = [withPositions(m.rows), withPositions(m.cols)];
  const matrices = new Map(lesson.matrices.map((m) => [m.name, m]));
  // What the pieces share, for one drawing.
  const page = {
    lesson, matrices,                          // the run's document, and its matrices by name
    families: familiesOf(lesson.matrices, matrices),
    listening: { signal: stopListening.signal },  // the window's listeners, ended by the next drawing
    tip: makeTooltip(),
    main: null, fills: [], filled: 0,          // the sections, what draws each, how many are drawn
    sliceMs: rerun ? RERUN_SLICE_MS : SLICE_MS,  // how long a slice of drawing may take (steps.js)
    modelViewsInStep: new Set(),               // groups whose model view this step already has
    familyViews: new Map(),                    // group key → its first view with buttons: { view, show }
    gridLines: 0,                              // names each heat map's pattern of lines
    bar: null, sections: [], links: [], presentButton: null,
    current: 0, screen: 0,                     // the step shown (from 1), and its screen when presenting
    plans: new Map(),                          // section → its screens at this window's size
    // What the pieces before steps.js and navigation.js ask of them (families.js opens a head's
    // step, presentation.js shows the step in view as screens): callbacks, as they come later.
    drawStepsTo: (n) => drawStepsTo(page, n),
    goToStep: (n, scroll, k) => goToStep(page, n, scroll, k),
  };
  layOutSteps(page);
  makeStepBar(page);
  listenForMoves(page);
  const [start] = parseStepHash(location.hash);
  goToStep(page, step || start || 1, !step && start > 0);
  setTimeout(() => drawLater(page), 0);
  return () => page.current;  // the step shown, for the next drawing
};
window.currentStep = window.drawLesson(JSON.parse(document.getElementById('lesson').textContent));
