#!/bin/sh
# The GPU check, one command on a bare GPU machine (docs/gpu-check.md):
#     sh run.sh [-o OUT] [--budget S] [--stand-ins] [--help]
# It needs a python3 (any 3.8+; the replays use $TLREPLAY_PYTHON, else python3 on PATH, which
# must have torch with CUDA). $GPU_CHECK_PYTHON picks the Python that runs the check itself.
here=$(cd "$(dirname "$0")" && pwd)
py=${GPU_CHECK_PYTHON:-$(command -v python3 || true)}
if [ -z "$py" ]; then
	echo "gpu-check: no python3 on PATH (set GPU_CHECK_PYTHON)" >&2
	exit 2
fi
exec "$py" "$here/gpu_check.py" "$@"
