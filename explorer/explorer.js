// explorer.js: turns a chapter's lesson (the JSON in <script id="lesson">) into the page:
// the steps with their prose, every matrix as a d3 heat map, attention weights also as
// a head view, charts, tables, checks, and arrow-key / presentation navigation.
// Plain DOM plus d3 v5 (inlined before this script): no build step, no network, and it
// works from file://, so the page can be copied onto a classroom machine as it is.
'use strict';
// drawLesson(lesson, { step }) draws the page from a run's document, again after a rerun
// (explorer/live.js): what an earlier drawing put on the page goes, and its listeners with it.
let stopListening = null;
window.drawLesson = (lesson, { step } = {}) => {
  if (stopListening) stopListening.abort();
  stopListening = new AbortController();
  const listening = { signal: stopListening.signal };
  for (const e of document.querySelectorAll('body > .drawn')) e.remove();
  delete document.body.dataset.drawn;
  // Every matrix comes with its shape and the corner of it the page holds (all of a small
  // matrix): its values, and one label per row and column of the corner.
  // (The document's members: common/lesson/run_document.hpp.)
  // Labels that repeat (a token that occurs twice: "the" in a sentence, every token of the copy
  // task's second half) do not say which row is which: the page writes the position too,
  // "3: the", as the terminal's heat maps write the index before the label.
  const withPositions = (words) => (new Set(words).size < words.length ? words.map((w, i) => `${i}: ${w}`) : words);
  for (const m of lesson.matrices) [m.rows, m.cols] = [withPositions(m.rows), withPositions(m.cols)];
  const matrices = new Map(lesson.matrices.map((m) => [m.name, m]));

  const HEAD_VIEW_LIMIT = 64;  // beyond this a head view is a grey blur of lines
  const VALUES_LIMIT = 16;     // a map with more rows or columns shows its values on hover only
  const GREY = '#bdbdbd';      // non-finite cells: a −inf mask must not look like a small value
  // Okabe–Ito, readable by colour-blind students; yellow last since it is faint on white.
  const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];
  const FONT = '11px system-ui, sans-serif';

  // ---------------------------------------------------------------- small helpers
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function svgEl(tag, attrs, parent) {
    const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }
  // The JSON writes non-finite entries as the strings "inf", "-inf" and "nan".
  const toNumber = (v) => (typeof v === 'number' ? v : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : NaN);
  const format = (v, decimals) => {
    const x = toNumber(v);
    return Number.isFinite(x) ? x.toFixed(decimals) : String(v);
  };
  // Text widths decide whether values fit in cells; a canvas measures without drawing.
  const ruler = document.createElement('canvas').getContext('2d');
  const textWidth = (s, font = FONT) => ((ruler.font = font), ruler.measureText(s).width);
  const widest = (strings, font) => strings.reduce((w, s) => Math.max(w, textWidth(s, font)), 0);

  // One tooltip for the whole page, placed next to the pointer.
  const tooltip = el('div', 'tooltip drawn');
  document.body.appendChild(tooltip);
  function showTip(event, lines) {
    tooltip.replaceChildren(...lines.filter((l) => l).map((l, i) => el('div', i ? '' : 'tip-head', l)));
    tooltip.style.display = 'block';
    const x = Math.min(event.clientX + 14, window.innerWidth - tooltip.offsetWidth - 8);
    const y = event.clientY + 16 + tooltip.offsetHeight > window.innerHeight
      ? event.clientY - tooltip.offsetHeight - 10 : event.clientY + 16;
    tooltip.style.left = `${x}px`;
    tooltip.style.top = `${y}px`;
  }
  const hideTip = () => { tooltip.style.display = 'none'; };

  // ---------------------------------------------------------------- heads and layers
  // The matrices of one family (one per head and layer, as the chapter declares them:
  // head0_weights, head1_weights …) are one group, switched between on the page.
  const groupKey = (name) => { const m = matrices.get(name); return m && m.family ? `family ${m.family}` : `matrix ${name}`; };
  const layerOf = (name) => matrices.get(name).layer;
  const headOf = (name) => matrices.get(name).head;
  const groups = new Map();  // key → member names, in the list's order
  for (const m of lesson.matrices) {
    const key = groupKey(m.name);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(m.name);
  }
  const uniqueSorted = (xs) => [...new Set(xs.filter((x) => x != null))].sort((a, b) => a - b);

  // ---------------------------------------------------------------- heat map
  function valueRange(m) {
    let lo = Infinity, hi = -Infinity;
    for (const row of m.values) for (const v of row) {
      const x = toNumber(v);
      if (Number.isFinite(x)) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
    }
    if (lo > hi) return [0, 1];                           // nothing finite: all grey anyway
    return lo === hi ? [lo - 0.5, hi + 0.5] : [lo, hi];   // a constant matrix sits mid-scale
  }

  // The heat map of m (of the corner the page holds), at most maxWidth wide.
  // Whether text on viridis at t ∈ [0, 1] should be white rather than black: whichever has the
  // larger contrast (WCAG's ratio of relative luminances; either way at least 4.5, readable
  // on a projector), looked up once in 256 steps (for every cell it cost chapter 16's page a
  // tenth of a second).
  const luminance = (colour) => {
    const c = d3.rgb(colour), linear = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
  };
  // viridis in 256 steps, as the bytes of the maps drawn as pixels and for the text's colour
  const VIRIDIS = d3.range(256).map((k) => d3.rgb(d3.interpolateViridis(k / 255)));
  const DARK = VIRIDIS.map((colour) => {
    const l = luminance(colour);
    return 1.05 / (l + 0.05) > (l + 0.05) / 0.05;
  });
  const GREY_RGB = d3.rgb(GREY);
  // The top-left R × C corner of m as a canvas of one pixel a cell, in viridis over `range`.
  function pixels(m, R, C, range) {
    const canvas = document.createElement('canvas');
    canvas.width = C, canvas.height = R;
    const g = canvas.getContext('2d'), image = g.createImageData(C, R), span = range[1] - range[0];
    for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) {
      const x = toNumber(m.values[i][j]);
      const c = Number.isFinite(x) ? VIRIDIS[Math.round(255 * (x - range[0]) / span)] : GREY_RGB;
      const at = 4 * (i * C + j);
      image.data[at] = c.r, image.data[at + 1] = c.g, image.data[at + 2] = c.b, image.data[at + 3] = 255;
    }
    g.putImageData(image, 0, 0);
    return canvas;
  }

  // A map of more than GRID_CELLS small cells is one image of pixels, not a rect a cell: the
  // 65 536 rects of chapter 05's four 128 × 128 matrices held the page for two seconds after
  // every sentence. Its cells still hover: the pointer's place names the cell.
  const GRID_CELLS = 16 * 16;
  let gridLines = 0;  // names each map's pattern of lines

  function heatMap(m, decimals, maxWidth) {
    const R = m.rows.length, C = m.cols.length;
    const range = valueRange(m), colour = d3.scaleSequential(d3.interpolateViridis).domain(range);
    const printed = m.values.slice(0, R).map((row) => row.slice(0, C).map((v) => format(v, decimals)));
    const valueW = widest([...new Set(printed.flat())]);  // each distinct text measured once
    const rowLabelW = Math.min(140, widest(m.rows.slice(0, R))) + 8;
    const colLabelW = Math.min(140, widest(m.cols.slice(0, C)));
    // Cells wide enough for the printed values when the matrix fits; smaller otherwise.
    let cw = Math.max(22, Math.min(72, valueW + 10));
    if (rowLabelW + C * cw > maxWidth) cw = Math.max(3, Math.floor((maxWidth - rowLabelW) / C));
    // Values are printed only where they can be read: in cells that hold them, in a map small
    // enough to take in (a 32 × 32 map of "0.0" says nothing); elsewhere a hover shows them.
    const withValues = cw >= valueW + 4 && R <= VALUES_LIMIT && C <= VALUES_LIMIT;
    const ch = withValues ? 20 : Math.min(cw, 22);
    const rotated = colLabelW > cw - 2;  // long column labels stand at an angle
    const top = rotated ? Math.ceil(colLabelW * 0.8) + 10 : 16;
    // Labels thin out when cells are smaller than the text: every k-th one.
    const rowEvery = Math.ceil(12 / ch), colEvery = Math.ceil(12 / cw);

    const svg = svgEl('svg', { class: cw < 10 ? 'heat-map dense' : 'heat-map', width: rowLabelW + C * cw + 4, height: top + R * ch + 2 });
    const labels = svgEl('g', { class: 'labels' }, svg);
    for (let i = 0; i < R; i += rowEvery) {
      svgEl('text', { class: 'row-label', 'data-index': i, x: rowLabelW - 5, y: top + (i + 0.5) * ch, 'text-anchor': 'end', 'dominant-baseline': 'central' }, labels).textContent = m.rows[i];
    }
    for (let j = 0; j < C; j += colEvery) {
      const x = rowLabelW + (j + 0.5) * cw;
      const t = svgEl('text', { class: 'col-label', 'data-index': j }, labels);
      if (rotated) {
        t.setAttribute('transform', `translate(${x + 3},${top - 4}) rotate(-55)`);
      } else {
        Object.entries({ x, y: top - 5, 'text-anchor': 'middle' }).forEach(([k, v]) => t.setAttribute(k, v));
      }
      t.textContent = m.cols[j];
    }
    const cells = svgEl('g', { class: 'cells' }, svg);
    const mark = (i, j, on) => [['row', i], ['col', j]].forEach(([axis, k]) => {
      const label = labels.querySelector(`.${axis}-label[data-index="${k}"]`);
      if (label) label.classList.toggle('hot', on);
    });
    if (!withValues && !m.opens && R * C > GRID_CELLS) {
      const grid = svgEl('image', {
        class: 'cell-grid', 'data-matrix': m.name, 'data-rows': R, 'data-cols': C, x: rowLabelW, y: top,
        width: C * cw, height: R * ch, preserveAspectRatio: 'none', href: pixels(m, R, C, range).toDataURL(),
      }, cells);
      grid.cellValues = m.values;  // what the cells show, for the tests (tests/browser_pages.py)
      if (cw >= 10) {  // the white lines between cells that a map of rects has, as one pattern
        const id = `grid-lines-${++gridLines}`, pattern = svgEl('pattern', { id, width: cw, height: ch, patternUnits: 'userSpaceOnUse', x: rowLabelW, y: top }, svg);
        svgEl('path', { d: `M${cw} 0V${ch}M0 ${ch}H${cw}`, stroke: '#fff', 'stroke-width': 0.5, fill: 'none' }, pattern);
        svgEl('rect', { x: rowLabelW, y: top, width: C * cw, height: R * ch, fill: `url(#${id})`, 'pointer-events': 'none' }, cells);
      }
      let hot = null;  // the cell under the pointer: [i, j]
      const leave = () => { if (hot) mark(...hot, false); hot = null; hideTip(); };
      grid.addEventListener('mousemove', (e) => {
        const r = grid.getBoundingClientRect();
        const i = Math.min(R - 1, Math.floor((e.clientY - r.top) / r.height * R));
        const j = Math.min(C - 1, Math.floor((e.clientX - r.left) / r.width * C));
        if (!hot || hot[0] !== i || hot[1] !== j) { if (hot) mark(...hot, false); hot = [i, j]; mark(i, j, true); }
        cellTip(e, m, decimals, i, j);
      });
      grid.addEventListener('mouseout', leave);
      return svg;
    }
    for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) {
      const v = m.values[i][j], x = toNumber(v), fill = Number.isFinite(x) ? colour(x) : GREY;
      svgEl('rect', {
        class: 'cell', 'data-matrix': m.name, 'data-row': i, 'data-col': j, 'data-value': String(v),
        x: rowLabelW + j * cw, y: top + i * ch, width: cw, height: ch, fill,
      }, cells);
      if (withValues) {
        // Black text on the light (green-yellow) end of viridis and on grey, white on the dark end.
        const dark = Number.isFinite(x) && DARK[Math.round(255 * (x - range[0]) / (range[1] - range[0]))];
        svgEl('text', {
          class: `cell-value${dark ? ' on-dark' : ''}`, x: rowLabelW + (j + 0.5) * cw, y: top + (i + 0.5) * ch,
          'text-anchor': 'middle', 'dominant-baseline': 'central',
        }, cells).textContent = printed[i][j];
      }
    }
    // One listener for all cells: the tooltip, and the cell's row and column labels in bold.
    const at = (cell) => [+cell.dataset.row, +cell.dataset.col];
    svg.addEventListener('mouseover', (e) => { if (e.target.classList.contains('cell')) mark(...at(e.target), true); });
    svg.addEventListener('mouseout', (e) => { if (e.target.classList.contains('cell')) { mark(...at(e.target), false); hideTip(); } });
    svg.addEventListener('mousemove', (e) => { if (e.target.classList.contains('cell')) cellTip(e, m, decimals); });
    return svg;
  }

  // A cell's tooltip, the same for every drawing of a matrix: its value, its row and column
  // labels, the formula that made it, and the head it opens (openHeads). The cell (i, j) is
  // the event's target's, unless given.
  function cellTip(event, m, decimals, i = +event.target.dataset.row, j = +event.target.dataset.col) {
    showTip(event, [`${m.name}[${i}, ${j}] = ${format(m.values[i][j], decimals)}`,
      `row ${i}: ${m.rows[i]}`, `column ${j}: ${m.cols[j]}`, m.formula && `${m.name} = ${m.formula}`,
      event.target.getAttribute('aria-label')]);
  }

  // Positions, slots, indices: numbers to read, not amounts to compare, so a table without
  // colour (the chapter says so: Style().indices()). Its cells hover like a heat map's.
  function numberTable(m, decimals) {
    const wrap = el('div', 'table-wrap'), t = el('table', 'data numbers');
    const head = t.createTHead().insertRow();
    head.append(el('th', '', ''), ...m.cols.map((c) => el('th', 'num', c)));
    const body = t.createTBody();
    m.values.forEach((row, i) => {
      const tr = body.insertRow();
      tr.append(el('th', '', m.rows[i]));
      row.forEach((v, j) => {
        const td = el('td', 'num cell', format(v, decimals));
        Object.assign(td.dataset, { matrix: m.name, row: i, col: j, value: String(v) });
        tr.append(td);
      });
    });
    t.addEventListener('mousemove', (e) => { if (e.target.classList.contains('cell')) cellTip(e, m, decimals); });
    t.addEventListener('mouseout', hideTip);
    wrap.append(t);
    return wrap;
  }

  // ---------------------------------------------------------------- head view
  // Attention weights, as the chapter declares them, small enough to draw whole.
  function isAttention(m) {
    const [R, C] = m.shape;
    return m.kind === 'attention weights' && R > 0 && R <= HEAD_VIEW_LIMIT && C <= HEAD_VIEW_LIMIT;
  }

  // BertViz's head view: queries left, keys right, one line per weight, the weight as opacity.
  function headView(m, decimals) {
    // pad: room left of the queries and right of the keys for the weights a hover prints.
    const pitch = 18, top = 22, gap = 120, pad = 50;
    const left = pad + Math.min(140, widest(m.rows)) + 10, right = left + gap;
    const height = top + Math.max(m.rows.length, m.cols.length) * pitch;
    const width = right + 10 + Math.min(140, widest(m.cols)) + pad;
    const svg = svgEl('svg', { class: 'head-view', 'data-matrix': m.name, width, height });
    svgEl('text', { x: left - 6, y: 12, 'text-anchor': 'end', class: 'hv-title' }, svg).textContent = 'query';
    svgEl('text', { x: right + 6, y: 12, class: 'hv-title' }, svg).textContent = 'key';
    const y = (i) => top + (i + 0.5) * pitch;
    const lines = [];
    const lineGroup = svgEl('g', {}, svg);
    m.values.forEach((row, i) => row.forEach((w, j) => {
      lines.push(svgEl('line', {
        class: 'hv-line', 'data-query': i, 'data-key': j, x1: left, y1: y(i), x2: right, y2: y(j), opacity: String(w),
      }, lineGroup));
    }));
    const token = (cls, i, label, x, anchor) => {
      const t = svgEl('text', { class: cls, 'data-index': i, x, y: y(i), 'text-anchor': anchor, 'dominant-baseline': 'central' }, svg);
      t.textContent = label;
      return t;
    };
    const queries = m.rows.map((label, i) => token('hv-query', i, label, left - 6, 'end'));
    const keys = m.cols.map((label, j) => token('hv-key', j, label, right + 6, 'start'));
    // The weights of the hovered query, printed after its keys (and after each query for a key).
    const weightText = (i, x, anchor) => svgEl('text', { class: 'hv-weight', x, y: y(i), 'text-anchor': anchor, 'dominant-baseline': 'central' }, svg);
    const keyWeights = keys.map((k, j) => weightText(j, right + 14 + widest([m.cols[j]]), 'start'));
    const queryWeights = queries.map((q, i) => weightText(i, left - 12 - widest([m.rows[i]]), 'end'));
    // Hovering a token keeps only its lines: what this query reads, or who reads this key.
    const focus = (side, index) => {
      for (const l of lines) l.classList.toggle('hv-hidden', index != null && +l.dataset[side] !== index);
      queries.forEach((q, i) => q.classList.toggle('hv-active', side === 'query' && i === index));
      keys.forEach((k, j) => k.classList.toggle('hv-active', side === 'key' && j === index));
      keyWeights.forEach((t, j) => { t.textContent = side === 'query' && index != null ? format(m.values[index][j], decimals) : ''; });
      queryWeights.forEach((t, i) => { t.textContent = side === 'key' && index != null ? format(m.values[i][index], decimals) : ''; });
    };
    // The tooltip says what the lines are: the token's row or column of the matrix, and its formula.
    const tip = (e, side, index) => showTip(e, [side === 'query'
      ? `${m.name}[${index}, :]: what query ${index} (${m.rows[index]}) reads from each key`
      : `${m.name}[:, ${index}]: how much each query reads key ${index} (${m.cols[index]})`,
    m.formula && `${m.name} = ${m.formula}`]);
    const hover = (token, side, index) => {
      token.addEventListener('mouseenter', () => focus(side, index));
      token.addEventListener('mousemove', (e) => tip(e, side, index));
      token.addEventListener('mouseleave', () => { focus(side, null); hideTip(); });
    };
    queries.forEach((q, i) => hover(q, 'query', i));
    keys.forEach((k, j) => hover(k, 'key', j));
    return svg;
  }

  // ---------------------------------------------------------------- one matrix, with its group
  // Title, heat map, clipping caption, and the head view for attention weights.
  // stacked: the head view goes under the heat map (side by side, where width is short).
  function matrixTitle(m) {
    const title = el('figcaption', 'matrix-title'), words = el('span', 'title-text');
    words.append(el('span', 'matrix-name', m.name));
    if (m.formula) words.append(` = ${m.formula}`);
    words.append(el('span', 'shape', `(${m.shape[0]} × ${m.shape[1]})`));
    title.append(words);
    return title;
  }
  // A large matrix that no step shows (chapter 22's parameters: 26 of up to 128 × 128) is drawn
  // when asked: all of them would hold the page for seconds after every run.
  const LATER_CELLS = 64 * 64;
  function drawnWhenAsked(m) {
    const rows = m.values.length, cols = rows ? m.values[0].length : 0;
    if (rows * cols <= LATER_CELLS) return matrixView(m.name, 3, WIDTH, false);
    const figure = el('figure', 'matrix-later');
    figure.dataset.later = m.name;
    const button = el('button', 'draw-later', `Draw its heat map (${rows} × ${cols} cells)`);
    button.type = 'button';
    button.addEventListener('click', () => figure.replaceWith(matrixView(m.name, 3, WIDTH, false)));
    figure.append(matrixTitle(m), button);
    return figure;
  }
  function drawMatrix(name, decimals, maxWidth, stacked, indices) {
    const m = matrices.get(name);
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
      figure.append(numberTable(m, decimals));
      if (m.opens) openHeads(figure, m);
      return figure;
    }
    const attention = isAttention(m);
    const pair = el('div', stacked ? 'pair stacked' : 'pair');
    // Attention keeps room beside the heat map for its head view.
    pair.append(heatMap(m, decimals, attention && !stacked ? Math.max(200, maxWidth - 320) : maxWidth));
    if (attention) pair.append(headView(m, decimals));
    figure.append(pair);
    if (m.opens) openHeads(figure, m);
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
  function matrixView(name, decimals, maxWidth, withSelector, stacked, indices) {
    const view = el('div', 'matrix-view');
    const members = withSelector ? groups.get(groupKey(name)) || [name] : [name];
    const body = el('div', 'view-body');
    view.append(body);
    if (members.length < 2) {
      body.append(drawMatrix(name, decimals, maxWidth, stacked, indices));
      return view;
    }
    const layers = uniqueSorted(members.map(layerOf)), heads = uniqueSorted(members.map(headOf));
    const find = (layer, head) => members.find((n) => layerOf(n) === layer && headOf(n) === head);
    const controls = el('div', 'selector'), buttons = [], minis = [];
    // One row of buttons per axis; a button's data-member names the member it switches to,
    // which for "layer 2" depends on the head shown now (and the other way round).
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
    axis('layer', layers, layerOf, (v, cur) => find(v, headOf(cur)) || members.find((n) => layerOf(n) === v));
    axis('head', heads, headOf, (v, cur) => find(layerOf(cur), v) || members.find((n) => headOf(n) === v));
    // One model view per group and step: a step showing all of a group's members needs only one.
    const key = groupKey(name);
    if (layers.length > 1 && heads.length > 1 && !modelViewsInStep.has(key)) {
      modelViewsInStep.add(key);
      view.insertBefore(modelView(members, layers, heads, minis, (n) => show(n)), body);
    }
    function show(member) {
      const figure = drawMatrix(member, decimals, maxWidth, stacked, indices);
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
    if (!familyViews.has(key)) familyViews.set(key, { view, show });
    return view;
  }

  // Every member of a layers × heads group as a thumbnail; a click selects it.
  function modelView(members, layers, heads, cells, select) {
    const grid = el('div', 'model-view');
    grid.style.gridTemplateColumns = `auto repeat(${heads.length}, auto)`;
    grid.append(el('span', 'mv-corner', 'layer \\ head'));
    heads.forEach((h) => grid.append(el('span', 'mv-head', `head ${h}`)));
    for (const layer of layers) {
      grid.append(el('span', 'mv-layer', `layer ${layer}`));
      for (const head of heads) {
        const name = members.find((n) => layerOf(n) === layer && headOf(n) === head);
        const cell = el('div', 'model-cell');
        if (name) {
          cell.dataset.member = name;
          const m = matrices.get(name);
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

  // ---------------------------------------------------------------- tables that open heads
  // A (layers × heads) table of one number per head (a score, a loss) opens each head: a click
  // on its cell (l, h), or Enter, shows the member of layer l, head h of the family it names,
  // in the first view of that family on the page (as a click on its model view's thumbnail).
  const familyViews = new Map();  // group key → its first view with buttons: { view, show }
  function openHeads(figure, m) {
    const members = groups.get(`family ${m.opens}`) || [];
    const layers = uniqueSorted(members.map(layerOf)), heads = uniqueSorted(members.map(headOf));
    if (m.shape[0] !== layers.length || m.shape[1] !== heads.length) return;  // not that family's table
    for (const cell of figure.querySelectorAll('.cell')) {
      const layer = layers[cell.dataset.row], head = heads[cell.dataset.col];
      const member = members.find((n) => layerOf(n) === layer && headOf(n) === head);
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
      openHead(cell.dataset.opens);
    };
    figure.addEventListener('click', open);
    figure.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') open(e); });
  }
  // Shows the member in its family's first view (a family no step shows: its own figure in the
  // appendix), and brings that on screen: presented, the screen of its step that holds it.
  function openHead(member) {
    drawTo(fills.length);  // the view may be in a step not drawn yet
    const family = familyViews.get(groupKey(member));
    if (family) family.show(member);
    const target = family ? family.view : main.querySelector(`figure.matrix[data-matrix="${member}"]`);
    const s = target.closest('section.step'), n = +s.dataset.step;
    if (!document.body.classList.contains('presenting') || s.classList.contains('appendix')) {
      go(n, false);
      target.scrollIntoView({ block: 'start' });
      return;
    }
    go(n, true, 0);
    // the screen of the member's own figure (a model view of every head may be on the one before)
    const figure = target.matches('figure') ? target : target.querySelector('figure.matrix') || target;
    const k = plans.get(s).screens.findIndex((screen) => screen.blocks.some((b) => b.some((e) => e.contains(figure))));
    if (k > 0) go(n, true, k);
  }

  // ---------------------------------------------------------------- charts
  // Four significant digits are plenty for reading a curve (the step numbers stay whole).
  const fourDigits = (v) => (Number.isInteger(v) ? String(v) : String(+v.toPrecision(4)));
  function chart(block) {
    const width = 760, height = 360, margin = { top: 12, right: 20, bottom: 46, left: 70 };
    const usable = (v, log) => v != null && Number.isFinite(+v) && (!log || v > 0);
    const series = block.series.map((s, k) => ({
      label: s.label, colour: COLOURS[k % COLOURS.length],
      points: s.x.map((x, i) => ({ x, y: s.y[i] })),
    }));
    const ok = (p) => usable(p.x, block.x.log) && usable(p.y, block.y.log);
    const all = series.flatMap((s) => s.points.filter(ok));
    const scale = (axis, values, range) => {
      let [lo, hi] = values.length ? d3.extent(values) : [1, 10];
      if (lo === hi) [lo, hi] = axis.log ? [lo / 2, hi * 2] : [lo - 1, hi + 1];
      else if (axis.log) [lo, hi] = [lo / 1.15, hi * 1.15];  // keep the end points off the axes
      // nice() rounds a log axis out to whole decades, which can waste most of it.
      return axis.log ? d3.scaleLog().domain([lo, hi]).range(range) : d3.scaleLinear().domain([lo, hi]).range(range).nice();
    };
    const x = scale(block.x, all.map((p) => p.x), [margin.left, width - margin.right]);
    const y = scale(block.y, all.map((p) => p.y), [height - margin.bottom, margin.top]);
    const figure = el('figure', 'chart');
    figure.dataset.chart = block.name;
    if (block.title) figure.append(el('figcaption', 'chart-title', block.title));
    const svg = d3.select(figure).append('svg').attr('width', width).attr('height', height);
    // Log axes label only a few ticks per decade, so the labels do not collide.
    const ticks = (axis, scaleOf, n) => (axis.log ? scaleOf.ticks(n, '~g') : scaleOf.ticks(n).tickFormat(null, '~g'));
    svg.append('g').attr('transform', `translate(0,${height - margin.bottom})`).call(ticks(block.x, d3.axisBottom(x), 7));
    svg.append('g').attr('transform', `translate(${margin.left},0)`).call(ticks(block.y, d3.axisLeft(y), 6));
    svg.append('text').attr('class', 'axis-label').attr('x', (margin.left + width - margin.right) / 2)
      .attr('y', height - 8).attr('text-anchor', 'middle').text(block.x.label + (block.x.log ? ' (log scale)' : ''));
    svg.append('text').attr('class', 'axis-label').attr('transform', `translate(16,${(margin.top + height - margin.bottom) / 2}) rotate(-90)`)
      .attr('text-anchor', 'middle').text(block.y.label + (block.y.log ? ' (log scale)' : ''));
    const line = d3.line().defined(ok).x((p) => x(p.x)).y((p) => y(p.y));
    for (const s of series) {
      svg.append('path').attr('class', 'series').attr('fill', 'none').attr('stroke', s.colour).attr('stroke-width', 2).attr('d', line(s.points));
      // Many points make a dense row of dots: smaller ones then.
      const r = s.points.length > 150 ? 2 : 3.5;
      svg.append('g').selectAll('circle').data(s.points.filter(ok)).enter().append('circle')
        .attr('class', 'point').attr('data-series', s.label).attr('data-x', (p) => String(p.x)).attr('data-y', (p) => String(p.y))
        .attr('cx', (p) => x(p.x)).attr('cy', (p) => y(p.y)).attr('r', r).attr('fill', s.colour)
        .on('mousemove', (p) => showTip(d3.event, [s.label, `${block.x.label} = ${fourDigits(p.x)}`, `${block.y.label} = ${fourDigits(p.y)}`]))
        .on('mouseout', hideTip);
    }
    const legend = el('div', 'legend');
    for (const s of series) {
      const item = el('span', 'legend-item');
      const swatch = el('span', 'swatch');
      swatch.style.background = s.colour;
      item.append(swatch, s.label);
      legend.append(item);
    }
    if (series.length > 1 || (series[0] && series[0].label)) figure.append(legend);
    return figure;
  }

  // ---------------------------------------------------------------- text, tables, checks
  // Prose is written for a terminal, broken into lines that fit it: on the page the lines of
  // a paragraph flow as one. A line stays a line of its own where the text has structure: a
  // blank line between paragraphs, an indented line (a formula set apart), a list's item.
  // Text whose lines are aligned in columns (small tables the terminal lines up with spaces
  // or rules) keeps every line, in a monospace font.
  const ownLine = /^(\s|[-•*·] |\d+[.)] |\([a-z0-9]\) )/;
  function text(block) {
    const lines = block.text.split('\n');
    const aligned = lines.length >= 2 && lines.filter((l) => /\S {2,}\S|[│─┼]/.test(l)).length >= 2;
    if (aligned) return el('p', 'text mono', block.text);
    const joined = lines.reduce((out, line, k) => {
      if (k === 0) return line;
      const previous = lines[k - 1];
      const flows = line.trim() && previous.trim() && !ownLine.test(line) && !ownLine.test(previous);
      return out + (flows ? ' ' : '\n') + line;
    }, '');
    return el('p', 'text', joined);
  }
  // (a number starts with a digit, or a sign or a point before one: ", 0.17" is a token and its odds)
  const numeric = (s) => /^[-−+]?\.?\d[\d.,  ]*(e[-+]?\d+)?\s*(%|×|x|s|ms|µs|[KMG]i?B)?$/i.test(s.trim());
  function table(block) {
    const wrap = el('div', 'table-wrap'), t = el('table', 'data');
    // Numbers align right, and so does the header of a column of numbers.
    const numberColumn = block.header.map((_, j) => block.rows.length > 0 && block.rows.every((r) => r[j] == null || numeric(r[j])));
    const head = t.createTHead().insertRow();
    block.header.forEach((h, j) => head.append(el('th', numberColumn[j] ? 'num' : '', h)));
    const body = t.createTBody();
    for (const row of block.rows) {
      const tr = body.insertRow();
      for (const cell of row) tr.append(el('td', numeric(cell) ? 'num' : '', cell));
    }
    wrap.append(t);
    return wrap;
  }
  function checks(block) {
    const list = el('ul', 'checks');
    const kind = { '✓': 'held', '✗': 'failed' };
    for (const line of block.lines) {
      const li = el('li', kind[line.mark] || 'unchecked');
      li.append(el('span', 'mark', line.mark), el('span', 'check-text', line.text));
      list.append(li);
    }
    return list;
  }

  // ---------------------------------------------------------------- the page
  const main = el('main', 'drawn');
  const shown = new Set();  // matrices some step names: the rest go to the appendix
  let modelViewsInStep = new Set();  // groups whose model view this step already has
  const WIDTH = 1180;       // the widest a figure gets: fits a 1280-pixel projector
  function block(b) {
    switch (b.kind) {
      case 'text': return text(b);
      case 'caption': return el('p', 'caption', b.text);
      case 'indices': return matrixView(b.name, b.decimals ?? 0, WIDTH, false, false, true);
      case 'matrix':
      case 'heat_map':
        // A step that shows every head of a layers × heads group (chapter 16) gets one view of
        // the group: its model view and its switch reach the other heads.
        if (modelViewsInStep.has(groupKey(b.name))) return document.createComment(` ${b.name}: in its group's view `);
        return matrixView(b.name, b.decimals ?? 3, WIDTH, true);
      case 'side_by_side': {
        const row = el('div', 'side-by-side');
        const each = Math.max(320, Math.floor(WIDTH / b.matrices.length) - 24);
        for (const m of b.matrices) row.append(matrixView(m.name, m.decimals ?? 3, each, true, true));
        return row;
      }
      case 'table': return table(b);
      case 'chart': return chart(b);
      case 'checks': return checks(b);
      default: return el('p', 'missing', `(a block of kind "${b.kind}" this page does not know)`);
    }
  }
  function section(number, heading, cls) {
    const s = el('section', cls);
    s.id = `step-${number}`;
    s.dataset.step = number;
    const h2 = el('h2', '', heading);
    h2.append(el('span', 'screen-of'));  // "(2/3)": a screen of a presented step
    s.append(h2);
    main.append(s);
    return s;
  }
  for (const step of lesson.steps)
    for (const b of step.blocks) {
      if (b.kind === 'matrix' || b.kind === 'heat_map' || b.kind === 'indices') shown.add(b.name);
      if (b.kind === 'side_by_side') b.matrices.forEach((m) => shown.add(m.name));
    }
  // Each section is drawn once, in order: the first at once, the rest while the reader reads
  // (a step jumped to is drawn first, with every step above it, so that nothing moves under
  // the reader). Chapter 16's page, 50 000 elements in all, opens as fast as a small one.
  const fills = [];
  main.append(el('h1', 'lesson-title', lesson.title));
  lesson.steps.forEach((step, k) => {
    const s = section(k + 1, `Step ${k + 1}. ${step.heading}`, 'step');
    fills.push(() => {
      modelViewsInStep = new Set();
      for (const b of step.blocks) s.append(block(b));
    });
  });
  const rest = lesson.matrices.filter((m) => !shown.has(m.name));
  const appendix = section(lesson.steps.length + 1, 'Every matrix', 'step appendix');
  fills.push(() => {
    appendix.append(el('p', 'text', rest.length
      ? 'The matrices of the chapter\'s list that no step shows, in the list\'s order.'
      : 'Every matrix of the chapter\'s list is shown in a step above.'));
    for (const m of rest) appendix.append(drawnWhenAsked(m));
  });
  let filled = 0;
  function drawTo(n) {
    while (filled < Math.min(n, fills.length)) fills[filled++]();
    if (filled === fills.length) document.body.dataset.drawn = 'all';  // the tests wait for it
  }
  // Sections are drawn in slices of about SLICE_MS, the browser free to answer the reader in
  // between (a slice a section laid the page out after each one: a tenth of a second in all).
  const SLICE_MS = 40;
  function drawLater() {
    if (filled === fills.length || listening.signal.aborted) return;
    const start = performance.now();
    do drawTo(filled + 1); while (filled < fills.length && performance.now() - start < SLICE_MS);
    setTimeout(drawLater, 0);
  }

  // ---------------------------------------------------------------- navigation
  // A fixed bar: every step by number and heading, and the presentation button.
  const nav = el('nav', 'stepnav drawn');
  const sections = [...main.querySelectorAll('section.step')];
  const links = sections.map((s) => {
    const a = el('a', '', s.dataset.step);
    a.href = `#${s.id}`;
    const heading = s.classList.contains('appendix') ? 'Every matrix' : lesson.steps[s.dataset.step - 1].heading;
    a.append(el('span', 'nav-heading', heading));
    a.title = s.querySelector('h2').textContent;
    return a;
  });
  const present = el('button', 'present', 'Present (p)');
  present.type = 'button';
  present.title = 'One step at a time, a long one over several screens; ← → move, Esc leaves';
  const short = el('span', 'nav-title', lesson.title.split(' · ')[0]);  // "Chapter 07": the h1 has the rest
  short.title = lesson.title;
  nav.append(short, ...links, present);
  document.body.append(nav, main);

  // Presentation: a step is one screen or, when it does not fit one at a readable size,
  // several, cut between its blocks (a paragraph, a matrix, a table, a chart, the checks); its
  // heading is on each, with "(2/3)". ← → go screen by screen; the URL names the screen,
  // #step-4.2 (the first is #step-4).
  let current = 0, screen = 0;
  const plans = new Map();  // section → its screens at this window's size
  function go(n, scroll, k = n === current ? screen : 0) {
    current = Math.max(1, Math.min(sections.length, n));
    drawTo(current);
    sections.forEach((s, i) => s.classList.toggle('current', i + 1 === current));
    links.forEach((a, i) => a.classList.toggle('current', i + 1 === current));
    const s = sections[current - 1];
    const inShow = document.body.classList.contains('presenting');
    screen = 0;
    // The appendix of every matrix is no step to present: it scrolls.
    if (inShow && !s.classList.contains('appendix')) {
      if (!plans.has(s)) plans.set(s, planScreens(s));
      const count = plans.get(s).screens.length;
      screen = k < 0 ? count - 1 : Math.min(k, count - 1);
      showScreen(s, plans.get(s), screen);
    }
    // replaceState, not location.hash: a new hash would make its own jump and a history entry per key.
    // (what follows '&' is the run's arguments, explorer/live.js)
    const hash = `#step-${current}${screen ? `.${screen + 1}` : ''}${location.hash.replace(/^[^&]*/, '')}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
    if (scroll) {
      if (inShow) window.scrollTo(0, 0);
      else s.scrollIntoView({ block: 'start' });
    }
  }
  // The next screen (dir 1) or the one before (-1): of this step, else of the next step.
  function move(dir) {
    const plan = plans.get(sections[current - 1]);
    if (document.body.classList.contains('presenting') && plan) {
      const k = screen + dir;
      if (k >= 0 && k < plan.screens.length) return go(current, true, k);
      if (current + dir < 1 || current + dir > sections.length) return;
    }
    go(current + dir, true, dir < 0 ? -1 : 0);  // ← lands on the last screen of the step before
  }

  // A screen is drawn z times larger than its layout (CSS zoom: the browser maps the pointer
  // through it, so hovering still works), laid out at the screen's width / z. Its zoom is the
  // largest that fits, at most LARGEST_ZOOM (larger, a short step of prose is a poster) and at
  // least the zoom that makes its text READABLE_PX high: body text of 16 px on a 1280 × 800
  // projector, the size a page is read at. A block too big for a screen even alone (a 32 × 32
  // heat map beside its head view) is scaled down on its own, so that its text and heading
  // stay readable.
  const READABLE_PX = 16, LARGEST_ZOOM = 2.5;
  const READ = 'p.text, ul.checks li, table.data';  // the text of a step (not a figure's labels)
  function screenSize() {
    const margin = 16;
    return { width: window.innerWidth - 2 * margin, height: window.innerHeight - nav.offsetHeight - 2 * margin };
  }
  // A step's blocks, each with the caption lines under it; each self-check line is one (a
  // long list of them goes on over screens), and a model view of every head is one apart from
  // the head it shows (together they were too tall for a screen: chapter 22's scaled to 0.6).
  function blocksOf(s) {
    const blocks = [];
    for (const e of s.children) {
      if (e.tagName === 'H2') continue;
      if (e.matches('p.caption') && blocks.length) blocks[blocks.length - 1].push(e);
      else if (e.matches('ul.checks')) blocks.push(...[...e.children].map((li) => [li]));
      else if (e.matches('.matrix-view') && e.querySelector(':scope > .model-view')) blocks.push(...[...e.children].map((c) => [c]));
      else blocks.push([e]);
    }
    return blocks;
  }
  // The size of a block's smallest text (px; Infinity for a figure without any).
  function smallestText(block) {
    let smallest = Infinity;
    for (const e of block) {
      for (const t of [e, ...e.querySelectorAll(READ)]) {
        if (t.matches(READ)) smallest = Math.min(smallest, parseFloat(getComputedStyle(t).fontSize));
      }
    }
    return smallest;
  }
  // Displays only these of the step's blocks, the block `scaled` zoomed by `inner`.
  function display(all, blocks, scaled = null, inner = 1) {
    for (const b of all) for (const e of b) {
      e.classList.toggle('off-screen', !blocks.includes(b));
      e.classList.toggle('scaled-to-fit', b === scaled);
      e.style.zoom = b === scaled ? inner : '';
    }
    for (const list of all.flat().filter((e) => e.matches('li:first-child')).map((e) => e.parentNode)) {
      list.classList.toggle('off-screen', [...list.children].every((li) => li.classList.contains('off-screen')));
    }
  }
  // How far what s displays overflows the screen at zoom z: at most 1 when it fits. (Its
  // height says how much room is left; its width only whether something sticks out.)
  function overflow(s, z, size) {
    const width = size.width / z;
    s.style.zoom = 1;
    s.style.width = `${width}px`;
    return Math.max(s.scrollWidth > width + 1 ? s.scrollWidth / width : 0, (s.scrollHeight * z - 1) / size.height);
  }
  const fits = (s, z, size) => overflow(s, z, size) <= 1;
  // Each try is a layout of the step (tens of ms for a large map): the zooms below are found
  // in a few, from what the layout measures, not by halving an interval (a dozen).
  // The largest zoom in [lo, hi] at which s fits, given that it fits at lo: s grown in
  // proportion, then shrunk by what each try overflows (text wraps anew at each width).
  function largestZoom(s, lo, hi, size) {
    let z = Math.min(hi, lo / overflow(s, lo, size));
    for (let k = 0; k < 8 && z > lo; k++) {
      const over = overflow(s, z, size);
      if (over <= 1) return z;
      z = z / over - 0.002;
    }
    return lo;
  }
  // The step's screens, filled in order: a block joins the screen before while they fit at a
  // readable zoom together. A block too big alone takes the paragraph before it along (what
  // introduces it) when that costs the block at most a quarter of its size.
  function planScreens(s) {
    const size = screenSize(), all = blocksOf(s), screens = [];
    // The heading's "(2/3)" can take a line of its own: the blocks are measured under it.
    const count = (k, n) => { s.querySelector('.screen-of').textContent = n > 1 ? ` (${k}/${n})` : ''; };
    count(8, 8);
    // The smallest zoom at which these blocks' text is readable.
    const sizes = new Map(all.map((b) => [b, smallestText(b)]));
    const readableZoom = (blocks) => Math.max(1, READABLE_PX / Math.min(...blocks.map((b) => sizes.get(b))));
    const fitsReadable = (blocks) => (display(all, blocks), fits(s, readableZoom(blocks), size));
    // The zoom of the block `big` at which these blocks fit the screen at a readable zoom:
    // the room the others leave it, then a little less while that still overflows.
    const innerZoom = (blocks, big) => {
      const z = readableZoom(blocks);
      display(all, blocks, big, 1);
      const over = overflow(s, z, size);
      const tall = big.reduce((h, e) => h + e.getBoundingClientRect().height, 0);
      const wide = Math.max(...big.map((e) => e.scrollWidth));
      let k = Math.min(1, (size.height / z - (s.scrollHeight - tall)) / tall, size.width / z / wide, 1 / over);
      for (let i = 0; i < 30 && k > 0.05; i++, k *= 0.97) {
        display(all, blocks, big, k);
        if (fits(s, z, size)) break;
      }
      return Math.max(k, 0.05);
    };
    const prose = (b) => b && b[0].matches('p.text:not(.mono)');
    let open = [];
    for (const b of all) {
      // The paragraph right after a block scaled down alone says what it shows: it joins it
      // on the same terms as the one before.
      const big = !open.length && screens.length && screens[screens.length - 1];
      const joined = big && big.scaled && !big.after && prose(b) && innerZoom([...big.blocks, b], big.scaled);
      if (joined >= 0.75 * big.alone) {
        Object.assign(big, { inner: joined, after: true });
        big.blocks.push(b);
        continue;
      }
      if (fitsReadable([...open, b])) { open.push(b); continue; }
      // A paragraph at the foot of a screen introduces the block after it: it moves along.
      const last = open[open.length - 1];
      if (open.length > 1 && prose(last) && fitsReadable([last, b])) {
        screens.push({ blocks: open.slice(0, -1) });
        open = [last, b];
        continue;
      }
      if (open.length) screens.push({ blocks: open });
      open = [b];
      if (fitsReadable(open)) continue;
      const before = screens.length ? screens[screens.length - 1].blocks : [];
      const text = prose(before[before.length - 1]) ? before[before.length - 1] : null;
      const alone = innerZoom([b], b), inner = text && innerZoom([text, b], b);
      if (inner >= 0.75 * alone) {
        before.pop();
        if (!before.length) screens.pop();
        screens.push({ blocks: [text, b], scaled: b, alone, inner });
      } else {
        screens.push({ blocks: [b], scaled: b, alone, inner: alone });
      }
      open = [];
    }
    if (open.length || !screens.length) screens.push({ blocks: open });
    // A scaled block's screen is at the readable zoom; the others as large as they fit.
    screens.forEach((screen, k) => {
      count(k + 1, screens.length);
      const z = readableZoom(screen.blocks);
      display(all, screen.blocks);
      screen.zoom = screen.scaled ? z : largestZoom(s, z, LARGEST_ZOOM, size);
    });
    return { all, screens };
  }
  function showScreen(s, { all, screens }, k) {
    const { blocks, scaled, inner, zoom } = screens[k];
    display(all, blocks, scaled, inner);
    s.querySelector('.screen-of').textContent = screens.length > 1 ? ` (${k + 1}/${screens.length})` : '';
    s.style.width = `${screenSize().width / zoom}px`;
    s.style.zoom = zoom;
  }
  function unfit() {
    plans.clear();
    for (const s of sections) {
      s.style.zoom = '';
      s.style.width = '';
      s.querySelector('.screen-of').textContent = '';
      for (const e of s.querySelectorAll('.off-screen, .scaled-to-fit')) {
        e.classList.remove('off-screen', 'scaled-to-fit');
        e.style.zoom = '';
      }
    }
  }
  window.addEventListener('resize', () => {
    if (!document.body.classList.contains('presenting')) return;
    plans.clear();
    go(current, false);
  }, listening);
  const fromHash = () => {
    const [, n, k] = /^#step-(\d+)(?:\.(\d+))?(?:&.*)?$/.exec(location.hash) || [];
    return [+n || 0, Math.max(0, (+k || 1) - 1)];
  };
  function presenting(on) {
    document.body.classList.toggle('presenting', on);
    present.classList.toggle('selected', on);
    present.textContent = on ? 'Leave (Esc)' : 'Present (p)';
    if (!on) unfit();
    go(current, true, 0);
  }
  present.addEventListener('click', () => presenting(!document.body.classList.contains('presenting')));
  // A click on a step's link goes there even when the hash is already that step's.
  links.forEach((a, i) => a.addEventListener('click', (e) => { e.preventDefault(); go(i + 1, true); }));
  window.addEventListener('hashchange', () => { const [n, k] = fromHash(); if (n) go(n, true, k); }, listening);
  // A click inside a step makes it the current one, so that ← → continue from there.
  main.addEventListener('click', (e) => { const s = e.target.closest('section.step'); if (s) go(+s.dataset.step, false); });
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
    const inShow = document.body.classList.contains('presenting');
    // Presentation clickers send PageDown / PageUp; in the page itself those keep scrolling.
    const next = e.key === 'ArrowRight' || (inShow && e.key === 'PageDown');
    const prev = e.key === 'ArrowLeft' || (inShow && e.key === 'PageUp');
    if (next || prev) { move(next ? 1 : -1); e.preventDefault(); }
    else if (e.key === 'p' || e.key === 'P') presenting(!inShow);
    else if (e.key === 'Escape' && inShow) presenting(false);
  }, listening);
  // Scrolling by hand moves the current step too (the step under the bar), so that ← →
  // continue from what is on screen. At the bottom of the page a current step still in view
  // stays: the last steps can be too short to reach the top of the window.
  let pending = false;
  window.addEventListener('scroll', () => {
    if (pending || document.body.classList.contains('presenting')) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      const line = nav.offsetHeight + 40;
      let n = 1;
      sections.forEach((s, i) => { if (s.getBoundingClientRect().top <= line) n = i + 1; });
      const top = sections[current - 1].getBoundingClientRect().top;
      const atBottom = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
      if (n !== current && !(atBottom && top > line && top < window.innerHeight)) go(n, false);
    });
  }, listening);
  const [start] = fromHash();
  go(step || start || 1, !step && start > 0);
  setTimeout(drawLater, 0);
  return () => current;  // the step shown, for the next drawing
};
window.currentStep = window.drawLesson(JSON.parse(document.getElementById('lesson').textContent));
