#!/usr/bin/env python3
"""PyTorch side of the U-Net stage benchmark (issue 23 (b)): one training step of the stage as
torch.nn modules, three ways.

Usage:
    python3 torch_stage_bench.py STAGES.json ROUND STAGE:DTYPE:LAYOUT ...

The stage (stage-shapes.json): Conv3d(c, c, 3, padding=1) + ReLU twice, Conv3d(c, c_down, 3,
stride=2, padding=1) + ReLU, ConvTranspose3d(c_down, c, 2, stride=2, bias=False); ReLU in place,
as U-Nets write it. One step = zero_grad(set_to_none=True), y = model(x), y.backward(dy), x
requiring grad (the stage sits inside a network). DTYPE f16 / bf16 (the whole model in that dtype,
as ours stores it), f32 (TF32 off) or tf32 (f32 with cudnn.allow_tf32, PyTorch's default);
LAYOUT ndhwc = channels_last_3d. cudnn.benchmark stays False (as in the layer benchmark: PyTorch as
a user gets it, heuristics against our heuristics).

  eager    autograd as written;
  graphs   the whole step captured once in a torch.cuda.CUDAGraph (after warm-up on a side
           stream, grads allocated inside the capture) and replayed;
  compile  torch.compile(model) (default mode), only in the rounds named by STAGE_COMPILE_ROUNDS
           (default "1": compiling costs tens of seconds per row) and only while the process is
           inside STAGE_COMPILE_BUDGET_S seconds (default 150); a failure is reported as its
           error, never as a number.

CUDA events around each step after 3 warm-up steps, the median of 20. The inputs are the ones
packages/kernels/scripts/stage-bench.mjs makes (value(): a hash of the logical index, the tensor
and the round). Round 1 also prints y and every gradient at fixed logical indices (`samples`) for
the merge's cross-check with ours, and checks graphs and compile against eager on the same
inputs. One JSON line per row on stdout, tagged with ROUND, for stage_bench_merge.py.
"""

import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn as nn

