"""Flags that keep a slow chapter short when a test runs it for something other than the
numbers of its default run (bad inputs, learner files, full disks, widths, dumps, the unscaled
copies); the default run itself is tested against its golden output. A case's own value of the
same flag wins (the fast flags go first)."""

import os

FAST_ARGS = {
    "ch10_long_sequences": ["--max-n", "1024", "--budget-s", "0.5"],
    "ch19_linear_attention": ["--steps", "10"],  # four trainings of 1000 steps: about 17 s a run
    "ch20_sparse_attention": ["--steps", "10"],  # every training of the chapter at 10 steps
}

# Under the sanitizers (the sanitize test preset sets TUTORIAL_SANITIZE) chapter 16 trains
# 50 steps in these runs, not 3500: each step runs the same code, and its default run still
# trains in full there (chapter.ch16_induction_head). Its self-checks hold for any --steps.
if os.environ.get("TUTORIAL_SANITIZE"):
    FAST_ARGS["ch16_induction_head"] = ["--steps", "50"]
