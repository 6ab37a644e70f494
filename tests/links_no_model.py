"""A chapter that reads no sentence links nothing of chapter 22's GPT: the frame (common/lesson/)
knows no model, and a chapter takes --text only by asking for it (add_sentence_options).

    python3 tests/links_no_model.py BIN      (ctest runs it as links_no_model)

For each chapter whose own files include nothing of common/gpt/ or common/language_model/, the
symbols its program defines (nm) name no GPT (Gpt…, gpt_…) and no trained model. Each problem is
one line: the program and a symbol it should not hold.
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from chapters import chapters  # noqa: E402

BIN = Path(sys.argv[1])
MODEL_FOLDERS = re.compile(r'#include "common/(gpt|language_model)/')
MODEL_SYMBOL = re.compile(r"\bGpt[A-Z]?\w*|\bgpt_\w+|trained_default_model")

problems, checked = [], []
for chapter in chapters():
    sources = [*chapter.folder.glob("*.[ch]pp")]
    if any(MODEL_FOLDERS.search(source.read_text(encoding="utf-8")) for source in sources):
        continue
    program = BIN / chapter.program
    symbols = subprocess.run(["nm", "--defined-only", "-C", str(program)], capture_output=True, text=True)
    if symbols.returncode != 0:
        problems.append(f"{program}: nm could not read it: {symbols.stderr.strip()}")
        continue
    found = next((line.split(" ", 2)[-1] for line in symbols.stdout.splitlines() if MODEL_SYMBOL.search(line)), None)
    if found:
        problems.append(f"{program}: reads no sentence, yet links {found[:120]}")
    checked.append(chapter.program)
if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
if not checked:
    sys.exit("no chapter reads no sentence: the test checked nothing")
print(f"{len(checked)} chapters that read no sentence link nothing of the GPT: {', '.join(checked)}")
