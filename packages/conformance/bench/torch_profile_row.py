"""Run one benchmark row with PyTorch for a profiler (Nsight Compute) to read, as the benchmark sets
PyTorch up (torch_conv3d_bench.TorchSide): warm-up calls outside any range, then the measured calls
inside an NVTX range named "measure", for `ncu --nvtx --nvtx-include measure/`.

Usage: python3 torch_profile_row.py SUITE.json CASE DTYPE LAYOUT PASS [CALLS]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from torch_conv3d_bench import suite_case, with_torch  # noqa: E402

WARMUP = 5


def main(argv):
    if len(argv) not in (5, 6):
        sys.stderr.write(__doc__)
        return 2
    suite_path, case_name, dtype, layout, pass_name = argv[:5]
    calls = int(argv[5]) if len(argv) == 6 else 4

    def work(side, case):
        side.set_tf32(dtype == "tf32")
        torch = side.torch
        call = side.make_call(case, pass_name, side.make_tensors(case, dtype, layout, 1))
        for i in range(WARMUP):
            call(i)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("measure")
        for i in range(calls):
            call(WARMUP + i)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        print("torch %s %s %s %s %s: %d calls profiled" % (torch.__version__, case_name, dtype, layout, pass_name, calls))
        return 0

    return with_torch(lambda: suite_case(suite_path, case_name), work)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
