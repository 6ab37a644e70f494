"""--pause at a terminal (a pseudo-terminal here): chapter 22 waits for Enter after each step and,
in its writing (--generate), after each token (also when --step shows the writing alone); read from
a pipe, it never waits.

    python3 tests/pause_at_terminal.py BIN_DIR   (ctest runs it as pause_at_terminal)
"""
import os
import pty
import subprocess
import sys
from pathlib import Path

ARGS = ["--no-color", "--generate", "3", "--prompt", "Call me", "--pause"]


def prompts(stderr):
    """The waits the run printed, in order: "step 2 (model)", "token 2 of 3", …"""
    return [part.split("Enter: ")[1].split(" · ")[0] for part in stderr.split("──") if "Enter: " in part]


def main():
    program = Path(sys.argv[1]) / "ch22_small_gpt"
    steps = subprocess.run([str(program), "--generate", "3", "--list-steps"], capture_output=True, text=True,
                           timeout=60).stdout.split("\n")[1:]
    names = [line.split()[1] for line in steps if line.strip()[:1].isdigit()]
    expected = []
    for k, name in enumerate(names[1:], start=2):
        expected.append(f"step {k} ({name})")
        if name == "your-sentence":  # the step after the writing: its tokens came first
            expected[-1:-1] = ["token 2 of 3", "token 3 of 3"]
    failures = []

    def at_terminal(args, waits):
        main_end, terminal = pty.openpty()
        run = subprocess.Popen([str(program), *args], stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(terminal)
        os.write(main_end, b"\n" * (len(waits) + 2))  # an Enter for each wait, read one line at a time
        out, err = run.communicate(timeout=300)
        os.close(main_end)
        if run.returncode != 0 or prompts(err.decode()) != waits:
            failures.append(f"at a terminal, {' '.join(args[-2:])}: exit {run.returncode}, waits "
                            f"{prompts(err.decode())}, expected {waits}")
        return out

    out = at_terminal(ARGS, expected)
    # one step (--step writing): the waits between its tokens, none after it
    at_terminal([*ARGS, "--step", "writing"], ["token 2 of 3", "token 3 of 3"])
    piped = subprocess.run([str(program), *ARGS], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    if piped.returncode != 0 or prompts(piped.stderr) or piped.stdout != out.decode():
        failures.append(f"from /dev/null: exit {piped.returncode}, waits {prompts(piped.stderr)}, "
                        f"the same output: {piped.stdout == out.decode()}")
    for f in failures:
        print(f"✗ {f}")
    print(f"--pause: {len(expected)} waits at a terminal, none from /dev/null; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
