#!/usr/bin/env bash
# Installs Snakemake and its Slurm executor plugin (pinned in workflows/requirements.txt) from the
# Python package index into a virtual environment: workflows/.venv, or the directory given.
#   bash workflows/install.sh [VENV]
# Needs python3 (3.11 or later) with its venv module (Debian: apt-get install python3-venv).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${1:-$here/.venv}"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    { echo "install: Snakemake 9 needs Python 3.11 or later ($(python3 --version))" >&2; exit 1; }
pins() { grep -v '^#' "$here/requirements.txt"; }
# Installed again unless every pin is there already.
if [ ! -x "$venv/bin/pip" ] || pins | grep -qvxF -f <("$venv/bin/pip" freeze 2>/dev/null); then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
fi
"$venv/bin/snakemake" --version
