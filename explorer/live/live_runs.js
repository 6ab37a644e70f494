// live_runs.js: a change of the knobs reruns the chapter in the worker (live_worker.js), and
// the new run's document is drawn in place of the old (drawLesson, draw_lesson.js). The page
// never waits for a run: a long one (a training) shows its last printed line and can be stopped.
'use strict';

// A chapter whose last run took longer than SLOW_MS (chapter 22 reads the whole book and
// checks the model on it) runs twice for a change: first the step in view alone (--step: the
// program computes only what that step reads, and reports its matrices), drawn at once in
// place of the old while the other steps, dimmed, keep the last run's; then the whole run,
// which draws every step again. Not when a training is what takes the time (its lines say
// "step N/M"): after a run that trained, or as soon as the step alone starts one, the whole
// run goes alone, so that nothing trains twice; nor for a step that took half the whole run.
const SLOW_MS = 300;
const TRAINING = /\bstep \d+\/\d+/;
const REPORT = '/run/report.json';  // where a run writes its document, in the worker's file system

// The worker, the program sent to it, and what a new worker must be given: what the runs
// trained (a stopped worker takes it with it), and the model beside the page.
function startWorker(session) {
  const source = `'use strict';\n(${workerMain.toString()})();`;
  const worker = session.worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
  worker.postMessage(session.packed);
  // the model beside the page, when its script has loaded (else it is sent once it has)
  if (window.tutorialTrainedModel) worker.postMessage({ files: window.tutorialTrainedModel });
  if (Object.keys(session.trainedFiles).length) worker.postMessage({ trained: session.trainedFiles });
  worker.onmessage = ({ data }) => finished(session, data);
  worker.onerror = (e) => finished(session, { crashed: e.message || 'the worker stopped' });
}

// Runs the chapter with these arguments, or after the run under way (only the last asked waits).
function runChapter(session, args) {
  if (session.busy) {
    session.pending = args;
    if (session.warming) session.progress.say('Computing…');  // the first run is still under way
    return;
  }
  // a sentence needs the model beside the page: the first run waits for its script
  if (session.modelLoading && args.includes('--text')) { session.modelLoading.then(() => runChapter(session, args)); return; }
  session.busy = true;
  session.pending = null;
  document.body.dataset.running = 'yes';
  session.progress.say('Computing…');
  if (!session.worker) startWorker(session);
  const inView = window.currentStep ? window.currentStep() : 1;
  // (a step that costs about the whole run, chapter 03's first, is not worth a run of its own)
  const worth = session.lastMs > SLOW_MS && !session.lastTrained && !(session.stepMs.get(inView) > session.lastMs / 2);
  // the step a button asked for (live_one_more.js), alone and in view, when the last run had it
  const asked = stepNumbered(session.lastDocument, session.askedStep);
  const step = asked || (worth && inView <= session.lastDocument.steps.length ? inView : null);
  sendRun(session, args, session.wholeNext ? null : step);
  session.worker.current.goTo = session.askedStep;
  session.askedStep = null;
  session.wholeNext = false;
  // a run that takes longer than half a second (a training) can be stopped
  clearTimeout(session.stopLater);
  session.stopLater = setTimeout(() => { if (session.busy) session.progress.stop.hidden = false; }, 500);
}

// The whole run (step null), or one step of it.
function sendRun(session, args, step) {
  const one = step ? ['--step', String(step)] : [];
  session.worker.postMessage({ args: [...args, ...one, '--no-color', '--report', REPORT], report: REPORT });
  session.worker.current = { args, step };
  session.training = false;
}

// The page opens with the recorded run drawn; the worker runs it once more, unseen, so that the
// reader's first change is as quick as the next ones: the WebAssembly is warm, and what a run
// keeps (chapter 23 measures the model on held-out text: 13 s in the browser) is kept. Not a
// chapter whose model is not beside the page (its run would train it), nor one whose run trains.
function warmUp(session) {
  if (session.busy || session.worker === null || (session.live.text && !session.live.model)) return;
  session.busy = session.warming = true;
  sendRun(session, session.live.arguments, null);
}

