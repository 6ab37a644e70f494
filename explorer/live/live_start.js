// live_start.js: the page computes. The chapter's own C++, compiled to WebAssembly (the wasm
// preset of CMakePresets.json, ./tutorial explore), is inlined in the page as gzip in base64
// (<script id="wasm-glue">, <script id="wasm-binary">), its flags in <script id="live">; this
// piece puts the knobs above the page and reruns the chapter when one changes.
'use strict';

function startLivePage() {
  const live = JSON.parse(document.getElementById('live').textContent);
  const session = {
    live,
    packed: {  // what the worker unpacks and compiles
      glue: document.getElementById('wasm-glue').textContent.trim(),
      wasm: document.getElementById('wasm-binary').textContent.trim(),
    },
    knobs: makeKnobs(live), progress: makeProgressLine(),
    worker: null, busy: false, pending: null, stopLater: null,  // the run under way, the one asked next
    warming: false,        // the run under way is the one made unasked as the page opened (warmUp)
    runs: 0, stepRuns: 0, lastGood: live.arguments,               // runs drawn, the last good arguments
    // the last whole run's document (at first the recorded one), how long it took (ms), whether it trained
    lastDocument: JSON.parse(document.getElementById('lesson').textContent), lastMs: null, lastTrained: false,
    training: false,       // the run now in the worker has printed a training's "step N/M"
    stepMs: new Map(),     // step → how long it took alone, the last time
    trainedFiles: {},      // path → bytes: what the runs kept under /trained, for a new worker
    modelLoading: null,    // while the model beside the page loads: a promise of it
    typing: null, requested: JSON.stringify(live.arguments),  // a field's pause, the arguments last asked
    askedStep: null,       // the step a button asked to see alone, next run (live_one_more.js)
    wholeNext: false,      // the next run is whole, no step first
    oneMore: null,         // the count's buttons, if the chapter has one
    sayAfterRun: null,     // what the status line says once the next whole run is drawn
  };
  session.knobs.form.append(session.progress.element);
  document.body.prepend(session.knobs.form);
  session.oneMore = makeOneMore(session);
  session.progress.stop.addEventListener('click', () => stopRun(session));
  // A change reruns: at once for a menu or a checkbox, when typing pauses for a field.
  session.knobs.form.addEventListener('change', () => knobsChanged(session));
  session.knobs.form.addEventListener('input', (e) => {
    if (e.target.tagName !== 'INPUT' || e.target.type === 'checkbox') return;
    clearTimeout(session.typing);
    session.typing = setTimeout(() => knobsChanged(session), 250);
  });
  loadTrainedModel(session);
  setKnobs(session.knobs, live.arguments);
  const fromUrl = argumentsOfHash(location.hash);
  if (fromUrl && JSON.stringify(fromUrl) !== JSON.stringify(live.arguments)) {
    setKnobs(session.knobs, fromUrl);
    knobsChanged(session);
  }
  // The program unpacked and compiled while the reader reads, not after their first change
  // (half a second of chapter 01's first rerun), then run once (warmUp, after the model beside
  // the page has loaded).
  setTimeout(() => {
    if (!session.worker) startWorker(session);
    (session.modelLoading || Promise.resolve()).then(() => warmUp(session));
  }, 0);
  window.liveArguments = () => session.lastGood;
  window.liveIdle = () => !session.busy && !session.pending && !session.typing;  // for the tests: nothing runs or waits
}

// The files a --text knob needs, from trained_model.js beside the page (a <script> loads from
// file://; common/output/carried_files.hpp writes it): a trained model and the text it learned
// from (chapters 22 and 23, and the chapters whose sentence goes through it), the book and GPT-2's
// vocabulary (chapter 21).
function loadTrainedModel(session) {
  const { fields, errorOf } = session.knobs;
  if (!fields.has('--text')) return;
  const noModel = () => {
    fields.get('--text').disabled = true;
    errorOf.get('--text').textContent = 'What this page reads (the book, a trained model) is not beside it: '
      + './tutorial run installs and trains it, then ./tutorial explore writes the page again with it.';
  };
  if (!session.live.model) { noModel(); return; }
  const script = document.createElement('script');
  script.src = 'trained_model.js';
  let loaded;
  session.modelLoading = new Promise((resolve) => { loaded = resolve; });
  script.onload = () => {
    if (session.worker) session.worker.postMessage({ files: window.tutorialTrainedModel });
    session.modelLoading = null;
    loaded();
  };
  script.onerror = () => {  // written with the page, then taken away
    session.modelLoading = null;
    loaded();
    noModel();
  };
  document.head.append(script);
}

startLivePage();
