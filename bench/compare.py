"""Prints our benchmark times as ratios to numpy's (the in-place form a careful user
writes; the textbook one-liner beside it), and our FLOP/s against the square sgemm
measured in the same run. CPU time throughout (every kernel runs on
one thread, so it equals the wall time on an idle machine and is less disturbed
by other programs on a busy one).

    python3 bench/compare.py OURS.json NUMPY.json"""
import json
import sys

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
D = 64

ours = json.load(open(sys.argv[1]))["benchmarks"]
numpy = {r["name"]: r for r in json.load(open(sys.argv[2]))}


def seconds(run):
    return run["cpu_time"] * UNIT[run["time_unit"]]


def find(kind, n):
    for r in ours:
        if r["name"].startswith(f"BM_{kind}/{n}/") and r.get("run_type", "iteration") == "iteration":
            return r
    return None


sgemm = [r for r in ours if r["name"].startswith("BM_sgemm/")]
sgemm_flops = None
if sgemm:
    side = int(sgemm[0]["n"])
    sgemm_flops = 2.0 * side**3 / seconds(sgemm[0])
    line = f"sgemm {side}×{side}: ours {sgemm_flops / 1e9:.1f} GFLOP/s"
    if f"numpy_sgemm/{side}" in numpy:
        np_run = numpy[f"numpy_sgemm/{side}"]
        numpy_flops = np_run["flops"] / np_run["cpu_s"]
        line += f", numpy {numpy_flops / 1e9:.1f} GFLOP/s"
        sgemm_flops = max(sgemm_flops, numpy_flops)  # the yardstick: the faster of the two
    print(line)

print()
print(f"{'n':>6} {'numpy':>10} {'(textbook)':>11} {'materialised':>13} {'streaming':>10} {'numpy/mat.':>11}"
      f" {'numpy/str.':>11} {'str. GFLOP/s':>13} {'str./sgemm':>11}")
lengths = sorted({int(r["n"]) for r in ours if r["name"].startswith(("BM_materialised", "BM_streaming"))})
for n in lengths:
    mat, st = find("materialised", n), find("streaming", n)
    in_place, textbook = numpy.get(f"numpy_in_place/{n}"), numpy.get(f"numpy_textbook/{n}")
    t_np = in_place["cpu_s"] if in_place else None
    t_book = textbook["cpu_s"] if textbook else None
    t_mat = seconds(mat) if mat else None
    t_st = seconds(st) if st else None
    flops = 4.0 * n * n * D

    def ms(t, width=10):
        return f"{f'{t * 1e3:.1f} ms':>{width}}" if t else f"{'—':>{width}}"

    def ratio(a, b):
        return f"{a / b:10.2f}×" if a and b else f"{'—':>11}"

    gflops = f"{flops / t_st / 1e9:13.1f}" if t_st else f"{'—':>13}"
    vs_sgemm = f"{flops / t_st / sgemm_flops * 100:10.0f}%" if t_st and sgemm_flops else f"{'—':>11}"
    print(f"{n:>6} {ms(t_np)} {ms(t_book, 11)} {ms(t_mat, 13)} {ms(t_st)} {ratio(t_np, t_mat)} {ratio(t_np, t_st)}"
          f" {gflops} {vs_sgemm}")
print()
print("numpy: the in-place form (one n × n array, scaled, shifted, exponentiated and normalised in")
print("place), median of at least 5 runs; (textbook): softmax(q @ k.T / 8) @ v as written, whose")
print("every step makes a new n × n array. numpy/mat. > 1: our materialised attention is that many")
print("times faster than the in-place numpy; str./sgemm: streaming attention's 4·n²·d FLOP/s as a")
print("share of the faster sgemm above.")
