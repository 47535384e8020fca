# Sourced by runtime-verify/run.sh and recorder/test/check-crashes.sh, after they set `build`: stops the script
# with exit status 77 ("nothing built or run") unless nvidia-smi sees an NVIDIA GPU and a torch sees a CUDA
# device, then sets `python` (PYTHON, else /opt/torch/.venv/bin/python3, else python3), `prefix` (torch's CMake
# prefix path) and `generator` (-G Ninja where ninja is installed and `build` has no CMake cache yet).
# Takes: preflight_name (the prefix of its messages), preflight_needs (what "this ... needs an NVIDIA GPU" names).
skip() {
  echo "$preflight_name: $*; nothing built or run ($preflight_needs needs an NVIDIA GPU)" >&2
  exit 77
}
command -v nvidia-smi >/dev/null 2>&1 || skip "no nvidia-smi on PATH"
nvidia-smi -L 2>/dev/null | grep -q '^GPU ' || skip "nvidia-smi sees no GPU"

python=${PYTHON:-}
if [[ -z $python ]]; then
  if [[ -x /opt/torch/.venv/bin/python3 ]]; then python=/opt/torch/.venv/bin/python3; else python=python3; fi
fi
"$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
  skip "$python has no torch that sees a CUDA device"
prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)') || exit 1

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
[[ -f $build/CMakeCache.txt ]] && generator=()
