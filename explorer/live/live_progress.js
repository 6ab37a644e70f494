// live_progress.js: the line under the knobs that says what the page computes: a run's last
// printed line and, for a training's "step N/M", a progress bar; a stop button for a long run;
// and the errors that name no knob.
'use strict';

// How far a printed line says a run is ("step 40/200" → { done: 40, total: 200 }), or null.
function progressOf(line) {
  const [, done, total] = /(\d+)\s*\/\s*(\d+)/.exec(line) || [];
  return total ? { done: +done, total: +total } : null;
}

// The status line: { element, stop (the button), general (an error's place), say(text),
// showProgress(line), hide() (the bar and the button) }.
function makeProgressLine() {
  const element = el('div', 'live-status');
  const state = el('span', 'live-state', 'Change a flag: the chapter runs again here, in your browser.');
  const bar = el('progress', 'live-progress');
  bar.hidden = true;
  const stop = el('button', 'live-stop', 'Stop');
  stop.type = 'button';
  stop.hidden = true;
  const general = el('span', 'knob-error live-error');
  general.setAttribute('role', 'alert');
  element.append(state, bar, stop, general);
  return {
    element, stop, general,
    say: (text) => { state.textContent = text; },
    showProgress: (line) => {
      state.textContent = line;
      bar.hidden = false;
      stop.hidden = false;
      const at = progressOf(line);
      if (at) { bar.max = at.total; bar.value = at.done; } else bar.removeAttribute('value');
    },
    hide: () => { bar.hidden = stop.hidden = true; },
  };
}
