// colours.js: the heat maps' colours: viridis from a matrix's smallest value to its largest,
// grey where a value is not finite, and for each of viridis's 256 steps whether a value
// printed on it reads better in white or in black.
'use strict';

const GREY = '#bdbdbd';  // non-finite cells: a −inf mask must not look like a small value
const GREY_RGB = d3.rgb(GREY);

// WCAG's relative luminance of a colour: 0 for black, 1 for white.
function luminance(colour) {
  const c = d3.rgb(colour), linear = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

// viridis in 256 steps, as the bytes of the maps drawn as pixels and for the text's colour
const VIRIDIS = d3.range(256).map((k) => d3.rgb(d3.interpolateViridis(k / 255)));
// The step of x on a scale over `range`: 0 at its smallest, 255 at its largest.
const viridisStep = (x, range) => Math.round(255 * (x - range[0]) / (range[1] - range[0]));

// Whether text on each step should be white rather than black: whichever has the larger
// contrast (WCAG's ratio of relative luminances; either way at least 4.5, readable on a
// projector), looked up once (for every cell it cost chapter 16's page a tenth of a second).
const WHITE_TEXT = VIRIDIS.map((colour) => {
  const l = luminance(colour);
  return 1.05 / (l + 0.05) > (l + 0.05) / 0.05;
});
