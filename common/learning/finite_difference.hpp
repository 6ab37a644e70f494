// The slope of a loss along one parameter w, by central differences: the check of a backward
// pass (chapter 16's copy model, the GPT's test) that needs no calculus of its own.
//
//   D(s) = (loss(w + s) − loss(w − s)) / 2s, whose error is O(s²);
//   slope = (4·D(h) − D(2h)) / 3 (Richardson: the s² terms cancel; the error is O(h⁴)).
#pragma once

// w is moved, loss() read at each place, and w put back as it was.
template <class Loss>
double central_slope(double& w, double h, Loss&& loss) {
    const double saved = w;
    const auto central = [&](double step) {
        w = saved + step;
        const double plus = loss();
        w = saved - step;
        const double minus = loss();
        w = saved;
        return (plus - minus) / (2 * step);
    };
    return (4 * central(h) - central(2 * h)) / 3;
}
