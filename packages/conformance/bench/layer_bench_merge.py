#!/usr/bin/env python3
"""Merge the rounds of the layer benchmark (scripts/device/bench-layer.sh): for each row, the median
over rounds of each side's per-round median, and ours / PyTorch.

Usage: python3 layer_bench_merge.py ROWS.jsonl
"""

import json
import statistics
import sys


def main():
    by = {}
    for line in open(sys.argv[1]):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        by.setdefault(r["row"], {}).setdefault(r["side"], []).append(r)
    print(f"{'row':32} {'ours ms':>9} {'torch ms':>9} {'ratio':>6}  {'ours conv':>9} {'torch conv':>10}  rounds  algorithm")
    for row, sides in by.items():
        ours, torch = sides.get("ours", []), sides.get("torch", [])
        if not ours or not torch:
            print(f"{row:32} missing a side ({len(ours)} ours, {len(torch)} torch rounds)")
            continue
        o = statistics.median(r["layer_ms"] for r in ours)
        t = statistics.median(r["layer_ms"] for r in torch)
        oc = statistics.median(r["conv_ms"] for r in ours)
        tc = statistics.median(r["conv_ms"] for r in torch)
        algos = sorted({r["algorithm"] for r in ours})
        print(f"{row:32} {o:9.3f} {t:9.3f} {o / t:6.2f}  {oc:9.3f} {tc:10.3f}  {len(ours)}/{len(torch)}  {' | '.join(algos)}")


if __name__ == "__main__":
    main()
