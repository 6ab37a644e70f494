// heat_map.js: a matrix (the corner of it the page holds) as a heat map: viridis cells, row
// and column labels, its values printed where they can be read, and a hover that shows a
// cell's tooltip and puts its labels in bold. A large map is one image, a pixel a cell.
'use strict';

const VALUES_LIMIT = 16;  // a map with more rows or columns shows its values on hover only
// A map of more than GRID_CELLS small cells is one image of pixels, not a rect a cell: the
// 65 536 rects of chapter 05's four 128 × 128 matrices held the page for two seconds after
// every sentence. Its cells still hover: the pointer's place names the cell.
const GRID_CELLS = 16 * 16;

// The sizes of a heat map of R × C cells at most maxWidth wide, from the widths of its texts
// (the widest printed value, row label and column label): the cell's width cw and height ch,
// whether values are printed, whether column labels stand at an angle, the room above the
// cells (top), and which labels are written (every rowEvery-th row, colEvery-th column).
function heatMapLayout({ rows: R, cols: C, valueWidth, rowLabelWidth, colLabelWidth, maxWidth }) {
  // Cells wide enough for the printed values when the matrix fits; smaller otherwise.
  let cw = Math.max(22, Math.min(72, valueWidth + 10));
  if (rowLabelWidth + C * cw > maxWidth) cw = Math.max(3, Math.floor((maxWidth - rowLabelWidth) / C));
  // Values are printed only where they can be read: in cells that hold them, in a map small
  // enough to take in (a 32 × 32 map of "0.0" says nothing); elsewhere a hover shows them.
  const withValues = cw >= valueWidth + 4 && R <= VALUES_LIMIT && C <= VALUES_LIMIT;
  const ch = withValues ? 20 : Math.min(cw, 22);
  const rotated = colLabelWidth > cw - 2;  // long column labels stand at an angle
  const top = rotated ? Math.ceil(colLabelWidth * 0.8) + 10 : 16;
  // Labels thin out when cells are smaller than the text: every k-th one.
  return { cw, ch, withValues, rotated, top, rowEvery: Math.ceil(12 / ch), colEvery: Math.ceil(12 / cw) };
}

// The heat map of m, at most maxWidth wide, as an <svg>.
function heatMap(page, m, decimals, maxWidth) {
  const R = m.rows.length, C = m.cols.length;
  const printed = m.values.slice(0, R).map((row) => row.slice(0, C).map((v) => formatValue(v, decimals)));
  const rowLabelWidth = Math.min(140, widest(m.rows.slice(0, R))) + 8;
  const map = {
    R, C, printed, left: rowLabelWidth, range: valueRange(m),
    ...heatMapLayout({
      rows: R, cols: C, rowLabelWidth, maxWidth,
      valueWidth: widest([...new Set(printed.flat())]),  // each distinct text measured once
      colLabelWidth: Math.min(140, widest(m.cols.slice(0, C))),
    }),
  };
  const { cw, ch, left, top } = map;
  const svg = svgEl('svg', { class: cw < 10 ? 'heat-map dense' : 'heat-map', width: left + C * cw + 4, height: top + R * ch + 2 });
  const labels = heatMapLabels(svg, m, map);
  const cells = svgEl('g', { class: 'cells' }, svg);
  // A hovered cell's row and column labels are in bold.
  const mark = (i, j, on) => [['row', i], ['col', j]].forEach(([axis, k]) => {
    const label = labels.querySelector(`.${axis}-label[data-index="${k}"]`);
    if (label) label.classList.toggle('hot', on);
  });
  if (!map.withValues && !m.opens && R * C > GRID_CELLS) pixelGrid(page, svg, cells, m, decimals, map, mark);
  else cellRects(page, svg, cells, m, decimals, map, mark);
  return svg;
}

// The row labels left of the cells and the column labels above them (thinned out).
function heatMapLabels(svg, m, { R, C, cw, ch, left, top, rotated, rowEvery, colEvery }) {
  const labels = svgEl('g', { class: 'labels' }, svg);
  for (let i = 0; i < R; i += rowEvery) {
    svgEl('text', { class: 'row-label', 'data-index': i, x: left - 5, y: top + (i + 0.5) * ch, 'text-anchor': 'end', 'dominant-baseline': 'central' }, labels).textContent = m.rows[i];
  }
  for (let j = 0; j < C; j += colEvery) {
    const x = left + (j + 0.5) * cw;
    const t = svgEl('text', { class: 'col-label', 'data-index': j }, labels);
    if (rotated) {
      t.setAttribute('transform', `translate(${x + 3},${top - 4}) rotate(-55)`);
    } else {
      Object.entries({ x, y: top - 5, 'text-anchor': 'middle' }).forEach(([k, v]) => t.setAttribute(k, v));
    }
    t.textContent = m.cols[j];
  }
  return labels;
}