DTYPES = {"f32": torch.float32, "tf32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
SALTS = {"x": 1, "w1": 2, "b1": 3, "w2": 4, "b2": 5, "wd": 6, "bd": 7, "wu": 8, "dy": 9}
SAMPLES = 1024
WARMUP = 3
REPS = 20
M32 = 0xFFFFFFFF


def mul32(h, m):
    """(h * m) mod 2^32 for int64 h < 2^32, in 16-bit halves: no int64 product overflows."""
    return (h * (m & 0xFFFF) + (((h * (m >> 16)) & 0xFFFF) << 16)) & M32


def value(shape, salt, round_, scale):
    """The same hash as stage-bench.mjs's stageValue, over the logical (row-major) indices."""
    n = math.prod(shape)
    h = torch.arange(n, dtype=torch.int64, device="cuda")
    h = (h + (((salt * 1000 + round_) * 0x9E3779B9) & M32)) & M32
    h ^= h >> 16
    h = mul32(h, 0x7FEB352D)
    h ^= h >> 15
    h = mul32(h, 0x846CA68B)
    h ^= h >> 16
    return (((h.double() / 4294967296.0) * 2 - 1) * scale).float().reshape(shape)


class Stage(nn.Module):
    def __init__(self, c, c_down):
        super().__init__()
        self.conv1 = nn.Conv3d(c, c, 3, padding=1)
        self.conv2 = nn.Conv3d(c, c, 3, padding=1)
        self.down = nn.Conv3d(c, c_down, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose3d(c_down, c, 2, stride=2, bias=False)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.down(x))
        return self.up(x)


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


def samples_of(model, x, y):
    tensors = {
        "y": y, "dx": x.grad,
        "dw1": model.conv1.weight.grad, "db1": model.conv1.bias.grad,
        "dw2": model.conv2.weight.grad, "db2": model.conv2.bias.grad,
        "dwd": model.down.weight.grad, "dbd": model.down.bias.grad,
        "dwu": model.up.weight.grad,
    }
    out = {}
    for name, t in tensors.items():
        flat = t.detach().reshape(-1).double()
        n = flat.numel()
        idx = torch.tensor([((2 * k + 1) * n) // (2 * SAMPLES) for k in range(SAMPLES)], device=flat.device)
        out[name] = flat[idx].cpu().tolist()
    return out


def rel_l2(a, b):
    num = sum((p - q) ** 2 for p, q in zip(a, b))
    den = sum(q * q for q in b)
    return math.sqrt(num / den) if den > 0 else float("inf")


def compare(got, want):
    """The worst relative L2 over the sampled tensors of two sample sets."""
    return max(rel_l2(got[k], want[k]) for k in want)


def main():
    stages = json.load(open(sys.argv[1]))["stages"]
    round_ = int(sys.argv[2])
    compile_rounds = {int(r) for r in os.environ.get("STAGE_COMPILE_ROUNDS", "1").split(",") if r.strip()}
    compile_budget = float(os.environ.get("STAGE_COMPILE_BUDGET_S", "150"))
    started = time.monotonic()
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_tf32 = False
    for row in sys.argv[3:]:
        name, dtype, layout = row.split(":")
        s = stages[name]
        c, cd, n, size = s["c"], s["c_down"], s["n"], s["size"]
        torch.backends.cudnn.allow_tf32 = dtype == "tf32"
        fmt = torch.channels_last_3d if layout == "ndhwc" else torch.contiguous_format
        dt = DTYPES[dtype]
        model = Stage(c, cd).cuda()
        w_scale = math.sqrt(3 / (27 * c))
        params = {
            "w1": (model.conv1.weight, w_scale), "b1": (model.conv1.bias, 0.1),
            "w2": (model.conv2.weight, w_scale), "b2": (model.conv2.bias, 0.1),
            "wd": (model.down.weight, w_scale), "bd": (model.down.bias, 0.1),
            "wu": (model.up.weight, math.sqrt(3 / (8 * cd))),
        }
        with torch.no_grad():
            for key, (p, scale) in params.items():
                p.copy_(value(tuple(p.shape), SALTS[key], round_, scale))
        model = model.to(dtype=dt, memory_format=fmt)
        full = (n, c, *size)
        x = value(full, SALTS["x"], round_, 1.0).to(dt).contiguous(memory_format=fmt).requires_grad_(True)
        dy = value(full, SALTS["dy"], round_, 1.0).to(dt).contiguous(memory_format=fmt)

        def eager_step(m=model):
            m.zero_grad(set_to_none=True)
            x.grad = None
            y = m(x)
            y.backward(dy)
            return y

        result = {"side": "torch", "round": round_, "row": row, "torch": torch.__version__,
                  "cudnn": torch.backends.cudnn.version()}
        y = eager_step()
        torch.cuda.synchronize()
        eager_samples = samples_of(model, x, y) if round_ == 1 else None
        if eager_samples is not None:
            result["samples"] = eager_samples
        result["eager_ms"] = timed(eager_step)

        # The whole step in one CUDA graph.
        try:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    eager_step()
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            model.zero_grad(set_to_none=True)
            x.grad = None
            with torch.cuda.graph(graph):
                y_static = model(x)
                y_static.backward(dy)
            graph.replay()
            torch.cuda.synchronize()
            if eager_samples is not None:
                result["graphs_vs_eager"] = compare(samples_of(model, x, y_static), eager_samples)
            result["graphs_ms"] = timed(graph.replay)
            del graph, y_static
        except Exception as error:  # noqa: BLE001 -- reported, never a number
            result["graphs_error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"

        if round_ not in compile_rounds:
            result["compile_skipped"] = f"round {round_} not in STAGE_COMPILE_ROUNDS"
        elif time.monotonic() - started > compile_budget:
            result["compile_skipped"] = f"past STAGE_COMPILE_BUDGET_S={compile_budget:g}s"
        else:
            try:
                t0 = time.monotonic()
                compiled = torch.compile(model)
                y = eager_step(compiled)
                torch.cuda.synchronize()
                result["compile_first_step_s"] = time.monotonic() - t0
                if eager_samples is not None:
                    result["compile_vs_eager"] = compare(samples_of(model, x, y), eager_samples)
                result["compile_ms"] = timed(lambda: eager_step(compiled))
                del compiled
            except Exception as error:  # noqa: BLE001 -- reported, never a number
                result["compile_error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"
        print(json.dumps(result), flush=True)
        del model, x, dy, y
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
