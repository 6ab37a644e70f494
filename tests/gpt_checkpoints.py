"""A checkpoint given with --checkpoint is read only when it is whole, of the run's recipe and
written by the same code; anything else is refused in one line that names --checkpoint and the
folder, with exit code 2 and nothing on stdout.

    python3 tests/gpt_checkpoints.py BIN_DIR      (ctest runs it as gpt_checkpoints)

A small recipe is trained once into a scratch folder (TUTORIAL_TRAINED); copies of its checkpoint
are then damaged one way each: a parameter cut short, one holding a NaN, one missing, the tokenizer
missing, the log garbled, the code's version changed, another recipe asked for, a folder that is not
a checkpoint.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import command  # noqa: E402

BIN = Path(sys.argv[1]).resolve()
PROGRAM = BIN / "ch22_small_gpt"
SMALL = ["--steps", "3", "--layers", "1", "--d-model", "16", "--heads", "2", "--context", "8", "--batch", "2",
         "--log-every", "1", "--text", "a cat", "--step", "checks", "--no-color"]
SECONDS = 120
failures = []


def run(env, *args):
    p = subprocess.run(command(PROGRAM, *SMALL, *args), capture_output=True, timeout=SECONDS, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def refused(env, case, folder, *extra, naming=()):
    code, out, err = run(env, "--checkpoint", str(folder), *extra)
    lines = err.splitlines()
    ok = code == 2 and not out and len(lines) == 1 and "--checkpoint" in lines[0] and str(folder) in lines[0] \
        and all(word in lines[0] for word in naming)
    print(f"{'✓' if ok else '✗'} {case}: exit {code}, {err.strip()[:160]!r}")
    if not ok:
        failures.append(case)


with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    env = dict(os.environ, TUTORIAL_TRAINED=str(tmp / "trained"))
    code, out, err = run(env)
    kept = [p for p in (tmp / "trained").glob("gpt-*") if p.is_dir()]
    if code != 0 or len(kept) != 1:
        print(f"✗ training the small recipe: exit {code}, {len(kept)} checkpoints kept: {err.strip()[:300]}")
        sys.exit(1)
    good = kept[0]
    code, out, err = run(env, "--checkpoint", str(good))
    print(f"{'✓' if code == 0 else '✗'} the kept checkpoint, given with --checkpoint, is read: exit {code}")
    if code != 0:
        failures.append("a whole checkpoint")

    def damaged(name, damage):
        folder = tmp / name
        shutil.copytree(good, folder)
        damage(folder)
        return folder

    def cut(folder):
        wte = folder / "transformer.wte.weight.npy"
        os.truncate(wte, wte.stat().st_size - 8)

    refused(env, "a parameter cut short", damaged("cut", cut), naming=("cut short",))
    def not_a_number(folder):
        wte = folder / "transformer.wte.weight.npy"
        data = bytearray(wte.read_bytes())
        data[-4:] = b"\x00\x00\xc0\x7f"  # the last weight: a NaN
        wte.write_bytes(bytes(data))

    refused(env, "a weight that is NaN", damaged("nan", not_a_number), naming=("NaN", "wte"))
    # the kept model damaged the same way is trained again, as a truncated one is
    not_a_number(good)
    code, out, err = run(env)
    again = code == 0 and "training" in err
    print(f"{'✓' if again else '✗'} a kept model with a NaN is trained again: exit {code}, {err.strip()[-160:]!r}")
    if not again:
        failures.append("a kept model with a NaN")
    refused(env, "a parameter missing", damaged("missing", lambda f: (f / "transformer.ln_f.bias.npy").unlink()),
            naming=("transformer.ln_f.bias.npy",))
    refused(env, "the tokenizer missing", damaged("no_tokenizer", lambda f: (f / "tokenizer.txt").unlink()),
            naming=("tokenizer.txt",))
    refused(env, "the log garbled", damaged("log", lambda f: (f / "training_log.txt").write_text("steps?\n")),
            naming=("training_log.txt",))

    def older(folder):
        lines = (folder / "recipe.txt").read_text().splitlines(keepends=True)
        lines[1] = "code gpt 0000000000000000\n"
        (folder / "recipe.txt").write_text("".join(lines))

    refused(env, "written by another version of the code", damaged("older", older), naming=("another version",))
    refused(env, "of another recipe", good, "--seed", "7", naming=("another recipe", "seed"))
    refused(env, "a folder that is not a checkpoint", tmp, naming=("not a checkpoint",))

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
