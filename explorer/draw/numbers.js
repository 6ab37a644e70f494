// numbers.js: the numbers of a run's document as the page reads and prints them: a cell with
// a fixed number of decimals, a chart's point with four significant digits, and the range a
// heat map's colours span. Pure functions (tests/page_pieces.py checks them).
'use strict';

// The JSON writes non-finite entries as the strings "inf", "-inf" and "nan".
const toNumber = (v) => (typeof v === 'number' ? v : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : NaN);

function formatValue(v, decimals) {
  const x = toNumber(v);
  return Number.isFinite(x) ? x.toFixed(decimals) : String(v);
}

// Four significant digits are plenty for reading a curve (the step numbers stay whole).
const fourDigits = (v) => (Number.isInteger(v) ? String(v) : String(+v.toPrecision(4)));

// The smallest and largest finite values of m: the two ends of its heat map's colour scale.
function valueRange(m) {
  let lo = Infinity, hi = -Infinity;
  for (const row of m.values) for (const v of row) {
    const x = toNumber(v);
    if (Number.isFinite(x)) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
  }
  if (lo > hi) return [0, 1];                           // nothing finite: all grey anyway
  return lo === hi ? [lo - 0.5, hi + 0.5] : [lo, hi];   // a constant matrix sits mid-scale
}
