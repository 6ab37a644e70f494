#!/usr/bin/env bash
# The README's first command on a machine that lacks the packages: ./tutorial
# installs them (apt-get, through sudo when not root) and says so; where it
# cannot (no dpkg, no apt-get, no sudo, apt-get failing: no network), it stops
# with exit 1 and one line naming the missing packages and how to install them.
#
#   bash tests/tutorial_install.sh        (ctest runs it as tutorial_install)
#
# Each case runs a copy of ./tutorial in a scratch directory with a PATH of
# stubs: dpkg-query (which packages are installed), apt-get and sudo (which
# record how they were called), id (root or not), cmake and ctest (which do
# nothing), and links to the few real tools the script uses.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tutorial="$here/../tutorial"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/tutorial_install.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
passed=0 failed=0

# make_case NAME: a repo copy and a bin/ of real tools; stubs are added by the case.
make_case() {
    local dir="$scratch/$1" tool
    mkdir -p "$dir/repo/chapters" "$dir/repo/build" "$dir/repo/tools" "$dir/bin"
    cp "$tutorial" "$dir/repo/tutorial"
    cp "$(dirname "$tutorial")/tools/build" "$(dirname "$tutorial")/tools/build_progress.py" "$dir/repo/tools/"
    : >"$dir/repo/chapters/ch01_x.cpp"
    for tool in bash grep sed cat dirname mktemp rm tail head ls mkdir tr nproc env sort find tee flock stat; do
        ln -s "$(command -v "$tool")" "$dir/bin/$tool"
    done
    # cmake, ninja and ctest: the build and the tests are not what is tested here; nor the text
    # of the language chapters (tools/corpus.py, which npm serves: a command npm is there).
    printf '#!/bin/sh\nexit 0\n' >"$dir/bin/cmake"
    printf '#!/bin/sh\nexit 0\n' >"$dir/bin/ninja"
    printf '#!/bin/sh\nexit 0\n' >"$dir/bin/ctest"
    printf '#!/bin/sh\nexit 0\n' >"$dir/bin/npm"
    printf 'import sys\nsys.exit(0)\n' >"$dir/repo/tools/corpus.py"
    chmod +x "$dir/bin/cmake" "$dir/bin/ninja" "$dir/bin/ctest" "$dir/bin/npm"
    echo "$dir"
}

# stub DIR NAME BODY: a shell script bin/NAME.
stub() {
    printf '#!/bin/sh\n%s\n' "$3" >"$1/bin/$2"
    chmod +x "$1/bin/$2"
}

installed_none='echo "un "; exit 1'            # dpkg-query: nothing is installed
installed_all='printf "ii "; exit 0'           # dpkg-query: everything is installed
root='echo 0' user='echo 1000'
apt_ok='echo "apt-get $*" >>"$(dirname "$0")/../calls"; exit 0'
apt_offline='echo "apt-get $*" >>"$(dirname "$0")/../calls"
case "$*" in *update*) echo "Err:1 http://deb.debian.org/debian bookworm InRelease"; echo "  Temporary failure resolving deb.debian.org";;
             *) echo "E: Unable to locate package xtensor-dev"; exit 100;; esac'
sudo_ok='echo "sudo $*" >>"$(dirname "$0")/../calls"; exec "$@"'

