// tooltip.js: one tooltip for the whole page, placed next to the pointer, that says what a
// hovered cell, token or point is. A cell's tooltip is the same for every drawing of its
// matrix (cellTip).
'use strict';

// The tooltip of one drawing of the page: { show(event, lines), hide() }.
function makeTooltip() {
  const box = el('div', 'tooltip drawn');
  document.body.appendChild(box);
  const show = (event, lines) => {
    box.replaceChildren(...lines.filter((l) => l).map((l, i) => el('div', i ? '' : 'tip-head', l)));
    box.style.display = 'block';
    const x = Math.min(event.clientX + 14, window.innerWidth - box.offsetWidth - 8);
    const y = event.clientY + 16 + box.offsetHeight > window.innerHeight
      ? event.clientY - box.offsetHeight - 10 : event.clientY + 16;
    box.style.left = `${x}px`;
    box.style.top = `${y}px`;
  };
  const hide = () => { box.style.display = 'none'; };
  return { show, hide };
}

// A cell's tooltip: its value, its row and column labels, the formula that made it, and the
// head it opens (families.js: openHeads). The cell (i, j) is the event's target's, unless given.
function cellTip(tip, event, m, decimals, i = +event.target.dataset.row, j = +event.target.dataset.col) {
  tip.show(event, [`${m.name}[${i}, ${j}] = ${formatValue(m.values[i][j], decimals)}`,
    `row ${i}: ${m.rows[i]}`, `column ${j}: ${m.cols[j]}`, m.formula && `${m.name} = ${m.formula}`,
    event.target.getAttribute('aria-label')]);
}
