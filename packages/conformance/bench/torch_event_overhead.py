"""PyTorch's side of packages/kernels/scripts/event-overhead.mjs: one benchmark row's call timed
between torch.cuda.Event pairs made with blocking=False (the bench's), with blocking=True (as the
driver's default Event makes them), and a loop of calls between one pair; alternating rounds,
each the median of REPS calls, in µs. PyTorch is set up as the benchmark sets it up (TorchSide).

Usage: python3 torch_event_overhead.py SUITE.json CASE:DTYPE:LAYOUT:PASS:SETS ...
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from torch_conv3d_bench import suite_case, with_torch  # noqa: E402

REPS = 200
ROUNDS = 5


def per_call(torch, call, blocking):
    for i in range(10):
        call(i)
    starts = [torch.cuda.Event(enable_timing=True, blocking=blocking) for _ in range(REPS)]
    ends = [torch.cuda.Event(enable_timing=True, blocking=blocking) for _ in range(REPS)]
    for i in range(REPS):
        starts[i].record()
        call(i)
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends)) * 1e3


def loop(torch, call):
    for i in range(10):
        call(i)
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for i in range(REPS):
        call(i)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / REPS * 1e3


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2

    def work(side, _):
        torch = side.torch
        for spec in argv[1:]:
            name, dtype, layout, pass_name, sets = spec.split(":")
            case = suite_case(argv[0], name)
            side.set_tf32(dtype == "tf32")
            call = side.make_call(case, pass_name, side.make_tensors(case, dtype, layout, int(sets)))
            results = {"nonblocking": [], "blocking": [], "loop": []}
            for _ in range(ROUNDS):
                results["nonblocking"].append(per_call(torch, call, False))
                results["blocking"].append(per_call(torch, call, True))
                results["loop"].append(loop(torch, call))
            print("torch %s %s: (median of %d per round, us)" % (torch.__version__, spec, REPS))
            for key, values in results.items():
                print("  %-12s %s  median %.2f" % (key, " ".join("%.2f" % v for v in values), statistics.median(values)))
        return 0

    return with_torch(lambda: None, work)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
