"""Flags that keep a slow chapter short when a test runs it for something other than the
numbers of its default run (bad inputs, learner files, full disks, widths, dumps, the unscaled
copies); the default run itself is tested against its golden output. A case's own value of the
same flag wins (the fast flags go first). Each chapter's manifest declares them ([tests]
fast_flags in chapters/NN_name/chapter.toml).

Under the sanitizers (the sanitize test preset sets TUTORIAL_SANITIZE) a chapter's
sanitize_fast_flags replace them: chapter 16 then trains 50 steps in these runs, not 3500 (each
step runs the same code, and its default run still trains in full there)."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from chapters import chapters  # noqa: E402

SANITIZED = bool(os.environ.get("TUTORIAL_SANITIZE"))
FAST_ARGS = {c.program: flags for c in chapters() if (flags := c.fast_flags(SANITIZED))}
