"""Chapter 23 keeps what it measures on held-out text (chapters/23_inside_the_model/kept_measurements.hpp):
a second run that reads it back prints the same bytes as the first that computed it, for another
sentence too; a kept file damaged is computed again, the same bytes; other probe settings are kept apart.

    python3 tests/kept_measurements.py BIN_DIR      (ctest runs it as kept_measurements)
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import command  # noqa: E402

BIN = Path(sys.argv[1]).resolve()
PROGRAM = BIN / "ch23_inside_the_model"
SMALL = ["--steps", "3", "--layers", "1", "--d-model", "16", "--heads", "2", "--context", "48", "--batch", "2",
         "--log-every", "1", "--tokenizer", "char", "--windows", "3", "--sequences", "2", "--passages", "2", "--no-color"]
failures = []


def run(env, *args):
    p = subprocess.run(command(PROGRAM, *SMALL, *args), capture_output=True, timeout=300, env=env)
    if p.returncode != 0:
        failures.append(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.decode()[-300:]}")
    return p.stdout


with tempfile.TemporaryDirectory() as folder:
    env = dict(os.environ, TUTORIAL_TRAINED=folder)
    kept = Path(folder) / "inside-the-model"
    first = run(env)
    files = sorted(kept.glob("*.measured"))
    if len(files) != 2:  # the model's and its control's (step 9)
        failures.append(f"after the first run, {len(files)} kept measurements in {kept} (expected 2)")
    if run(env) != first:
        failures.append("read back, the measurements print other bytes than computed")
    computed = run(dict(env, TUTORIAL_TRAINED=tempfile.mkdtemp(dir=folder)), "--text", "Ahab saw the whale.")
    if run(env, "--text", "Ahab saw the whale.") != computed:
        failures.append("another sentence: the run that reads the measurements back prints other bytes")
    for f in files:  # damaged: computed again, and kept again whole
        f.write_bytes(f.read_bytes()[:-9] + b"x" * 9)
    if run(env) != first:
        failures.append("a damaged kept file: the run printed other bytes")
    run(env, "--probe-seed", "2")  # other random sequences: measured again, kept apart
    if len(list(kept.glob("*.measured"))) != 4:
        failures.append(f"after --probe-seed 2, {len(list(kept.glob('*.measured')))} kept files (expected 4)")
    if list(kept.glob("*.partial")):
        failures.append("a partial file was left behind")

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed" if failures else "a new sentence and a second run read the measurements back: the same bytes")
sys.exit(1 if failures else 0)
