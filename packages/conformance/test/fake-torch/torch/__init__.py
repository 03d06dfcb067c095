"""A stand-in for torch, for tests of torch_conv3d_bench.py without a GPU.

Only what the script calls. Every timed call takes FAKE_TORCH_MS milliseconds (default 0.5), or
FAKE_TORCH_MS_<PASS> for one pass (fw, bwData, bwFilter, bwStep: an autograd backward);
FAKE_TORCH_CUDA=0 makes CUDA absent; FAKE_TORCH_FAIL=<pass> makes that pass raise; FAKE_TORCH_NOISE=1
writes a line to file descriptor 1 at import, as a C library may. Calls are counted in `calls` by
pass. FAKE_TORCH_LOG=<file> appends one line per convolution call saying the pass, the cuDNN search
settings in force and whether torch.profiler was ever imported, for tests of the script's set-up.
"""
import os
import sys

from . import nn  # noqa: F401 - torch.nn.functional is imported by the script

if os.environ.get("FAKE_TORCH_NOISE") == "1":
    os.write(1, b"a C library printing to stdout\n")

__version__ = "0.0-fake"


class version:  # noqa: N801 - torch.version
    cuda = "13.0-fake"


class _Dtype:
    def __init__(self, name):
        self.name = name


float32, float16, bfloat16, float64 = (_Dtype(n) for n in ("float32", "float16", "bfloat16", "float64"))
channels_last_3d = "channels_last_3d"
contiguous_format = "contiguous_format"
calls = {"fw": 0, "bwData": 0, "bwFilter": 0, "bwStep": 0}
_pending = []


def _ms(pass_name):
    return float(os.environ.get("FAKE_TORCH_MS_" + pass_name, os.environ.get("FAKE_TORCH_MS", "0.5")))


class Tensor:
    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.memory_format = tuple(shape), dtype, contiguous_format

    def __mul__(self, other):
        return self

    def __sub__(self, other):
        return self

    def contiguous(self, memory_format=contiguous_format):
        self.memory_format = memory_format
        return self

    def detach(self):
        return Tensor(self.shape, self.dtype)

    def requires_grad_(self, flag=True):
        self.requires_grad = flag
        return self


def rand(shape, device=None, dtype=None):
    return Tensor(shape, dtype)


def device(kind, index=0):
    return (kind, index)


def _run(pass_name):
    if os.environ.get("FAKE_TORCH_FAIL") == pass_name:
        raise RuntimeError("fake failure in " + pass_name)
    calls[pass_name] += 1
    _pending.append(_ms(pass_name))
    log = os.environ.get("FAKE_TORCH_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write("%s benchmark=%s limit=%s profiler=%s\n" % (
                pass_name, backends.cudnn.benchmark, backends.cudnn.benchmark_limit,
                "torch.profiler" in sys.modules))


class cuda:  # noqa: N801 - torch.cuda
    @staticmethod
    def is_available():
        return os.environ.get("FAKE_TORCH_CUDA", "1") != "0"

    @staticmethod
    def get_device_name(index=0):
        return "Fake GPU"

    @staticmethod
    def synchronize():
        pass

    @staticmethod
    def empty_cache():
        pass

    class Event:
        def __init__(self, enable_timing=False):
            self.at = 0

        def record(self):
            self.at = len(_pending)

        def elapsed_time(self, end):
            return sum(_pending[self.at:end.at])


class backends:  # noqa: N801 - torch.backends
    class cudnn:  # noqa: N801
        benchmark = False
        benchmark_limit = 10
        enabled = True
        allow_tf32 = True

        @staticmethod
        def version():
            return 91900

    class cuda:  # noqa: N801
        class matmul:  # noqa: N801
            allow_tf32 = False


class ops:  # noqa: N801 - torch.ops.aten
    class aten:  # noqa: N801
        @staticmethod
        def convolution_backward(dy, x, w, bias, stride, pad, dil, transposed, out_pad, groups, mask):
            _run("bwData" if mask[0] else "bwFilter")
            return (x if mask[0] else None, w if mask[1] else None, None)


class autograd:  # noqa: N801 - torch.autograd
    @staticmethod
    def grad(outputs, inputs, grad_outputs, retain_graph=False):
        _run("bwStep")
        return tuple(inputs)


class _C:  # noqa: N801 - no _select_conv_backend: the script then relies on profiling
    pass
