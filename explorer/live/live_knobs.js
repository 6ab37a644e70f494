// live_knobs.js: the chapter's flags as knobs above the page: a number flag is a number field
// with its range, a flag of a few words a menu, a flag a checkbox, a text flag a text field.
// The knobs say the run's arguments, which the URL keeps: #step-2&--d-k=8&--text=the%20cat.
'use strict';

// The flags shown as knobs, --text first (the sentence is what a learner changes most). A file
// flag stays in the terminal (the page has no files); a chapter that refuses --text says so in
// its --help.
function shownOptions(live) {
  const shown = live.options.filter((o) => o.type !== 'PATH' && o.type !== 'DIR' && (o.name !== '--text' || live.text));
  return shown.sort((a, b) => (b.name === '--text') - (a.name === '--text'));
}

// One knob: its label with the flag's name, its input, and beside it what is wrong with it.
function makeKnob(o) {
  const label = el('label', `knob knob-${o.type.toLowerCase()}`);
  label.title = o.help;
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
  label.append(el('span', 'knob-name', o.name), input, error);
  return { label, input, error };
}

// The form of knobs: { form, fields: flag → its input, errorOf: flag → its error }.
function makeKnobs(live) {
  const form = el('form', 'knobs');
  form.setAttribute('aria-label', 'The chapter\'s flags: change one and the page computes again');
  form.addEventListener('submit', (e) => e.preventDefault());
  const fields = new Map(), errorOf = new Map();
  for (const o of shownOptions(live)) {
    const { label, input, error } = makeKnob(o);
    form.append(label);
    fields.set(o.name, input);
    errorOf.set(o.name, error);
  }
  return { form, fields, errorOf };
}

// The arguments the knobs say, in the order of the chapter's flags.
function argumentsOfKnobs({ fields }) {
  const args = [];
  for (const [flag, input] of fields) {
    if (input.type === 'checkbox') { if (input.checked) args.push(flag); continue; }
    const value = input.value;
    if (value !== '') args.push(flag, value);
  }
  return args;
}

function setKnobs({ fields }, args) {
  for (const [flag, input] of fields) {
    if (input.type === 'checkbox') input.checked = false;
    else input.value = '';
    const at = args.indexOf(flag);
    if (at < 0) continue;
    if (input.type === 'checkbox') input.checked = true;
    else input.value = args[at + 1] ?? '';
  }
}

// The arguments a URL's hash keeps after the step, or null when it keeps none.
function argumentsOfHash(hash) {
  const parts = hash.split('&').slice(1);
  if (!parts.length) return null;
  const args = [];
  for (const part of parts) {
    const [flag, ...rest] = part.split('=');
    args.push(decodeURIComponent(flag));
    if (rest.length) args.push(decodeURIComponent(rest.join('=')));
  }
  return args;
}

// The hash with these arguments after its step (takesValue(flag): whether a value follows it).
function hashWithArguments(hash, args, takesValue) {
  const words = [];
  for (let i = 0; i < args.length; ++i) {
    const flag = args[i];
    if (takesValue(flag)) words.push(`${encodeURIComponent(flag)}=${encodeURIComponent(args[++i])}`);
    else words.push(encodeURIComponent(flag));
  }
  const step = hash.replace(/&.*$/, '') || '#step-1';
  return step + words.map((w) => `&${w}`).join('');
}

function keepInUrl({ fields }, args) {
  const takesValue = (flag) => fields.has(flag) && fields.get(flag).type !== 'checkbox';
  history.replaceState(null, '', hashWithArguments(location.hash, args, takesValue));
}

// The first of these flags that a message mentions (the flag itself, not a longer one), if any.
function flagNamed(flags, message) {
  return flags.filter((f) => new RegExp(`${f}(?![\\w-])`).test(message))
    .sort((a, b) => message.indexOf(a) - message.indexOf(b))[0];
}

// A message beside the knob it names, else below them all (`general`); '' clears them.
function showKnobError({ fields, errorOf }, general, message) {
  for (const e of errorOf.values()) e.textContent = '';
  general.textContent = '';
  if (!message) return;
  const named = flagNamed([...fields.keys()], message);
  (named ? errorOf.get(named) : general).textContent = message;
}
