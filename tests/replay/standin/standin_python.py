# SPDX-License-Identifier: MIT
"""Run a Python script or -c code with torch.cuda faked (fake_torch_cuda.FakeCuda).

    standin_python.py SCRIPT [ARGS...]     tlreplay_worker.py: its package builds tensors on the CPU
    standin_python.py -c CODE [ARGS...]

The replay worker is loaded as a module so that its Session can be patched before it serves;
anything else runs as __main__ with only torch patched. The fake device has 64 GiB free.
"""
import importlib.util
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # fake_torch_cuda.py: beside, or in tests/replay

from fake_torch_cuda import FakeCuda  # noqa: E402

FREE = (64 << 30, 80 << 30)


def main(argv):
    if not argv:
        sys.stderr.write("standin_python.py: which script?\n")
        return 2
    if argv[0] == "-c":
        sys.argv = ["-c"] + argv[2:]
        with FakeCuda(False, mem=FREE):
            exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
        return 0
    script = argv[0]
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    if os.path.basename(script) == "tlreplay_worker.py":
        spec = importlib.util.spec_from_file_location("tlreplay_worker", script)
        W = importlib.util.module_from_spec(spec)
        sys.modules["tlreplay_worker"] = W
        spec.loader.exec_module(W)  # puts its package (tlreplay_replay) on sys.path for FakeCuda
        with FakeCuda(True, mem=FREE):
            return W.main(argv[1:])
    with FakeCuda(False, mem=FREE):
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
