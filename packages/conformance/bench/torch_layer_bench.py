#!/usr/bin/env python3
"""PyTorch side of the layer benchmark: conv + bias + ReLU forward, as PyTorch eager runs it.

Usage:
    python3 torch_layer_bench.py SUITE.json ROUND CASE:DTYPE:LAYOUT ...

For each row: F.relu(F.conv3d(x, w, b)) -- the convolution with its bias (PyTorch adds it after
cuDNN's convolution, with its own kernel) and then the ReLU, two or three kernels -- and the plain
F.conv3d(x, w) for reference. torch.backends.cudnn.benchmark stays False (PyTorch as a user gets
it), TF32 off, channels_last_3d for ndhwc. CUDA events around each call after 5 warm-up calls, the
median of 30. One JSON line per row on stdout, tagged with ROUND, for layer_bench_merge.py. The
node side (packages/kernels/scripts/layer-bench.mjs) runs the same rows in turns with this one
(scripts/device/bench-layer.sh).
"""

import json
import statistics
import sys

import torch
import torch.nn.functional as F

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
WARMUP = 5
REPS = 30


def timed(fn):
    for _ in range(WARMUP):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(REPS)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(REPS)]
    for i in range(REPS):
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def main():
    suite = json.load(open(sys.argv[1]))
    round_ = int(sys.argv[2])
    cases = {c["name"]: c for c in suite["cases"]}
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    for row in sys.argv[3:]:
        name, dtype, layout = row.split(":")
        c = cases[name]
        fmt = torch.channels_last_3d if layout == "ndhwc" else torch.contiguous_format
        dt = DTYPES[dtype]
        g = c.get("groups") or 1
        x = torch.rand(c["n"], c["c_in"], *c["in"], device="cuda", dtype=dt).sub_(0.5)
        x = x.contiguous(memory_format=fmt)
        w = torch.rand(c["c_out"], c["c_in"] // g, *c["k"], device="cuda", dtype=dt).sub_(0.5)
        w = w.contiguous(memory_format=fmt)
        b = torch.rand(c["c_out"], device="cuda", dtype=dt)
        args = dict(stride=c["stride"], padding=c["pad"], dilation=c.get("dil", [1, 1, 1]), groups=g)
        with torch.no_grad():
            layer_ms = timed(lambda: F.relu(F.conv3d(x, w, b, **args)))
            conv_ms = timed(lambda: F.conv3d(x, w, None, **args))
        print(json.dumps({"side": "torch", "round": round_, "row": row, "layer_ms": layer_ms,
                          "conv_ms": conv_ms, "torch": torch.__version__,
                          "cudnn": torch.backends.cudnn.version()}), flush=True)
        del x, w, b
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
