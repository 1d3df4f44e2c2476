#!/usr/bin/env bash
# CI step of the Python package (called by .ci/run after the cargo steps): builds the package
# with maturin into a fresh virtual environment in a temporary folder and runs the pytest
# suite in crates/python/tests.
#
# The extension is built with cargo's dev profile (MATURIN_PEP517_ARGS="--profile dev"; the
# workspace sets opt-level 3 for every dependency and 1 for its own crates there) into the same
# target folder as the cargo steps before it. That folder does not save the dependencies: cargo
# unifies features per build, and this crate alone selects fewer than `cargo test --workspace`,
# so faer, clarabel and the signorini crates are compiled again (measured on the 2-core dev
# machine under load: 1056 s with an empty target folder, 27-34 s when this build's own
# artifacts are there). A user's `pip install ./crates/python` builds the release profile.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
python="${PYTHON:-python3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
"$python" -m venv "$tmp/venv"
# The maturin backend runs the `maturin` executable of the environment (--no-build-isolation).
export PATH="$tmp/venv/bin:$PATH"
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check maturin pytest numpy scipy
MATURIN_PEP517_ARGS="--profile dev" "$tmp/venv/bin/pip" install --quiet \
    --disable-pip-version-check --no-build-isolation "$here"
built=$(date +%s)
# From the temporary folder, so that `import signorini` finds the installed package only.
(cd "$tmp" && "$tmp/venv/bin/python" -c "import signorini; print('signorini', signorini.__version__)")
(cd "$tmp" && "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider "$here/tests")
end=$(date +%s)
echo "python package: venv and build $((built - start)) s, tests $((end - built)) s"
