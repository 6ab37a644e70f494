// live.js: the page computes. The chapter's own C++, compiled to WebAssembly (the wasm preset
// of CMakePresets.json, ./tutorial explore), runs in a Web Worker: each knob is one of the
// chapter's flags (its --list-options), and a change reruns the chapter with them and draws the
// new run's document in place of the old (drawLesson, explorer.js). The page never waits for a
// run: a long one (a training) shows its last printed line and a stop button.
//
// A chapter whose last run took longer than SLOW_MS (chapter 22 reads the whole book and
// checks the model on it) runs twice for a change: first the step in view alone (--step: the
// program computes only what that step reads, and reports its matrices), drawn at once in
// place of the old while the other steps, dimmed, keep the last run's; then the whole run,
// which draws every step again. Not when a training is what takes the time (its lines say
// "step N/M"): after a run that trained, or as soon as the step alone starts one, the whole
// run goes alone, so that nothing trains twice; nor for a step that took half the whole run.
//
// The page inlines what it needs (it opens from file://, where a browser fetches nothing): the
// program as gzip in base64 (<script id="wasm-glue">, <script id="wasm-binary">), the flags
// (<script id="live">). The worker is made from a Blob of this file's workerMain.
// What a page with a --text knob reads to put a sentence through the trained model, the model
// and the text it learned from, comes from trained_model.js beside it (common/lesson/page_model.hpp).
'use strict';
(() => {
  const live = JSON.parse(document.getElementById('live').textContent);
  const packed = {
    glue: document.getElementById('wasm-glue').textContent.trim(),
    wasm: document.getElementById('wasm-binary').textContent.trim(),
  };
  const REPORT = '/run/report.json';
  const SLOW_MS = 300;

  // ------------------------------------------------------------ the worker
  // It unpacks and compiles the program once, then runs it once per message, each run in a
  // fresh instance (a chapter's main() runs once per process, as in the terminal). What a run
  // trained and kept under /trained is written into the next runs' file systems, as the
  // terminal's trained/ folder is read back: a model is trained once while the page is open.
  // The page holds a copy, for the worker that replaces this one (after a stop).
  function workerMain() {
    let compiled = null, fingerprint = '';
    const files = new Map();  // path → bytes, written into every run's file system
    const KEPT_AT_MOST = 256 * 1024 * 1024;  // bytes of trained models kept, at most
    let kept = 0;
    const keep = (path, bytes) => {
      if (kept + bytes.length > KEPT_AT_MOST) return false;
      files.set(path, bytes);
      kept += bytes.length;
      return true;
    };
    // what the run wrote under `dir` that no run had: kept, and returned as {path: bytes}
    const keepTrained = (FS, dir, added = {}) => {
      if (!FS.analyzePath(dir).exists) return added;
      for (const name of FS.readdir(dir)) {
        const path = `${dir}/${name}`;
        if (name === '.' || name === '..' || files.has(path)) continue;
        if (FS.isDir(FS.stat(path).mode)) keepTrained(FS, path, added);
        else if (keep(path, FS.readFile(path))) added[path] = files.get(path);
      }
      return added;
    };
    // FNV-1a of the program's bytes: a model is read back only by the program that trained it
    const hashOf = (bytes) => {
      let h = 0x811c9dc5;
      for (let i = 0; i < bytes.length; ++i) h = Math.imul(h ^ bytes[i], 0x01000193);
      return `${(h >>> 0).toString(16)}-${bytes.length}`;
    };
    const bytesOf = (base64) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const unpack = async (base64) => {
      const bytes = bytesOf(base64);
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
      return new Uint8Array(await new Response(stream).arrayBuffer());
    };
    const run = async ({ args, report }) => {
      const errors = [];
      let exitCode = null;
      let lastProgress = 0;
      const progressed = (line) => {
        const now = Date.now();
        if (now - lastProgress > 100) { lastProgress = now; postMessage({ progress: line }); }
      };
      const module = await self.createChapter({
        // what it prints while it runs is its progress (a training's step N/M), at most ten lines a second
        print: progressed,
        printErr: (line) => { errors.push(line); progressed(line); },
        instantiateWasm: (imports, done) => {
          WebAssembly.instantiate(compiled, imports).then((instance) => done(instance));
          return {};
        },
        preRun: [(m) => {
          m.ENV.TUTORIAL_TRAINED = '/trained';
          m.ENV.TUTORIAL_PROGRAM_FINGERPRINT = fingerprint;
          for (const [path, bytes] of files) {
            const folders = path.split('/').slice(1, -1);
            folders.reduce((at, folder) => {
              const next = `${at}/${folder}`;
              if (!m.FS.analyzePath(next).exists) m.FS.mkdir(next);
              return next;
            }, '');
            m.FS.writeFile(path, bytes);
          }
          m.FS.mkdir('/run');
        }],
        onExit: (code) => { exitCode = code; },
      });
      const started = performance.now();
      try {
        const returned = module.callMain(args);
        if (exitCode === null) exitCode = returned;
      } catch (e) {
        if (exitCode === null) {
          postMessage({ crashed: String(e && e.message || e), errors });
          return;
        }
      }
      const ms = performance.now() - started;
      const trained = exitCode === 0 || exitCode === 1 ? keepTrained(module.FS, '/trained') : {};
      const reported = module.FS.analyzePath(report).exists ? module.FS.readFile(report, { encoding: 'utf8' }) : null;
      postMessage({ exitCode, report: reported, errors, ms, trained });
    };
    // one message after the other: a run waits for the program to be compiled
    let queue = Promise.resolve();
    onmessage = ({ data }) => {
      queue = queue.then(() => handle(data)).catch((e) => postMessage({ crashed: String(e && e.message || e), errors: [] }));
    };
    const handle = async (data) => {
      if (data.glue) {
        const glue = new TextDecoder().decode(await unpack(data.glue));
        (0, eval)(`${glue}\n;self.createChapter = createChapter;`);
        const wasm = await unpack(data.wasm);
        fingerprint = hashOf(wasm);
        compiled = await WebAssembly.compile(wasm);
        postMessage({ ready: true });
      } else if (data.files) {
        for (const [path, base64] of Object.entries(data.files)) files.set(path, bytesOf(base64));
      } else if (data.trained) {  // what the worker before this one kept
        for (const [path, bytes] of Object.entries(data.trained)) keep(path, bytes);
      } else if (data.args) {
        await run(data);
      }
    };
  }

  // ------------------------------------------------------------ the knobs
  // A number flag is a number field with its range, a flag of a few words a menu, a flag a
  // checkbox, a text flag a text field; a file flag stays in the terminal (the page has no files).
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  };
  const knobs = el('form', 'knobs');
  knobs.setAttribute('aria-label', 'The chapter\'s flags: change one and the page computes again');
  knobs.addEventListener('submit', (e) => e.preventDefault());
  const fields = new Map();  // flag → its input
  const errorOf = new Map();  // flag → the element beside it that says what is wrong
  // (a file stays in the terminal; a chapter that refuses --text says so in its --help)
  const shownOptions = live.options.filter((o) => o.type !== 'PATH' && o.type !== 'DIR' && (o.name !== '--text' || live.text));
  // --text first: the sentence is what a learner changes most
  shownOptions.sort((a, b) => (b.name === '--text') - (a.name === '--text'));
  for (const o of shownOptions) {
    const label = el('label', `knob knob-${o.type.toLowerCase()}`);
    label.title = o.help;
    const name = el('span', 'knob-name', o.name);
    let input;
    if (o.choices) {
      input = el('select');
      // The first choice is the flag not given (value ''), shown as the chapter's default word.
      const unset = el('option', '', o.default != null ? String(o.default) : '');
      unset.value = '';
      input.append(unset, ...o.choices.filter((c) => String(c) !== String(o.default)).map((c) => el('option', '', c)));
    } else if (o.type === 'FLAG') {
      input = el('input');
      input.type = 'checkbox';
    } else {
      input = el('input');
      input.type = 'text';
      if (o.type === 'INT' || o.type === 'UINT' || o.type === 'FLOAT') input.inputMode = 'decimal';
      if (o.default != null) input.placeholder = String(o.default);
      if (o.range) input.title = `${o.help} (${o.range.low_included ? '' : 'more than '}${o.range.low} … ${o.range.high ?? '∞'})`;
    }
    input.dataset.flag = o.name;
    input.setAttribute('aria-label', `${o.name}: ${o.help}`);
    const error = el('span', 'knob-error');
    error.setAttribute('role', 'alert');
    label.append(name, input, error);
    knobs.append(label);
    fields.set(o.name, input);
    errorOf.set(o.name, error);
  }
  const status = el('div', 'live-status');
  const bar = el('progress', 'live-progress');
  bar.hidden = true;
  const stop = el('button', 'live-stop', 'Stop');
  stop.type = 'button';
  stop.hidden = true;
  const general = el('span', 'knob-error live-error');
  general.setAttribute('role', 'alert');
  status.append(el('span', 'live-state', 'Change a flag: the chapter runs again here, in your browser.'), bar, stop, general);
  knobs.append(status);
  document.body.prepend(knobs);

  // The arguments the knobs say, in the order of the chapter's flags.
  function argumentsOfKnobs() {
    const args = [];
    for (const [flag, input] of fields) {
      if (input.type === 'checkbox') { if (input.checked) args.push(flag); continue; }
      const value = input.value;
      if (value !== '') args.push(flag, value);
    }
    return args;
  }
  function setKnobs(args) {
    for (const [flag, input] of fields) {
      if (input.type === 'checkbox') input.checked = false;
      else input.value = '';
      const at = args.indexOf(flag);
      if (at < 0) continue;
      if (input.type === 'checkbox') input.checked = true;
      else input.value = args[at + 1] ?? '';
    }
  }
  // The URL keeps the arguments after the step: #step-2&--d-k=8&--text=the%20cat
  function argumentsOfUrl() {
    const parts = location.hash.split('&').slice(1);
    if (!parts.length) return null;
    const args = [];
    for (const part of parts) {
      const [flag, ...rest] = part.split('=');
      args.push(decodeURIComponent(flag));
      if (rest.length) args.push(decodeURIComponent(rest.join('=')));
    }
    return args;
  }
  function keepInUrl(args) {
    const words = [];
    for (let i = 0; i < args.length; ++i) {
      const flag = args[i];
      const input = fields.get(flag);
      if (input && input.type !== 'checkbox') words.push(`${encodeURIComponent(flag)}=${encodeURIComponent(args[++i])}`);
      else words.push(encodeURIComponent(flag));
    }
    const step = location.hash.replace(/&.*$/, '') || '#step-1';
    history.replaceState(null, '', step + words.map((w) => `&${w}`).join(''));
  }

  // ------------------------------------------------------------ running
  let worker = null, busy = false, pending = null, runs = 0, stepRuns = 0, lastGood = live.arguments, stopLater = null;
  // the last whole run's document (at first the recorded one), how long it took (ms), whether it trained
  let lastDocument = JSON.parse(document.getElementById('lesson').textContent), lastMs = null, lastTrained = false;
  let training = false;  // the run now in the worker has printed a training's "step N/M"
  const stepMs = new Map();  // step → how long it took alone, the last time
  const trainedFiles = {};  // path → bytes: what the runs kept under /trained, for a new worker
  const TRAINING = /\bstep \d+\/\d+/;
  function startWorker() {
    const source = `'use strict';\n(${workerMain.toString()})();`;
    worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
    worker.postMessage(packed);
    // the model beside the page, when its script has loaded (else it is sent once it has)
    if (window.tutorialTrainedModel) worker.postMessage({ files: window.tutorialTrainedModel });
    if (Object.keys(trainedFiles).length) worker.postMessage({ trained: trainedFiles });
    worker.onmessage = ({ data }) => finished(data);
    worker.onerror = (e) => finished({ crashed: e.message || 'the worker stopped' });
  }
  function showError(message) {
    for (const e of errorOf.values()) e.textContent = '';
    general.textContent = '';
    if (!message) return;
    // beside the field the message names (the first flag of ours it mentions), else below them all
    const named = [...fields.keys()].filter((f) => new RegExp(`${f}(?![\\w-])`).test(message))
      .sort((a, b) => message.indexOf(a) - message.indexOf(b))[0];
    (named ? errorOf.get(named) : general).textContent = message;
  }
  function run(args) {
    if (busy) { pending = args; return; }
    // a sentence needs the model beside the page: the first run waits for its script
    if (modelLoading && args.includes('--text')) { modelLoading.then(() => run(args)); return; }
    busy = true;
    pending = null;
    document.body.dataset.running = 'yes';
    status.firstChild.textContent = 'Computing…';
    if (!worker) startWorker();
    const inView = window.currentStep ? window.currentStep() : 1;
    // (a step that costs about the whole run, chapter 03's first, is not worth a run of its own)
    const worth = lastMs > SLOW_MS && !lastTrained && !(stepMs.get(inView) > lastMs / 2);
    send(args, worth && inView <= lastDocument.steps.length ? inView : null);
    // a run that takes longer than half a second (a training) can be stopped
    clearTimeout(stopLater);
    stopLater = setTimeout(() => { if (busy) stop.hidden = false; }, 500);
  }
  // The whole run (step null), or one step of it.
  function send(args, step) {
    const one = step ? ['--step', String(step)] : [];
    worker.postMessage({ args: [...args, ...one, '--no-color', '--report', REPORT], report: REPORT });
    worker.current = { args, step };
    training = false;
  }
  // The last whole run's document with one step, and the matrices it shows, from a run of that step.
  function withStep(last, one) {
    const [shown] = one.steps;
    const fresh = new Map(one.matrices.map((m) => [m.name, m]));
    const names = new Set(last.matrices.map((m) => m.name));
    return {
      ...last,
      steps: last.steps.map((s) => (s.number === shown.number ? shown : s)),
      matrices: [...last.matrices.map((m) => fresh.get(m.name) || m), ...one.matrices.filter((m) => !names.has(m.name))],
    };
  }
  function finished(data) {
    if (data.ready) return;
    if (data.progress !== undefined) {
      training = training || TRAINING.test(data.progress);
      if (training && worker.current.step) {  // the step alone trains: the whole run instead, training once
        const { args } = worker.current;
        worker.terminate();
        startWorker();
        send(args, null);
        training = true;
        return;
      }
      status.firstChild.textContent = data.progress;
      bar.hidden = false;
      stop.hidden = false;
      const [, done, total] = /(\d+)\s*\/\s*(\d+)/.exec(data.progress) || [];
      if (total) { bar.max = +total; bar.value = +done; } else bar.removeAttribute('value');
      return;
    }
    Object.assign(trainedFiles, data.trained);
    const { args, step } = worker.current;
    bar.hidden = true;
    stop.hidden = true;
    if (step && !data.crashed && data.exitCode !== 2 && data.report) {
      // the step in view, drawn now; the whole run follows (unless the learner has typed on)
      showError('');
      window.currentStep = window.drawLesson(withStep(lastDocument, JSON.parse(data.report)), { step: window.currentStep() });
      for (const s of document.querySelectorAll('section.step')) s.classList.toggle('stale', +s.dataset.step !== step);
      status.firstChild.textContent = `Step ${step} computed in ${Math.round(data.ms)} ms; the other steps follow…`;
      document.body.dataset.stepMs = String(Math.round(data.ms));
      stepMs.set(step, data.ms);
      document.body.dataset.stepRuns = String(++stepRuns);
      if (pending) {
        busy = false;
        run(pending);
      } else {
        send(args, null);
      }
      return;
    }
    busy = false;
    if (data.crashed) {
      showError(`the program stopped: ${data.crashed}`);
      status.firstChild.textContent = 'The last result stays.';
      worker.terminate();
      worker = null;
    } else if (data.exitCode === 2 || !data.report) {
      // a refusal: the chapter's own line, beside the knob; the last good result stays
      // the chapter's refusal is its line that starts with its name (its progress lines do not)
      const said = data.errors.filter((l) => /^ch\d\d_\w+: /.test(l));
      const line = (said.pop() || data.errors.filter((l) => l.trim()).pop() || `exit ${data.exitCode}`)
        .replace(/^ch\d\d_\w+: /, '');
      showError(line);
      status.firstChild.textContent = 'The last result stays.';
    } else {
      showError('');
      lastGood = args;
      lastDocument = JSON.parse(data.report);
      lastMs = data.ms;
      lastTrained = training;
      document.body.dataset.trained = training ? 'yes' : 'no';
      const inView = window.currentStep ? window.currentStep() : 1;
      window.currentStep = window.drawLesson(lastDocument, { step: inView });
      status.firstChild.textContent = `Computed in ${Math.round(data.ms)} ms${data.exitCode === 1 ? ' (a self-check failed: see the last step)' : ''}.`;
      document.body.dataset.runMs = String(Math.round(data.ms));
    }
    document.body.dataset.runs = String(++runs);
    document.body.dataset.running = 'no';
    if (pending) run(pending);
  }
  stop.addEventListener('click', () => {
    if (!worker) return;
    worker.terminate();
    worker = null;
    busy = false;
    pending = null;
    bar.hidden = stop.hidden = true;
    status.firstChild.textContent = 'Stopped. The last result stays.';
    document.body.dataset.running = 'no';
    document.body.dataset.stopped = 'yes';
  });

  // A change reruns: at once for a menu or a checkbox, when typing pauses for a field.
  let typing = null, requested = JSON.stringify(live.arguments);
  const changed = () => {
    clearTimeout(typing);
    typing = null;
    const args = argumentsOfKnobs();
    if (JSON.stringify(args) === requested) return;  // a field left (change) after its input ran
    requested = JSON.stringify(args);
    keepInUrl(args);
    run(args);
  };
  knobs.addEventListener('change', changed);
  knobs.addEventListener('input', (e) => {
    if (e.target.tagName !== 'INPUT' || e.target.type === 'checkbox') return;
    clearTimeout(typing);
    typing = setTimeout(changed, 250);
  });

  // The model a --text knob needs, from beside the page (a <script> loads from file://).
  let modelLoading = null;
  const noModel = () => {
    const text = fields.get('--text');
    text.disabled = true;
    errorOf.get('--text').textContent = 'The trained model is not beside this page: ./tutorial run 22 trains '
      + 'it, then ./tutorial explore writes the page again with it.';
  };
  if (fields.has('--text') && !live.model) noModel();
  if (fields.has('--text') && live.model) {
    const script = document.createElement('script');
    script.src = 'trained_model.js';
    let loaded;
    modelLoading = new Promise((resolve) => { loaded = resolve; });
    script.onload = () => {
      if (worker) worker.postMessage({ files: window.tutorialTrainedModel });
      modelLoading = null;
      loaded();
    };
    script.onerror = () => {  // written with the page, then taken away
      modelLoading = null;
      loaded();
      noModel();
    };
    document.head.append(script);
  }
  setKnobs(live.arguments);
  const fromUrl = argumentsOfUrl();
  if (fromUrl && JSON.stringify(fromUrl) !== JSON.stringify(live.arguments)) {
    setKnobs(fromUrl);
    changed();
  }
  // The program unpacked and compiled while the reader reads, not after their first change
  // (half a second of chapter 01's first rerun).
  setTimeout(() => { if (!worker) startWorker(); }, 0);
  window.liveArguments = () => lastGood;
  window.liveIdle = () => !busy && !pending && !typing;  // for the tests: nothing runs or waits
})();