// The warm run's end: nothing drawn; its time tells whether the next change draws its step first.
function warmedUp(session, data) {
  session.busy = session.warming = false;
  if (data.crashed) {
    session.worker.terminate();
    session.worker = null;
  } else if (data.exitCode === 0 || data.exitCode === 1) {
    session.lastMs = data.ms;
  }
  if (session.pending) runChapter(session, session.pending);
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

// What a refused run says: the chapter's own line (the one that starts with its name, which its
// progress lines do not), without the name; else its last line, else its exit code.
function refusalLine(errors, exitCode) {
  const said = errors.filter((l) => /^ch\d\d_\w+: /.test(l));
  return (said.pop() || errors.filter((l) => l.trim()).pop() || `exit ${exitCode}`).replace(/^ch\d\d_\w+: /, '');
}

// A run's error, beside the knob it names (live_knobs.js); '' clears the errors.
const showError = (session, message) => showKnobError(session.knobs, session.progress.general, message);

// What the worker answers: a line of progress, or a run's end.
function finished(session, data) {
  if (data.ready) return;
  if (data.progress !== undefined) { progressed(session, data.progress); return; }
  Object.assign(session.trainedFiles, data.trained);
  if (session.warming) { warmedUp(session, data); return; }
  const { args, step, goTo } = session.worker.current;
  session.progress.hide();
  if (step && !data.crashed && data.exitCode !== 2 && data.report) { stepComputed(session, data, args, step); return; }
  session.busy = false;
  const playing = session.oneMore && session.oneMore.playing;
  if (data.crashed) {
    showError(session, `the program stopped: ${data.crashed}`);
    session.progress.say('The last result stays.');
    session.worker.terminate();
    session.worker = null;
  } else if (data.exitCode === 2 || !data.report) {
    // a refusal: the chapter's own line, beside the knob; the last good result stays
    showError(session, refusalLine(data.errors, data.exitCode));
    session.progress.say('The last result stays.');
  } else {
    wholeRunComputed(session, data, args);
    if (session.oneMore && goTo) session.oneMore.playedOn(data.ms);
  }
  document.body.dataset.runs = String(++session.runs);
  document.body.dataset.running = 'no';
  const refused = data.crashed || data.exitCode === 2 || !data.report;
  if (refused && playing) {
    session.oneMore.playRefused(data.crashed || refusalLine(data.errors, data.exitCode));
    return;
  }
  if (refused && goTo && session.oneMore) session.oneMore.refused(data.crashed || refusalLine(data.errors, data.exitCode));
  if (session.pending) runChapter(session, session.pending);
}

function progressed(session, line) {
  if (session.warming) {  // a run that trains is not worth running unasked: stopped
    if (!TRAINING.test(line)) return;
    session.worker.terminate();
    session.worker = null;
    warmedUp(session, {});
    return;
  }
  session.training = session.training || TRAINING.test(line);
  if (session.training && session.worker.current.step) {  // the step alone trains: the whole run instead, training once
    const { args } = session.worker.current;
    session.worker.terminate();
    startWorker(session);
    sendRun(session, args, null);
    session.training = true;
    return;
  }
  session.progress.showProgress(line);
}

// The step in view, drawn now; the whole run follows (unless the learner has typed on).
function stepComputed(session, data, args, step) {
  showError(session, '');
  const { goTo } = session.worker.current;
  window.currentStep = window.drawLesson(withStep(session.lastDocument, JSON.parse(data.report)), { step: goTo ? step : window.currentStep(), rerun: true });
  if (goTo) showNewest(step);
  for (const s of document.querySelectorAll('section.step')) s.classList.toggle('stale', +s.dataset.step !== step);
  session.progress.say(`Step ${step} computed in ${Math.round(data.ms)} ms; the other steps follow…`);
  document.body.dataset.stepMs = String(Math.round(data.ms));
  session.stepMs.set(step, data.ms);
  document.body.dataset.stepRuns = String(++session.stepRuns);
  if (session.pending) {
    session.busy = false;
    runChapter(session, session.pending);
  } else if (session.oneMore && session.oneMore.playedOn(data.ms)) {
    session.busy = false;  // playing: the next token, not yet the whole run
    document.body.dataset.running = 'no';
  } else {
    sendRun(session, args, null);
  }
}

function wholeRunComputed(session, data, args) {
  showError(session, '');
  session.lastGood = args;
  session.lastDocument = JSON.parse(data.report);
  session.lastMs = data.ms;
  session.lastTrained = session.training;
  document.body.dataset.trained = session.training ? 'yes' : 'no';
  const asked = stepNumbered(session.lastDocument, session.worker.current.goTo);
  const inView = asked || (window.currentStep ? window.currentStep() : 1);
  window.currentStep = window.drawLesson(session.lastDocument, { step: inView, rerun: true });
  if (asked) showNewest(asked);
  session.progress.say(`Computed in ${Math.round(data.ms)} ms${data.exitCode === 1 ? ' (a self-check failed: see the last step)' : ''}.`);
  if (session.sayAfterRun) session.progress.say(session.sayAfterRun);
  session.sayAfterRun = null;
  document.body.dataset.runMs = String(Math.round(data.ms));
}

// The stop button: the worker goes, and with it the run; the last result stays.
function stopRun(session) {
  if (!session.worker) return;
  session.worker.terminate();
  session.worker = null;
  session.busy = session.warming = false;
  session.pending = null;
  session.progress.hide();
  session.progress.say('Stopped. The last result stays.');
  if (session.oneMore) session.oneMore.stopPlaying(false);
  document.body.dataset.running = 'no';
  document.body.dataset.stopped = 'yes';
}

// The whole run of the knobs' arguments, no step first (after a play drew its step alone).
function runWhole(session) {
  session.wholeNext = true;
  session.requested = JSON.stringify(argumentsOfKnobs(session.knobs));
  runChapter(session, argumentsOfKnobs(session.knobs));
}

// A change of the knobs (live_start.js listens; a button of live_one_more.js): a run of the
// arguments, unless they are the ones asked last.
function knobsChanged(session) {
  clearTimeout(session.typing);
  session.typing = null;
  const args = argumentsOfKnobs(session.knobs);
  if (JSON.stringify(args) === session.requested) return;  // a field left (change) after its input ran
  session.requested = JSON.stringify(args);
  keepInUrl(session.knobs, args);
  runChapter(session, args);
}

// The number of the step named `name` in a run's document, or null.
function stepNumbered(lesson, name) {
  const found = name && lesson.steps.find((s) => s.name === name);
  return found ? found.number : null;
}

// The newest table of the step (chapter 22: the last token's odds), in view.
function showNewest(number) {
  const tables = document.querySelectorAll(`section.step[data-step="${number}"] .table-wrap.bars`);
  if (tables.length) tables[tables.length - 1].scrollIntoView({ block: 'center' });
}
