"""Every sentence of chapter 24's doc that ranks two variants follows from the table it sits under.

    python3 tests/doc_comparisons.py      (ctest runs it as doc_comparisons)

The table is the chapter's "What each learned" (its output block in the doc, kept equal to the
program's by the docs test): a variant's mean held-out loss over the seeds and the lowest and
highest of them. A paragraph that compares variants says what it claims in a comment,

    <!-- compares: gated DeltaNet < RoPE; MQA = MHA -->

where `A < B` is "A is below B": every seed of A ended lower than every seed of B (A's highest
below B's lowest), and `A = B` is "a tie at this budget": their ranges touch. Each claim is held
against the last such table above it. In the sections that read the table, a paragraph that
names two variants beside a word that ranks ("lower", "below", "above", "beats", …) must carry
such a comment, so that no comparison goes unchecked.
"""
import re
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "ch24_which_attention.md"
SECTIONS = ("## Reading the table", "## At four times the budget")
RANKING = re.compile(r"\b(lower|lowest|higher|highest|below|above|better|worse|beats?|leads?|ahead|behind)\b")
ROW = re.compile(r"^(\S.*?)\s{3,}(\d\.\d{3})\s{3,}(\d\.\d{3})–(\d\.\d{3})\s{3,}\d+\s")


def tables_and_paragraphs(text):
    """[(line number, ('table', {variant: (mean, low, high)}) or ('paragraph', text))], in order."""
    items, block, paragraph, start, inside = [], [], [], 0, False
    for number, line in enumerate(text.splitlines() + [""], start=1):
        if line.startswith("```"):
            if inside:
                rows = {m.group(1): tuple(float(m.group(i)) for i in (2, 3, 4)) for m in map(ROW.match, block) if m}
                if rows:
                    items.append((number, ("table", rows)))
                block = []
            inside = not inside
            continue
        if inside:
            block.append(line)
        elif line.strip():
            if paragraph and line.startswith("- "):  # each item of a list is a paragraph of its own
                items.append((start, ("paragraph", " ".join(paragraph))))
                paragraph = []
            if not paragraph:
                start = number
            paragraph.append(line)
        elif paragraph:
            items.append((start, ("paragraph", " ".join(paragraph))))
            paragraph = []
    return items


def main():
    text = DOC.read_text(encoding="utf-8")
    items = tables_and_paragraphs(text)
    section_of = {}
    section = ""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("## "):
            section = line
        section_of[number] = section
    failures, claims, table = [], 0, None
    names = set()
    for _, (kind, what) in items:
        if kind == "table":
            names |= set(what)
    for number, (kind, what) in items:
        if kind == "table":
            table = what
            continue
        said = re.findall(r"<!-- compares: (.*?) -->", what)
        named = [n for n in sorted(names, key=len, reverse=True) if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", what)]
        if not said:
            if section_of.get(number, "") in SECTIONS and len(named) >= 2 and RANKING.search(what):
                failures.append(f"line {number}: names {', '.join(named[:4])} and ranks them, with no "
                                f"<!-- compares: … --> to check: {what[:120]!r}")
            continue
        for claim in filter(None, (c.strip() for c in ";".join(said).split(";"))):
            m = re.fullmatch(r"(.+?)\s*([<=])\s*(.+)", claim)
            if not m or table is None or m.group(1) not in table or m.group(3) not in table:
                failures.append(f"line {number}: cannot read {claim!r} against the table above it "
                                f"(A < B or A = B, with names of its rows)")
                continue
            a, relation, b = table[m.group(1)], m.group(2), table[m.group(3)]
            below = a[2] < b[1]
            apart = below or b[2] < a[1]
            holds = below if relation == "<" else not apart
            claims += 1
            if not holds:
                failures.append(f"line {number}: {claim!r} does not hold: {m.group(1)} {a[1]:.3f}–{a[2]:.3f}, "
                                f"{m.group(3)} {b[1]:.3f}–{b[2]:.3f}")
    for f in failures:
        print(f"✗ {f}")
    print(f"{claims} comparisons of {DOC.name} held against its tables; {len(failures)} failures")
    if claims == 0:
        print("✗ no comparison found: the doc's comments or the table's layout changed")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
