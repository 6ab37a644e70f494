"""Every chapter that trains gives the same bits at --threads 1, 2 and 8, and with the C library's
exp and expf for processors without FMA.

    python3 tests/threads_same_bits.py BIN_DIR [CHAPTER…]    (ctest runs it as threads_same_bits)

The chapters are those whose manifest says they train ([tests] trains). Each runs with its fast
flags (tests/fast_args.py) and --dump, once at each thread count when its --help offers --threads,
each run training anew in a fresh trained folder (none read back): its printed output and every
dumped .npy (the trained models' numbers among them) must be the same, byte for byte.

glibc picks its exp and expf when a program starts, by the processor: a version with fused
multiply-adds where the processor has them, another without. Their last bits could differ, and a
training would then print other digits on an older machine. One more run, at one thread, hides
FMA, AVX2 and AVX-512 from glibc (GLIBC_TUNABLES, checked with ld.so --list-diagnostics) so that
it takes the versions without, and must give the same bytes too.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bad_inputs import parse_help  # noqa: E402
from fast_args import FAST_ARGS  # noqa: E402
from launch import command  # noqa: E402

from chapters import chapters  # noqa: E402  (tools/, on the path fast_args set)

BIN = Path(sys.argv[1]).resolve()
ONLY = sys.argv[2:]
COUNTS = (1, 2, 8)
LOADER = Path("/lib64/ld-linux-x86-64.so.2")
NO_FMA = "glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F"
LEAF_1_ECX = "x86.cpu_features.features[0x0].active[0x2]="  # ld.so --list-diagnostics


def active_features(tunables):
    """ld.so's line of the features of cpuid leaf 1 (ECX) glibc uses, under these tunables
    (None: ld.so lists none)."""
    if not LOADER.exists():
        return None
    env = dict(os.environ, GLIBC_TUNABLES=tunables) if tunables else dict(os.environ)
    done = subprocess.run([str(LOADER), "--list-diagnostics"], capture_output=True, text=True, env=env, timeout=60)
    words = [line for line in done.stdout.splitlines() if line.startswith(LEAF_1_ECX)]
    return words[0] if done.returncode == 0 and words else None


def fma_active(word):
    """Whether glibc uses FMA: bit 12 of cpuid leaf 1's ECX, in ld.so's word of active features."""
    return bool(int(word.split("=")[1], 16) & (1 << 12))


def without_fma():
    """(the environment's GLIBC_TUNABLES for the run without FMA, or None, and what to say)."""
    plain, hidden = active_features(""), active_features(NO_FMA)
    if plain is None or hidden is None:
        return None, "not checked without FMA: ld.so lists no processor features here"
    if not fma_active(plain):
        return None, "not checked without FMA: this processor has none, so glibc already takes the versions without it"
    if fma_active(hidden):
        return None, f"not checked without FMA: glibc does not take {NO_FMA}"
    return NO_FMA, ""


def run(chapter, count, folder, tunables=None):
    """(exit code, stdout, {name: bytes} of the dumps) of a run in `folder` (the output names
    the dump's folder: the same relative name in every run)."""
    folder.mkdir()
    env = dict(os.environ, NO_COLOR="1", TUTORIAL_TRAINED=str(folder / "trained"))
    if tunables:
        env["GLIBC_TUNABLES"] = tunables
    threads = ["--threads", str(count)] if count else []
    done = subprocess.run(command(BIN / chapter, "--no-color", *FAST_ARGS.get(chapter, []), *threads,
                                  "--dump", "dump"), capture_output=True, env=env, timeout=600, cwd=folder)
    dumped = {p.name: p.read_bytes() for p in sorted((folder / "dump").glob("*.npy"))}
    return done.returncode, done.stdout, dumped


failures = []
tunables, unchecked = without_fma()
if unchecked:
    print(unchecked, flush=True)
training = [c.program for c in chapters() if c.tests.get("trains")]
for chapter in [c for c in training if not ONLY or any(c.startswith(o) for o in ONLY)]:
    # (name of the run, its thread count or None for the chapter's own, its tunables)
    threaded = "--threads" in parse_help(chapter)
    runs_asked = [(f"--threads {count}", count, None) for count in COUNTS] if threaded else [("as it is", None, None)]
    runs_asked += [("one thread without FMA", 1 if threaded else None, tunables)] if tunables else []
    with tempfile.TemporaryDirectory() as tmp:
        runs = {name: run(chapter, count, Path(tmp) / str(k), t) for k, (name, count, t) in enumerate(runs_asked)}
    first = runs_asked[0][0]
    code, out, dumped = runs[first]
    problems = [f"{first} exits {code}"] if code != 0 else []
    problems += [] if dumped else ["--dump wrote no .npy file"]
    for name, _, _ in runs_asked[1:]:
        other_code, other_out, other_dumped = runs[name]
        if other_code != code or other_out != out:
            problems.append(f"{name}: exit {other_code} and {'the same' if other_out == out else 'other'} output")
        changed = sorted(n for n in dumped.keys() | other_dumped.keys() if dumped.get(n) != other_dumped.get(n))
        if changed:
            problems.append(f"{name}: {len(changed)} of {len(dumped)} dumps differ ({', '.join(changed[:4])})")
    print(f"{'✗' if problems else '✓'} {chapter}: {len(dumped)} dumps and the output "
          f"{'at --threads ' + ', '.join(map(str, COUNTS)) if threaded else 'as it is'}{' and without FMA' if tunables else ''}"
          f"{': ' + '; '.join(problems) if problems else ', the same bytes'}", flush=True)
    failures += problems
sys.exit(1 if failures else 0)