// The top-left R × C corner of m as a canvas of one pixel a cell, in viridis over `range`.
function pixels(m, R, C, range) {
  const canvas = document.createElement('canvas');
  canvas.width = C, canvas.height = R;
  const g = canvas.getContext('2d'), image = g.createImageData(C, R);
  for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) {
    const x = toNumber(m.values[i][j]);
    const c = Number.isFinite(x) ? VIRIDIS[viridisStep(x, range)] : GREY_RGB;
    const at = 4 * (i * C + j);
    image.data[at] = c.r, image.data[at + 1] = c.g, image.data[at + 2] = c.b, image.data[at + 3] = 255;
  }
  g.putImageData(image, 0, 0);
  return canvas;
}

// The cells as one image; the pointer's place over it names the cell it hovers.
function pixelGrid(page, svg, cells, m, decimals, { R, C, cw, ch, left, top, range }, mark) {
  const grid = svgEl('image', {
    class: 'cell-grid', 'data-matrix': m.name, 'data-rows': R, 'data-cols': C, x: left, y: top,
    width: C * cw, height: R * ch, preserveAspectRatio: 'none', href: pixels(m, R, C, range).toDataURL(),
  }, cells);
  grid.cellValues = m.values;  // what the cells show, for the tests (tests/browser_pages.py)
  if (cw >= 10) {  // the white lines between cells that a map of rects has, as one pattern
    const id = `grid-lines-${++page.gridLines}`, pattern = svgEl('pattern', { id, width: cw, height: ch, patternUnits: 'userSpaceOnUse', x: left, y: top }, svg);
    svgEl('path', { d: `M${cw} 0V${ch}M0 ${ch}H${cw}`, stroke: '#fff', 'stroke-width': 0.5, fill: 'none' }, pattern);
    svgEl('rect', { x: left, y: top, width: C * cw, height: R * ch, fill: `url(#${id})`, 'pointer-events': 'none' }, cells);
  }
  let hot = null;  // the cell under the pointer: [i, j]
  const leave = () => { if (hot) mark(...hot, false); hot = null; page.tip.hide(); };
  grid.addEventListener('mousemove', (e) => {
    const r = grid.getBoundingClientRect();
    const i = Math.min(R - 1, Math.floor((e.clientY - r.top) / r.height * R));
    const j = Math.min(C - 1, Math.floor((e.clientX - r.left) / r.width * C));
    if (!hot || hot[0] !== i || hot[1] !== j) { if (hot) mark(...hot, false); hot = [i, j]; mark(i, j, true); }
    cellTip(page.tip, e, m, decimals, i, j);
  });
  grid.addEventListener('mouseout', leave);
}

// A rect a cell, each with its value written on it when the map prints values.
function cellRects(page, svg, cells, m, decimals, { R, C, cw, ch, left, top, range, printed, withValues }, mark) {
  const colour = d3.scaleSequential(d3.interpolateViridis).domain(range);
  for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) {
    const v = m.values[i][j], x = toNumber(v), fill = Number.isFinite(x) ? colour(x) : GREY;
    svgEl('rect', {
      class: 'cell', 'data-matrix': m.name, 'data-row': i, 'data-col': j, 'data-value': String(v),
      x: left + j * cw, y: top + i * ch, width: cw, height: ch, fill,
    }, cells);
    if (withValues) {
      // White text on the dark end of viridis, black on the light (green-yellow) end and on grey.
      const white = Number.isFinite(x) && WHITE_TEXT[viridisStep(x, range)];
      svgEl('text', {
        class: `cell-value${white ? ' on-dark' : ''}`, x: left + (j + 0.5) * cw, y: top + (i + 0.5) * ch,
        'text-anchor': 'middle', 'dominant-baseline': 'central',
      }, cells).textContent = printed[i][j];
    }
  }
  // One listener for all cells: the tooltip, and the cell's row and column labels in bold.
  const at = (cell) => [+cell.dataset.row, +cell.dataset.col];
  svg.addEventListener('mouseover', (e) => { if (e.target.classList.contains('cell')) mark(...at(e.target), true); });
  svg.addEventListener('mouseout', (e) => { if (e.target.classList.contains('cell')) { mark(...at(e.target), false); page.tip.hide(); } });
  svg.addEventListener('mousemove', (e) => { if (e.target.classList.contains('cell')) cellTip(page.tip, e, m, decimals); });
}
