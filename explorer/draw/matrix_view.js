// matrix_view.js: one matrix as a step shows it: its title and shape, its heat map (or a
// table of numbers), the head view beside attention weights, a line when the page holds only
// its corner, and buttons that switch between the heads and layers of its family.
'use strict';

const WIDTH = 1180;  // the widest a figure gets: fits a 1280-pixel projector

function matrixTitle(m) {
  const title = el('figcaption', 'matrix-title'), words = el('span', 'title-text');
  words.append(el('span', 'matrix-name', m.name));
  if (m.formula) words.append(` = ${m.formula}`);
  words.append(el('span', 'shape', `(${m.shape[0]} × ${m.shape[1]})`));
  title.append(words);
  return title;
}

// How a matrix is drawn: { decimals, maxWidth, switches (buttons for its family's other
// members), stacked (its head view under the heat map, where width is short), indices (a
// table of numbers, not a heat map) }.
function drawMatrix(page, name, { decimals, maxWidth, stacked, indices }) {
  const m = page.matrices.get(name);
  const figure = el('figure', 'matrix');
  figure.dataset.matrix = name;
  if (!m) {
    figure.append(el('p', 'missing', `(matrix "${name}" is not in the lesson's list)`));
    return figure;
  }
  figure.append(matrixTitle(m));
  if (!m.shape[0] || !m.shape[1]) {
    figure.append(el('p', 'caption', 'empty: no values'));
    return figure;
  }
  if (indices) {
    figure.append(numberTable(page, m, decimals));
    if (m.opens) openHeads(page, figure, m);
    return figure;
  }
  const attention = isAttention(m);
  const pair = el('div', stacked ? 'pair stacked' : 'pair');
  // Attention keeps room beside the heat map for its head view.
  pair.append(heatMap(page, m, decimals, attention && !stacked ? Math.max(200, maxWidth - 320) : maxWidth));
  if (attention) pair.append(headView(page, m, decimals));
  figure.append(pair);
  if (m.opens) openHeads(page, figure, m);
  // A large matrix is on the page as its top-left corner, as the terminal elides it.
  const clipped = [];
  if (m.shape[0] > m.rows.length) clipped.push(`rows ${m.rows.length}–${m.shape[0] - 1}`);
  if (m.shape[1] > m.cols.length) clipped.push(`columns ${m.cols.length}–${m.shape[1] - 1}`);
  if (clipped.length) {
    figure.append(el('p', 'caption elided', `${clipped.join(' and ')} are not on this page; --dump writes the whole matrix`));
  }
  return figure;
}

// A matrix shown by a step: with buttons to switch between its heads and layers, and for a
// group with both, a model view (layers × heads of small heat maps) to click.
function matrixView(page, name, look) {
  const { groups, keyOf, layerOf, headOf } = page.families;
  const view = el('div', 'matrix-view');
  const members = look.switches ? groups.get(keyOf(name)) || [name] : [name];
  const body = el('div', 'view-body');
  view.append(body);
  if (members.length < 2) {
    body.append(drawMatrix(page, name, look));
    return view;
  }
  const layers = uniqueSorted(members.map(layerOf)), heads = uniqueSorted(members.map(headOf));
  const { controls, buttons } = switchButtons(page.families, members, layers, heads, show);
  const minis = [];  // the model view's thumbnails
  // One model view per group and step: a step showing all of a group's members needs only one.
  const key = keyOf(name);
  if (layers.length > 1 && heads.length > 1 && !page.modelViewsInStep.has(key)) {
    page.modelViewsInStep.add(key);
    view.insertBefore(modelView(page, members, layers, heads, minis, show), body);
  }
  function show(member) {
    const figure = drawMatrix(page, member, look);
    figure.querySelector('.matrix-title').append(controls);  // the buttons sit on the title's line
    body.replaceChildren(figure);
    for (const { b, target, is } of buttons) {
      const t = target(member);
      if (t) b.dataset.member = t; else b.removeAttribute('data-member');
      b.disabled = !t;
      b.classList.toggle('selected', is(member));
    }
    minis.forEach((cell) => cell.classList.toggle('selected', cell.dataset.member === member));
  }
  show(name);
  if (!page.familyViews.has(key)) page.familyViews.set(key, { view, show });
  return view;
}

// One row of buttons per axis ("layer 0 layer 1", "head 0 head 1 …"); a button's data-member
// names the member it switches to, which for "layer 2" depends on the head shown now (and the
// other way round). Returns the rows and, for each button, what it targets from a member.
function switchButtons({ layerOf, headOf, memberAt }, members, layers, heads, show) {
  const controls = el('div', 'selector'), buttons = [];
  const axis = (label, values, of, target) => {
    if (values.length < 2) return;
    const row = el('div', 'choices');
    for (const v of values) {
      const b = el('button', 'choice', `${label} ${v}`);
      b.type = 'button';
      b.addEventListener('click', () => { if (b.dataset.member) show(b.dataset.member); });
      buttons.push({ b, target: (current) => target(v, current), is: (current) => of(current) === v });
      row.append(b);
    }
    controls.append(row);
  };
  axis('layer', layers, layerOf, (v, cur) => memberAt(members, v, headOf(cur)) || members.find((n) => layerOf(n) === v));
  axis('head', heads, headOf, (v, cur) => memberAt(members, layerOf(cur), v) || members.find((n) => headOf(n) === v));
  return { controls, buttons };
}

// A large matrix that no step shows (chapter 22's parameters: 26 of up to 128 × 128) is drawn
// when asked: all of them would hold the page for seconds after every run.
const LATER_CELLS = 64 * 64;
function drawnWhenAsked(page, m) {
  const look = { decimals: 3, maxWidth: WIDTH };
  const rows = m.values.length, cols = rows ? m.values[0].length : 0;
  if (rows * cols <= LATER_CELLS) return matrixView(page, m.name, look);
  const figure = el('figure', 'matrix-later');
  figure.dataset.later = m.name;
  const button = el('button', 'draw-later', `Draw its heat map (${rows} × ${cols} cells)`);
  button.type = 'button';
  button.addEventListener('click', () => figure.replaceWith(matrixView(page, m.name, look)));
  figure.append(matrixTitle(m), button);
  return figure;
}
