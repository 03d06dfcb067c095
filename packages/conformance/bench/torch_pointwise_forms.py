"""A probe, not a benchmark row: for a 1x1x1, stride-1, unpadded, ungrouped case, how long PyTorch
takes for backward-data (dx = W^T dy) written three ways, next to its forward:
  bwData       aten.convolution_backward with the output mask [True, False, False] (the bench's call)
  fw(dy, W^T)  F.conv3d of dy with the filter transposed to [C_in, C_out, 1, 1, 1] beforehand
  fw+T         the same, with the filter transposed inside the timed call
  matmul       torch.matmul(W^T, dy viewed as [N, C_out, DHW]) (NCDHW only; cuBLAS, for reference)
  fw           the forward pass of the case itself
Each is one call between non-blocking events, the median of REPS calls a round, ROUNDS rounds in
turn; operands rotated among SETS sets. Set up as the benchmark sets PyTorch up (TorchSide).

Usage: python3 torch_pointwise_forms.py SUITE.json CASE:DTYPE:LAYOUT:SETS ...
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from torch_conv3d_bench import JobError, suite_case, with_torch  # noqa: E402
from torch_event_overhead import per_call  # noqa: E402

ROUNDS = 5


def forms(side, case, tensors, layout):
    torch, F = side.torch, side.F
    fmt = torch.channels_last_3d if layout == "ndhwc" else torch.contiguous_format
    transposed = [w.transpose(0, 1).contiguous(memory_format=fmt) for _, w, _ in tensors]
    pick = lambda i: tensors[i % len(tensors)]  # noqa: E731
    out = {
        "bwData": side.make_call(case, "bwData", tensors),
        "fw(dy, W^T)": lambda i: F.conv3d(pick(i)[2], transposed[i % len(tensors)]),
        "fw+T": lambda i: F.conv3d(pick(i)[2], pick(i)[1].transpose(0, 1).contiguous(memory_format=fmt)),
        "fw": side.make_call(case, "fw", tensors),
    }
    if layout == "ncdhw":
        n, k = case["n"], case["c_out"]
        mats = [t[:, :, 0, 0, 0].contiguous() for t in transposed]
        out["matmul"] = lambda i: torch.matmul(mats[i % len(tensors)], pick(i)[2].view(n, k, -1))
    return out


def parse(suite_path, spec):
    """One CASE:DTYPE:LAYOUT:SETS spec: (case, dtype, layout, sets); JobError naming what is wrong."""
    parts = spec.split(":")
    if len(parts) != 4:
        raise JobError("expected CASE:DTYPE:LAYOUT:SETS but received %r" % spec)
    name, dtype, layout, sets = parts
    case = suite_case(suite_path, name)
    one_by_one = all(k == 1 for k in case["k"]) and all(s == 1 for s in case["stride"])
    if not one_by_one or any(case["pad"]) or case["groups"] != 1:
        raise JobError("%s is not a 1x1x1, stride-1, unpadded, ungrouped case" % name)
    if dtype not in ("f32", "tf32", "f16", "bf16", "f64") or layout not in ("ncdhw", "ndhwc"):
        raise JobError("expected a dtype of f32, tf32, f16, bf16, f64 and a layout of ncdhw, ndhwc in %r" % spec)
    if not sets.isdigit() or int(sets) < 1:
        raise JobError("expected a positive number of sets in %r" % spec)
    return case, dtype, layout, int(sets)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2

    def work(side, jobs):
        torch = side.torch
        for spec, case, dtype, layout, sets in jobs:
            side.set_tf32(dtype == "tf32")
            calls = forms(side, case, side.make_tensors(case, dtype, layout, sets), layout)
            times = {key: [] for key in calls}
            for _ in range(ROUNDS):
                for key, call in calls.items():
                    times[key].append(per_call(torch, call, False))
            print("torch %s %s: (us per call, median of each round)" % (torch.__version__, spec))
            for key, values in times.items():
                print("  %-12s %s  median %.2f" % (key, " ".join("%.2f" % v for v in values), statistics.median(values)))
        return 0

    return with_torch(lambda: [(spec,) + parse(argv[0], spec) for spec in argv[1:]], work)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
