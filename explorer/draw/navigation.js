// navigation.js: the fixed bar of steps at the top of the page, the current step, and how the
// reader moves: ← → (screen by screen when presenting), a link, a click in a step, scrolling,
// and the URL, which names the step and screen (#step-4.2: step 4's second screen).
'use strict';

// The URL's hash for a step and its screen (from 0), keeping what follows '&' in `hash` (the
// run's arguments, live_knobs.js): stepHash(4, 1, '#step-1&--d-k=8') is '#step-4.2&--d-k=8'.
const stepHash = (step, screen, hash) => `#step-${step}${screen ? `.${screen + 1}` : ''}${hash.replace(/^[^&]*/, '')}`;
// The step and screen (from 0) a hash names: [0, 0] when it names none.
function parseStepHash(hash) {
  const [, n, k] = /^#step-(\d+)(?:\.(\d+))?(?:&.*)?$/.exec(hash) || [];
  return [+n || 0, Math.max(0, (+k || 1) - 1)];
}

// The bar: every step by number and heading, and the presentation button.
function makeStepBar(page) {
  const bar = el('nav', 'stepnav drawn');
  const sections = [...page.main.querySelectorAll('section.step')];
  const links = sections.map((s) => {
    const a = el('a', '', s.dataset.step);
    a.href = `#${s.id}`;
    const heading = s.classList.contains('appendix') ? 'Every matrix' : page.lesson.steps[s.dataset.step - 1].heading;
    a.append(el('span', 'nav-heading', heading));
    a.title = s.querySelector('h2').textContent;
    return a;
  });
  const present = el('button', 'present', 'Present (p)');
  present.type = 'button';
  present.title = 'One step at a time, a long one over several screens; ← → move, Esc leaves';
  const short = el('span', 'nav-title', page.lesson.title.split(' · ')[0]);  // "Chapter 07": the h1 has the rest
  short.title = page.lesson.title;
  bar.append(short, ...links, present);
  document.body.append(bar, page.main);
  Object.assign(page, { bar, sections, links, presentButton: present });
}

// Makes step n the current one, at its screen k when presenting (k < 0: its last), and
// scrolls to it if asked.
function goToStep(page, n, scroll, k = n === page.current ? page.screen : 0) {
  const { sections, links, plans } = page;
  const current = page.current = Math.max(1, Math.min(sections.length, n));
  drawStepsTo(page, current);
  sections.forEach((s, i) => s.classList.toggle('current', i + 1 === current));
  links.forEach((a, i) => a.classList.toggle('current', i + 1 === current));
  const s = sections[current - 1];
  const inShow = document.body.classList.contains('presenting');
  page.screen = 0;
  // The appendix of every matrix is no step to present: it scrolls.
  if (inShow && !s.classList.contains('appendix')) {
    if (!plans.has(s)) plans.set(s, planScreens(page, s));
    const count = plans.get(s).screens.length;
    page.screen = k < 0 ? count - 1 : Math.min(k, count - 1);
    showScreen(page, s, plans.get(s), page.screen);
  }
  // replaceState, not location.hash: a new hash would make its own jump and a history entry per key.
  const hash = stepHash(current, page.screen, location.hash);
  if (location.hash !== hash) history.replaceState(null, '', hash);
  if (scroll) {
    // The first step opens the page at its top, where the knobs are.
    if (inShow || current === 1) window.scrollTo(0, 0);
    else s.scrollIntoView({ block: 'start' });
  }
}

// The next screen (dir 1) or the one before (-1): of this step, else of the next step.
function moveScreen(page, dir) {
  const plan = page.plans.get(page.sections[page.current - 1]);
  if (document.body.classList.contains('presenting') && plan) {
    const k = page.screen + dir;
    if (k >= 0 && k < plan.screens.length) return goToStep(page, page.current, true, k);
    if (page.current + dir < 1 || page.current + dir > page.sections.length) return;
  }
  goToStep(page, page.current + dir, true, dir < 0 ? -1 : 0);  // ← lands on the last screen of the step before
}

// What moves the reader: the keys, the bar's links and button, a click in a step, the URL,
// a new window size (new screens) and scrolling.
function listenForMoves(page) {
  const { listening } = page;
  const presenting = () => document.body.classList.contains('presenting');
  window.addEventListener('resize', () => {
    if (!presenting()) return;
    page.plans.clear();
    goToStep(page, page.current, false);
  }, listening);
  page.presentButton.addEventListener('click', () => setPresenting(page, !presenting()));
  // A click on a step's link goes there even when the hash is already that step's.
  page.links.forEach((a, i) => a.addEventListener('click', (e) => { e.preventDefault(); goToStep(page, i + 1, true); }));
  window.addEventListener('hashchange', () => { const [n, k] = parseStepHash(location.hash); if (n) goToStep(page, n, true, k); }, listening);
  // A click inside a step makes it the current one, so that ← → continue from there.
  page.main.addEventListener('click', (e) => { const s = e.target.closest('section.step'); if (s) goToStep(page, +s.dataset.step, false); });
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
    const inShow = presenting();
    // Presentation clickers send PageDown / PageUp; in the page itself those keep scrolling.
    const next = e.key === 'ArrowRight' || (inShow && e.key === 'PageDown');
    const prev = e.key === 'ArrowLeft' || (inShow && e.key === 'PageUp');
    if (next || prev) { moveScreen(page, next ? 1 : -1); e.preventDefault(); }
    else if (e.key === 'p' || e.key === 'P') setPresenting(page, !inShow);
    else if (e.key === 'Escape' && inShow) setPresenting(page, false);
  }, listening);
  followScrolling(page);
}

// Scrolling by hand moves the current step too (the step under the bar), so that ← →
// continue from what is on screen. At the bottom of the page a current step still in view
// stays: the last steps can be too short to reach the top of the window.
function followScrolling(page) {
  let pending = false;
  window.addEventListener('scroll', () => {
    if (pending || document.body.classList.contains('presenting')) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      const line = page.bar.offsetHeight + 40;
      let n = 1;
      page.sections.forEach((s, i) => { if (s.getBoundingClientRect().top <= line) n = i + 1; });
      const top = page.sections[page.current - 1].getBoundingClientRect().top;
      const atBottom = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
      if (n !== page.current && !(atBottom && top > line && top < window.innerHeight)) goToStep(page, n, false);
    });
  }, page.listening);
}
