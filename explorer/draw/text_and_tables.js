// text_and_tables.js: what a step says in words and plain numbers: its prose as flowing
// paragraphs, its tables (numbers aligned right), its self-checks (✓ held, ✗ failed), and a
// matrix of positions or indices as a table without colour.
'use strict';

// Prose is written for a terminal, broken into lines that fit it: on the page the lines of
// a paragraph flow as one. A line stays a line of its own where the text has structure: a
// blank line between paragraphs, an indented line (a formula set apart), a list's item.
// Text whose lines are aligned in columns (small tables the terminal lines up with spaces
// or rules) keeps every line: flowingText gives null for it.
const ownLine = /^(\s|[-•*·] |\d+[.)] |\([a-z0-9]\) )/;
function flowingText(text) {
  const lines = text.split('\n');
  const aligned = lines.length >= 2 && lines.filter((l) => /\S {2,}\S|[│─┼]/.test(l)).length >= 2;
  if (aligned) return null;
  return lines.reduce((out, line, k) => {
    if (k === 0) return line;
    const previous = lines[k - 1];
    const flows = line.trim() && previous.trim() && !ownLine.test(line) && !ownLine.test(previous);
    return out + (flows ? ' ' : '\n') + line;
  }, '');
}
function proseParagraph(block) {
  const flowing = flowingText(block.text);
  return flowing == null ? el('p', 'text mono', block.text) : el('p', 'text', flowing);
}

// (a number starts with a digit, or a sign or a point before one: ", 0.17" is a token and its odds)
const numeric = (s) => /^[-−+]?\.?\d[\d.,  ]*(e[-+]?\d+)?\s*(%|×|x|s|ms|µs|[KMG]i?B)?$/i.test(s.trim());
// A table's columns of probabilities (block.bars: chapter 22's p and q) draw each cell as a bar
// under its number, as long as the probability: the odds seen at a glance.
function dataTable(block) {
  const bars = new Set(block.bars || []);
  const wrap = el('div', bars.size ? 'table-wrap bars' : 'table-wrap'), t = el('table', 'data');
  // Numbers align right, and so does the header of a column of numbers.
  const numberColumn = block.header.map((_, j) => block.rows.length > 0 && block.rows.every((r) => r[j] == null || numeric(r[j])));
  const head = t.createTHead().insertRow();
  block.header.forEach((h, j) => head.append(el('th', numberColumn[j] ? 'num' : '', h)));
  const body = t.createTBody();
  for (const row of block.rows) {
    const tr = body.insertRow();
    row.forEach((cell, j) => {
      const td = el('td', numeric(cell) ? 'num' : '', cell);
      const p = Number.parseFloat(cell);
      if (bars.has(j) && numeric(cell) && p >= 0 && p <= 1) {
        td.classList.add('bar');
        td.style.setProperty('--bar', `${(100 * p).toFixed(1)}%`);
      }
      tr.append(td);
    });
  }
  wrap.append(t);
  return wrap;
}

function checksList(block) {
  const list = el('ul', 'checks');
  const kind = { '✓': 'held', '✗': 'failed' };
  for (const line of block.lines) {
    const li = el('li', kind[line.mark] || 'unchecked');
    li.append(el('span', 'mark', line.mark), el('span', 'check-text', line.text));
    list.append(li);
  }
  return list;
}

// Positions, slots, indices: numbers to read, not amounts to compare, so a table without
// colour (the chapter says so: Style().indices()). Its cells hover like a heat map's.
function numberTable(page, m, decimals) {
  const wrap = el('div', 'table-wrap'), t = el('table', 'data numbers');
  const head = t.createTHead().insertRow();
  head.append(el('th', '', ''), ...m.cols.map((c) => el('th', 'num', c)));
  const body = t.createTBody();
  m.values.forEach((row, i) => {
    const tr = body.insertRow();
    tr.append(el('th', '', m.rows[i]));
    row.forEach((v, j) => {
      const td = el('td', 'num cell', formatValue(v, decimals));
      Object.assign(td.dataset, { matrix: m.name, row: i, col: j, value: String(v) });
      tr.append(td);
    });
  });
  t.addEventListener('mousemove', (e) => { if (e.target.classList.contains('cell')) cellTip(page.tip, e, m, decimals); });
  t.addEventListener('mouseout', page.tip.hide);
  wrap.append(t);
  return wrap;
}
