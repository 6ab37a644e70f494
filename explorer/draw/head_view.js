// head_view.js: attention weights as BertViz's head view: the queries left, the keys right,
// one line from each query to each key with the weight as its opacity. Hovering a token keeps
// only its lines and prints their weights.
'use strict';

const HEAD_VIEW_LIMIT = 64;  // beyond this a head view is a grey blur of lines

// Attention weights, as the chapter declares them, small enough to draw whole.
function isAttention(m) {
  const [R, C] = m.shape;
  return m.kind === 'attention weights' && R > 0 && R <= HEAD_VIEW_LIMIT && C <= HEAD_VIEW_LIMIT;
}

function headView(page, m, decimals) {
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
    keyWeights.forEach((t, j) => { t.textContent = side === 'query' && index != null ? formatValue(m.values[index][j], decimals) : ''; });
    queryWeights.forEach((t, i) => { t.textContent = side === 'key' && index != null ? formatValue(m.values[i][index], decimals) : ''; });
  };
  // The tooltip says what the lines are: the token's row or column of the matrix, and its formula.
  const tip = (e, side, index) => page.tip.show(e, [side === 'query'
    ? `${m.name}[${index}, :]: what query ${index} (${m.rows[index]}) reads from each key`
    : `${m.name}[:, ${index}]: how much each query reads key ${index} (${m.cols[index]})`,
  m.formula && `${m.name} = ${m.formula}`]);
  const hover = (t, side, index) => {
    t.addEventListener('mouseenter', () => focus(side, index));
    t.addEventListener('mousemove', (e) => tip(e, side, index));
    t.addEventListener('mouseleave', () => { focus(side, null); page.tip.hide(); });
  };
  queries.forEach((q, i) => hover(q, 'query', i));
  keys.forEach((k, j) => hover(k, 'key', j));
  return svg;
}
