#!/usr/bin/env bash
# Creates the Python environment for the validation scripts (JuPedSim, PedPy,
# Shapely, PyYAML, matplotlib, numpy) and installs requirements.txt into it.
#
#   scripts/validation/setup_venv.sh [VENV_DIR]
#
# VENV_DIR defaults to .venv-validation/ at the repository root (ignored by git).
# Then run e.g.  .venv-validation/bin/python scripts/validation/jupedsim_run.py ...
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${1:-$root/.venv-validation}"
python="${PYTHON:-python3}"

if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
    echo "setup_venv.sh: $python is older than Python 3.10 (JuPedSim 1.4 needs 3.10 or newer)" >&2
    exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
    if ! "$python" -m venv "$venv"; then
        echo "setup_venv.sh: '$python -m venv' failed; on Debian/Ubuntu: apt-get install python3-venv" >&2
        exit 1
    fi
fi
"$venv/bin/python" -m pip install --upgrade pip >/dev/null
"$venv/bin/python" -m pip install -r "$here/requirements.txt"
"$venv/bin/python" -c 'import jupedsim, pedpy, shapely, yaml; print("jupedsim", jupedsim.__version__, "pedpy", pedpy.__version__, "shapely", shapely.__version__)'
echo "setup_venv.sh: ready: $venv/bin/python $here/jupedsim_run.py --help"
