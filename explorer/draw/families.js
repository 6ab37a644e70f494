// families.js: the matrices of one family (one per head and layer, as the chapter declares
// them: head0_weights, head1_weights …) as one group, switched between on the page; a model
// view of a group's heads as thumbnails to click; and tables of one number per head that open it.
'use strict';

const uniqueSorted = (xs) => [...new Set(xs.filter((x) => x != null))].sort((a, b) => a - b);

// The groups of the lesson's list of matrices (byName: the same, by name): { groups: key →
// member names in the list's order, keyOf(name), layerOf(name), headOf(name), memberAt(…) }.
function familiesOf(list, byName) {
  const keyOf = (name) => { const m = byName.get(name); return m && m.family ? `family ${m.family}` : `matrix ${name}`; };
  const layerOf = (name) => byName.get(name).layer;
  const headOf = (name) => byName.get(name).head;
  const memberAt = (members, layer, head) => members.find((n) => layerOf(n) === layer && headOf(n) === head);
  const groups = new Map();
  for (const m of list) {
    const key = keyOf(m.name);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(m.name);
  }
  return { groups, keyOf, layerOf, headOf, memberAt };
}

// Every member of a layers × heads group as a thumbnail; a click selects it. The thumbnails
// go into `cells` (the view marks the one shown).
function modelView(page, members, layers, heads, cells, select) {
  const grid = el('div', 'model-view');
  grid.style.gridTemplateColumns = `auto repeat(${heads.length}, auto)`;
  grid.append(el('span', 'mv-corner', 'layer \\ head'));
  heads.forEach((h) => grid.append(el('span', 'mv-head', `head ${h}`)));
  for (const layer of layers) {
    grid.append(el('span', 'mv-layer', `layer ${layer}`));
    for (const head of heads) {
      const name = page.families.memberAt(members, layer, head);
      const cell = el('div', 'model-cell');
      if (name) {
        cell.dataset.member = name;
        const m = page.matrices.get(name);
        cell.title = m.formula ? `${name} = ${m.formula}` : name;
        cell.append(thumbnail(m));
        cell.addEventListener('click', () => select(name));
        cells.push(cell);
      }
      grid.append(cell);
    }
  }
  return grid;
}

// A small heat map without labels or values (at most 64 × 64 cells of it).
// A canvas, not an SVG of rects: four thumbnails of 32 × 32 would be 4096 elements.
function thumbnail(m) {
  const size = 84, R = Math.min(m.rows.length, 64), C = Math.min(m.cols.length, 64);
  const step = size / Math.max(R, C);
  const canvas = pixels(m, R, C, valueRange(m));
  canvas.className = 'thumbnail';
  canvas.style.width = `${Math.round(C * step)}px`, canvas.style.height = `${Math.round(R * step)}px`;
  return canvas;
}

// A (layers × heads) table of one number per head (a score, a loss) opens each head: a click
// on its cell (l, h), or Enter, shows the member of layer l, head h of the family it names,
// in the first view of that family on the page (as a click on its model view's thumbnail).
function openHeads(page, figure, m) {
  const { groups, layerOf, headOf, memberAt } = page.families;
  const members = groups.get(`family ${m.opens}`) || [];
  const layers = uniqueSorted(members.map(layerOf)), heads = uniqueSorted(members.map(headOf));
  if (m.shape[0] !== layers.length || m.shape[1] !== heads.length) return;  // not that family's table
  for (const cell of figure.querySelectorAll('.cell')) {
    const layer = layers[cell.dataset.row], head = heads[cell.dataset.col];
    const member = memberAt(members, layer, head);
    if (!member) continue;
    cell.dataset.opens = member;
    cell.classList.add('opens');
    Object.entries({ tabindex: 0, role: 'button', 'aria-label': `layer ${layer}, head ${head}: open its map` })
      .forEach(([k, v]) => cell.setAttribute(k, v));
  }
  const open = (e) => {
    const cell = e.target.closest('.cell[data-opens]');
    if (!cell) return;
    e.stopPropagation();  // the step to make current is the head's, not the table's
    e.preventDefault();   // a space would scroll the page
    figure.querySelectorAll('.cell.selected').forEach((c) => c.classList.remove('selected'));
    cell.classList.add('selected');
    openHead(page, cell.dataset.opens);
  };
  figure.addEventListener('click', open);
  figure.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') open(e); });
}

// Shows the member in its family's first view (a family no step shows: its own figure in the
// appendix), and brings that on screen: presented, the screen of its step that holds it.
function openHead(page, member) {
  page.drawStepsTo(page.fills.length);  // the view may be in a step not drawn yet
  const family = page.familyViews.get(page.families.keyOf(member));
  if (family) family.show(member);
  const target = family ? family.view : page.main.querySelector(`figure.matrix[data-matrix="${member}"]`);
  const s = target.closest('section.step'), n = +s.dataset.step;
  if (!document.body.classList.contains('presenting') || s.classList.contains('appendix')) {
    page.goToStep(n, false);
    target.scrollIntoView({ block: 'start' });
    return;
  }
  page.goToStep(n, true, 0);
  // the screen of the member's own figure (a model view of every head may be on the one before)
  const figure = target.matches('figure') ? target : target.querySelector('figure.matrix') || target;
  const k = page.plans.get(s).screens.findIndex((screen) => screen.blocks.some((b) => b.some((e) => e.contains(figure))));
  if (k > 0) page.goToStep(n, true, k);
}
