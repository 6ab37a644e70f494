// How a listed matrix is printed where a step shows it: its decimals, and whether
// --svg also draws it. Its name, formula and labels are the chapter's list's
// (common/numbers/matrix_list.hpp); only what differs from the defaults is set:
//
//   lesson.show(seq.X, Style().decimals(1));
//   lesson.show(r.weights, Style().svg());   // with --svg, also weights.svg
#pragma once

struct Style {
    int decimal_places = 3;  // digits after the point
    bool drawn = false;      // with --svg: a heat map as <name>.svg
    bool are_indices = false;  // positions or indices, not amounts: no heat map on the page

    Style& decimals(int places) {
        decimal_places = places;
        return *this;
    }
    // Attention maps, masks and positional encodings are what a picture teaches;
    // a matrix larger than 64 × 64 is not drawn (a blur of tiny cells, a big file).
    Style& svg() {
        drawn = true;
        return *this;
    }
    // Entries that number something (the positions a buffer's slots hold): the page shows
    // them as a table of numbers, since colour would compare what has no size to compare.
    Style& indices() {
        are_indices = true;
        return *this;
    }
};
