// dom.js: the small helpers the page is drawn with: an HTML element, an SVG element, and the
// width a text will take. The page's script is in pieces of one job each, classic scripts
// inlined in a fixed order (common/output/explorer_page.cpp lists it): what a piece defines at
// its top level, the pieces after it use. Plain DOM and d3 v5: it works from file://.
'use strict';

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

// Text widths decide whether values fit in cells; a canvas measures without drawing.
const FONT = '11px system-ui, sans-serif';
const ruler = document.createElement('canvas').getContext('2d');
const textWidth = (s, font = FONT) => ((ruler.font = font), ruler.measureText(s).width);
const widest = (strings, font) => strings.reduce((w, s) => Math.max(w, textWidth(s, font)), 0);
