// charts.js: a chart block (a loss against the training step, a time against n) as a d3 line
// chart: one coloured line of points a series, linear or log axes, a legend, and a tooltip
// on each point with its series, x and y.
'use strict';

// Okabe–Ito, readable by colour-blind students; yellow last since it is faint on white.
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];

// A d3 scale for one axis ({ log }) over these values, onto the pixel range.
function chartScale(axis, values, range) {
  let [lo, hi] = values.length ? d3.extent(values) : [1, 10];
  if (lo === hi) [lo, hi] = axis.log ? [lo / 2, hi * 2] : [lo - 1, hi + 1];
  else if (axis.log) [lo, hi] = [lo / 1.15, hi * 1.15];  // keep the end points off the axes
  // nice() rounds a log axis out to whole decades, which can waste most of it.
  return axis.log ? d3.scaleLog().domain([lo, hi]).range(range) : d3.scaleLinear().domain([lo, hi]).range(range).nice();
}

function drawChart(page, block) {
  const width = 760, height = 360, margin = { top: 12, right: 20, bottom: 46, left: 70 };
  const usable = (v, log) => v != null && Number.isFinite(+v) && (!log || v > 0);
  const series = block.series.map((s, k) => ({
    label: s.label, colour: COLOURS[k % COLOURS.length],
    points: s.x.map((x, i) => ({ x, y: s.y[i] })),
  }));
  const ok = (p) => usable(p.x, block.x.log) && usable(p.y, block.y.log);
  const all = series.flatMap((s) => s.points.filter(ok));
  const x = chartScale(block.x, all.map((p) => p.x), [margin.left, width - margin.right]);
  const y = chartScale(block.y, all.map((p) => p.y), [height - margin.bottom, margin.top]);
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
      .on('mousemove', (p) => page.tip.show(d3.event, [s.label, `${block.x.label} = ${fourDigits(p.x)}`, `${block.y.label} = ${fourDigits(p.y)}`]))
      .on('mouseout', page.tip.hide);
  }
  if (series.length > 1 || (series[0] && series[0].label)) figure.append(chartLegend(series));
  return figure;
}

function chartLegend(series) {
  const legend = el('div', 'legend');
  for (const s of series) {
    const item = el('span', 'legend-item');
    const swatch = el('span', 'swatch');
    swatch.style.background = s.colour;
    item.append(swatch, s.label);
    legend.append(item);
  }
  return legend;
}
