// live_one_more.js: a count the chapter steps one at a time (its flag's "one_more" in
// --list-options: chapter 22's --generate, "next token"). In the window's corner (the page
// scrolls to what it wrote, and the knobs scroll away), a button adds one to the count and
// reruns the step it names alone, drawn at once and scrolled to its newest table; "play"
// presses it on, a token every PLAY_MS, until the chapter refuses one more (the context is
// full) or the reader pauses. The count is in the URL like every knob: a shared moment.
'use strict';

const PLAY_MS = 700;  // at least this long between two tokens of "play": time to read the odds

// The buttons, beside the knob of the first flag that has one_more, or null for none.
function makeOneMore(session) {
  const option = session.live.options.find((o) => o.one_more);
  const input = option && session.knobs.fields.get(option.name);
  if (!input) return null;
  const one = { option, input, playing: false, timer: null };
  one.next = el('button', 'one-more', option.one_more.button);
  one.play = el('button', 'one-more play', 'play');
  for (const b of [one.next, one.play]) b.type = 'button';
  const buttons = el('span', 'one-more-buttons');
  buttons.append(one.next, one.play);
  buttons.title = `${option.name}: ${option.help}`;
  input.closest('label').after(buttons);
  one.next.addEventListener('click', () => oneMore(session, one));
  one.play.addEventListener('click', () => (one.playing ? stopPlaying(session, one) : startPlaying(session, one)));
  // What a run's end asks of the buttons: live_runs.js, loaded before this piece, calls these.
  one.playedOn = (ms) => playedOn(session, one, ms);
  one.playRefused = (why) => playRefused(session, one, why);
  one.refused = (why) => oneRefused(session, one, why);
  one.stopPlaying = (rerun) => stopPlaying(session, one, rerun);
  return one;
}

// The count one higher, and a run of its step alone (drawn, then scrolled to).
function oneMore(session, one) {
  const now = Number.parseInt(one.input.value || String(one.option.default ?? 0), 10);
  one.input.value = String((Number.isFinite(now) ? now : 0) + 1);
  session.askedStep = one.option.one_more.step;
  knobsChanged(session);
}

function startPlaying(session, one) {
  one.playing = true;
  one.play.textContent = 'pause';
  document.body.dataset.playing = 'yes';
  oneMore(session, one);
}

// The play ends (the reader, a refusal): what the step alone left dimmed is run whole; not
// after the stop button (rerun false), which stops every run.
function stopPlaying(session, one, rerun = true) {
  if (!one.playing) return;
  one.playing = false;
  clearTimeout(one.timer);
  one.play.textContent = 'play';
  document.body.dataset.playing = 'no';
  if (rerun && document.querySelector('section.step.stale')) runWhole(session);
}

// The chapter refused one more while playing (the context is full): the count back to the last
// one computed, the play ended, and why said once the whole run is drawn.
function playRefused(session, one, why) {
  one.input.value = String(Number.parseInt(one.input.value, 10) - 1);
  session.sayAfterRun = `The play stopped: ${why}`;
  stopPlaying(session, one);
  if (!session.busy) runWhole(session);  // nothing was dimmed: the last count, whole, all the same
}

// The chapter refused one more, not playing (a sentence it cannot read, a full context): the
// count back to the last one computed, and why in the status line; the last result stays.
function oneRefused(session, one, why) {
  one.input.value = String(Number.parseInt(one.input.value, 10) - 1);
  const args = argumentsOfKnobs(session.knobs);
  session.requested = JSON.stringify(args);  // the same click again asks again
  keepInUrl(session.knobs, args);
  session.progress.say(`${one.option.one_more.button}: not written (${why.replace(/\.$/, '')}). The last result stays.`);
}

// After the step alone was drawn: while playing, the next token (and no whole run between).
// Returns whether the play goes on.
function playedOn(session, one, ms) {
  if (!one.playing) return false;
  one.timer = setTimeout(() => { if (one.playing) oneMore(session, one); }, Math.max(0, PLAY_MS - ms));
  return true;
}