# check NAME EXPECTED_CODE STDERR_REGEX [CALLS_REGEX]: runs `./tutorial test` in case NAME.
check() {
    local dir="$scratch/$1" code err
    err="$(cd "$dir/repo" && PATH="$dir/bin" "$dir/bin/bash" ./tutorial test 2>&1 >/dev/null)"
    code=$?
    local problems=()
    [ "$code" -eq "$2" ] || problems+=("exit $code, expected $2")
    grep -Eq -- "$3" <<<"$err" || problems+=("stderr does not match /$3/")
    if [ -n "${4:-}" ]; then
        grep -Eq -- "$4" "$dir/calls" 2>/dev/null || problems+=("calls do not match /$4/: $(cat "$dir/calls" 2>/dev/null)")
    fi
    if [ "$2" -ne 0 ]; then
        # A refusal is one line (after the line that says what it tried), naming
        # every missing package and how to get it.
        local lines
        lines="$(grep -vc '^tutorial: installing' <<<"$err")"
        [ "$lines" -eq 1 ] || problems+=("stderr has $lines lines, expected 1")
    fi
    if [ ${#problems[@]} -eq 0 ]; then
        echo "ok   $1: $(tail -n 1 <<<"$err")"
        passed=$((passed + 1))
    else
        echo "FAIL $1: ${problems[*]}"
        sed 's/^/       /' <<<"$err"
        failed=$((failed + 1))
    fi
}

# 1. Everything installed: no apt-get, straight to the build.
d="$(make_case all_installed)"; stub "$d" dpkg-query "$installed_all"; stub "$d" id "$root"
stub "$d" apt-get "$apt_ok"
check all_installed 0 'configuring'
[ ! -e "$d/calls" ] || { echo "FAIL all_installed: apt-get was called"; failed=$((failed + 1)); }

# 2. Root, packages missing: apt-get update + install, said before and after.
d="$(make_case root_installs)"; stub "$d" dpkg-query "$installed_none"; stub "$d" id "$root"
stub "$d" apt-get "$apt_ok"
check root_installs 0 'installing the missing packages with apt-get .*xtensor-dev.*libopenblas-dev' \
    '^apt-get -o DPkg::Lock::Timeout=300 install -y .*xtensor-dev .*python3-numpy openmpi-bin libopenmpi-dev clang lld inotify-tools node-d3 ccache chromium chromium-driver python3-selenium emscripten$'
rm -f "$d/repo/build/packages.ok"  # the stubbed dpkg-query still says "none installed"
grep -q 'installed: ' <<<"$(cd "$d/repo" && PATH="$d/bin" "$d/bin/bash" ./tutorial test 2>&1 >/dev/null)" \
    || { echo "FAIL root_installs: does not say what it installed"; failed=$((failed + 1)); }

# 2b. A rerun once everything was found asks dpkg nothing (the learner's loop starts at once).
d="$(make_case rerun_asks_nothing)"; stub "$d" dpkg-query "$installed_all"; stub "$d" id "$root"
(cd "$d/repo" && PATH="$d/bin" "$d/bin/bash" ./tutorial test >/dev/null 2>&1)
stub "$d" dpkg-query 'echo "dpkg-query $*" >>"$(dirname "$0")/../calls"; exit 1'
check rerun_asks_nothing 0 'configuring'
[ ! -e "$d/calls" ] || { echo "FAIL rerun_asks_nothing: dpkg-query was called again"; failed=$((failed + 1)); }

# 2c. Another apt holds the lists' lock (a first boot's upgrades): update is tried again.
d="$(make_case apt_locked)"; stub "$d" dpkg-query "$installed_none"; stub "$d" id "$root"
stub "$d" apt-get 'echo "apt-get $*" >>"$(dirname "$0")/../calls"
case "$*" in *update*) [ -e "$(dirname "$0")/../locked" ] && exit 0; : >"$(dirname "$0")/../locked"
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 7 (apt-get)"; exit 100;; esac'
check apt_locked 0 'installed: ' '^apt-get -o DPkg::Lock::Timeout=300 install -y '
[ "$(grep -c 'update' "$d/calls")" -eq 2 ] || { echo "FAIL apt_locked: update ran $(grep -c 'update' "$d/calls") times, not twice"; failed=$((failed + 1)); }

# 3. Not root, sudo available: installs through sudo.
d="$(make_case user_with_sudo)"; stub "$d" dpkg-query "$installed_none"; stub "$d" id "$user"
stub "$d" apt-get "$apt_ok"; stub "$d" sudo "$sudo_ok"
check user_with_sudo 0 'installing the missing packages with sudo apt-get' '^sudo apt-get -o DPkg::Lock::Timeout=300 install -y .*cmake'

# 4. Not root, no sudo: one line, the packages and the command for root.
d="$(make_case user_without_sudo)"; stub "$d" dpkg-query "$installed_none"; stub "$d" id "$user"
stub "$d" apt-get "$apt_ok"
check user_without_sudo 1 '^tutorial: missing packages: cmake .*python3-numpy openmpi-bin libopenmpi-dev clang lld inotify-tools node-d3 ccache chromium chromium-driver python3-selenium emscripten; install them as root .*apt-get install cmake'
[ ! -e "$d/calls" ] || { echo "FAIL user_without_sudo: apt-get was called"; failed=$((failed + 1)); }

# 5. No apt-get (dpkg present): one line, the packages.
d="$(make_case no_apt)"; stub "$d" dpkg-query "$installed_none"; stub "$d" id "$root"
check no_apt 1 '^tutorial: missing packages: cmake .*python3-numpy openmpi-bin libopenmpi-dev clang lld inotify-tools node-d3 ccache chromium chromium-driver python3-selenium emscripten; there is no apt-get here'

# 6. No dpkg at all (not Debian): one line, the packages to find an equivalent of.
d="$(make_case no_dpkg)"; stub "$d" id "$root"
check no_dpkg 1 "^tutorial: cannot check for packages here \(no dpkg-query.*cmake --preset release.*: cmake .*python3-numpy openmpi-bin libopenmpi-dev clang lld inotify-tools node-d3 ccache chromium chromium-driver python3-selenium emscripten$"

# 7. apt-get fails (no network): one line with apt's reason and the command to run later.
d="$(make_case offline)"; stub "$d" dpkg-query "$installed_none"; stub "$d" id "$root"
stub "$d" apt-get "$apt_offline"
# The stub's update "succeeds" with an Err: line, and install fails with E:, as apt does offline.
check offline 1 '^tutorial: could not install: cmake .*\(E: Unable to locate package xtensor-dev; no network.*sudo apt-get install cmake .*then run again$'

# 8. Only some packages missing: only those are installed.
d="$(make_case some_missing)"
stub "$d" dpkg-query 'case "$*" in *doctest-dev*|*libcli11-dev*) echo "un "; exit 1;; *) printf "ii ";; esac'
stub "$d" id "$root"; stub "$d" apt-get "$apt_ok"
check some_missing 0 'installing the missing packages with apt-get .*: doctest-dev libcli11-dev$' \
    '^apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends doctest-dev libcli11-dev$'

# 8b. No npm command at all: Debian's npm joins the packages (the text of chapters 21 and 22).
d="$(make_case no_npm)"; rm "$d/bin/npm"
stub "$d" dpkg-query 'case "$*" in *npm*) echo "un "; exit 1;; *) printf "ii ";; esac'
stub "$d" id "$root"; stub "$d" apt-get "$apt_ok"
check no_npm 0 'installing the missing packages with apt-get .*: npm$' '^apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends npm$'

# 9. --full also wants clang and its runtime libraries (the sanitizers, libFuzzer).
d="$(make_case full_wants_clang)"
stub "$d" dpkg-query 'case "$*" in *clang*) echo "un "; exit 1;; *) printf "ii ";; esac'
stub "$d" id "$user"; stub "$d" apt-get "$apt_ok"
err="$(cd "$d/repo" && PATH="$d/bin" "$d/bin/bash" ./tutorial test --full 2>&1 >/dev/null)"
if [ $? -eq 1 ] && grep -Eq '^tutorial: missing packages: clang libclang-rt-dev; install them as root' <<<"$err"; then
    echo "ok   full_wants_clang: $err"; passed=$((passed + 1))
else
    echo "FAIL full_wants_clang: $err"; failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
