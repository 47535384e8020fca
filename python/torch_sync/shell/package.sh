# Sourced by this folder's bash tools (pre-commit-hook.sh, sarif.sh), which are package data of the Python
# package torch_sync (torch_sync/shell/). Sets:
#   package   the package's folder; the folder that holds it goes first on PYTHONPATH (exported), so that
#             "$python" -m torch_sync.X runs this same package's modules
#   python    TORCH_SYNC_PYTHON (the launchers set it to their own Python), default python3
#   checkout  the torch-sync checkout the package sits in (python/torch_sync/ there), or empty (installed)
#   prelude   the CUDA host prelude: the package's (data/cuda/, installed) or the checkout's (checker/cuda/)
package=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PYTHONPATH="$(dirname "$package")${PYTHONPATH:+:$PYTHONPATH}"
python=${TORCH_SYNC_PYTHON:-python3}
checkout=$(dirname "$(dirname "$package")")
[ "$(basename "$(dirname "$package")")" = python ] && [ -d "$checkout/checker" ] || checkout=""
prelude=$package/data/cuda/torch-sync-cuda-host.h
[ -f "$prelude" ] || prelude=$checkout/checker/cuda/torch-sync-cuda-host.h
