#!/usr/bin/env bash
# Builds the Python module xqtb (this crate) into a wheel and installs it, with the pinned maturin
# and pytest of requirements.txt, into a virtual environment: crates/xqtb-py/.venv, or the
# directory given. Run it again after changing the module: the tests import the installed wheel.
#   bash crates/xqtb-py/install.sh [VENV]
# Needs cargo and python3 (3.10 or later) with its venv module (Debian: python3-venv). The wheel
# is compiled in release under CARGO_TARGET_DIR (default: the workspace's target/), so a run with
# nothing changed recompiles nothing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${1:-$here/.venv}"
target="${CARGO_TARGET_DIR:-$here/../../target}"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
    { echo "install: the module needs Python 3.10 or later ($(python3 --version))" >&2; exit 1; }
pins() { grep -v '^#' "$here/requirements.txt"; }
# Installed again unless every pin is there already.
if [ ! -x "$venv/bin/pip" ] || pins | grep -qvxF -f <("$venv/bin/pip" freeze 2>/dev/null); then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
fi
# A directory of its own, emptied first, so that the one wheel in it is this build's.
wheels="$target/xqtb-py-wheel"
rm -rf "$wheels"
"$venv/bin/maturin" build --quiet --release --locked --manifest-path "$here/Cargo.toml" \
    --interpreter "$venv/bin/python" --out "$wheels"
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps \
    "$wheels"/*.whl
"$venv/bin/python" -c 'import xqtb; print("installed", xqtb.__file__)'
