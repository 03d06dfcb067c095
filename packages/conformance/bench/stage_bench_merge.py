#!/usr/bin/env python3
"""Merge the rounds of the U-Net stage benchmark (scripts/device/bench-stage.sh).

Usage: python3 stage_bench_merge.py ROWS.jsonl

For each row and column (ours, PyTorch eager, CUDA graphs, torch.compile): the median over rounds
of each round's median step time; ours / each PyTorch column, with "parity" where the ratio is
within the noise (|ratio - 1| no larger than the two columns' spreads over rounds, (max - min) /
median, added); and the goal, ours <= 0.75x eager. Then the checks, from round 1:
  ours    every activation and gradient against the f64 reference, layer by layer (stage-bench.mjs);
  x-torch y and every gradient at 1024 fixed points, ours against PyTorch eager on the same
          inputs, worst relative L2. Both round differently: PyTorch adds the bias after rounding
          the convolution to the dtype, so a pre-activation near zero can take the other side of
          the ReLU and that element's gradient differs wholly; the bound allows for that (about
          sqrt(2 * fraction flipped)), not for a wrong result (a wrong layout, tensor or term
          costs 0.5 and more);
  graphs / compile: PyTorch's against its eager, same inputs, same bound.
Exit status 1 when a check fails or a side is missing, so the phase's rc says so.
"""

import json
import statistics
import sys

GOAL = 0.75
# Worst relative L2 ours vs PyTorch (and PyTorch vs itself) on y and the gradients.
CROSS_BOUND = {"f32": 1e-3, "tf32": 0.1, "f16": 0.1, "bf16": 0.25}


def spread(values):
    m = statistics.median(values)
    return (max(values) - min(values)) / m if m > 0 and len(values) > 1 else 0.0


def ratio_text(ours, theirs):
    if not ours or not theirs:
        return "-"
    r = statistics.median(ours) / statistics.median(theirs)
    parity = abs(r - 1) <= spread(ours) + spread(theirs)
    return f"{r:.2f}{'~' if parity else ''}"


def rel_l2(a, b):
    num = sum((p - q) ** 2 for p, q in zip(a, b))
    den = sum(q * q for q in b)
    return (num / den) ** 0.5 if den > 0 else float("inf")


def main():
    by = {}
    for line in open(sys.argv[1]):
        line = line.strip()
        if line.startswith("{"):
            r = json.loads(line)
            by.setdefault(r["row"], {}).setdefault(r["side"], []).append(r)
    failed = False
    table = []
    emit = table.append  # the tables go last, so a log's tail shows them
    emit("ms per training step (median over rounds of each round's median of 20); ratio = ours / column, ~ = parity (inside the noise)")
    emit(f"{'row':24} {'ours':>8} {'eager':>8} {'graphs':>8} {'compile':>8}  {'/eager':>7} {'/graphs':>7} {'/compile':>8}  goal<=0.75  rounds")
    notes = []
    for row, sides in by.items():
        ours, torch = sides.get("ours", []), sides.get("torch", [])
        if not ours or not torch:
            emit(f"{row:24} missing a side ({len(ours)} ours, {len(torch)} torch rounds)")
            failed = True
            continue
        col = {
            "ours": [r["step_ms"] for r in ours],
            "eager": [r["eager_ms"] for r in torch if "eager_ms" in r],
            "graphs": [r["graphs_ms"] for r in torch if "graphs_ms" in r],
            "compile": [r["compile_ms"] for r in torch if "compile_ms" in r],
        }
        med = {k: (f"{statistics.median(v):8.2f}" if v else f"{'-':>8}") for k, v in col.items()}
        goal = "-"
        if col["eager"]:
            goal = "yes" if statistics.median(col["ours"]) / statistics.median(col["eager"]) <= GOAL else "no"
        emit(f"{row:24} {med['ours']} {med['eager']} {med['graphs']} {med['compile']}  "
              f"{ratio_text(col['ours'], col['eager']):>7} {ratio_text(col['ours'], col['graphs']):>7} "
              f"{ratio_text(col['ours'], col['compile']):>8}  {goal:>10}  {len(ours)}/{len(torch)}")
        for r in torch:
            for key in ("graphs_error", "compile_error", "compile_skipped"):
                if key in r and not str(r[key]).startswith("round "):
                    notes.append(f"{row} round {r['round']}: {key.replace('_', ' ')}: {r[key]}")
            if "compile_first_step_s" in r:
                notes.append(f"{row} round {r['round']}: torch.compile's first step took {r['compile_first_step_s']:.1f} s")
    emit("")
    emit(f"{'row':24} {'ours vs f64 (per layer)':34} {'ours vs eager':>16} {'graphs vs eager':>16} {'compile vs eager':>17}")
    for row, sides in by.items():
        o1 = [r for r in sides.get("ours", []) if r["round"] == 1 and "check" in r]
        t1 = [r for r in sides.get("torch", []) if r["round"] == 1 and "samples" in r]
        bound = CROSS_BOUND[row.split(":")[1]]
        ours_check = "-"
        if o1:
            c = o1[0]["check"]
            ours_check = f"{'PASS' if c['pass'] else 'FAIL'} {c['worst_tensor']} {c['worst_error']:.1e} (tol {c['tolerance']:.0e})" if isinstance(c["worst_error"], float) else f"FAIL {c['worst_tensor']} {c['worst_error']}"
            failed |= not c["pass"]
        cross = "-"
        if o1 and t1:
            worst, tensor = max((rel_l2(o1[0]["samples"][k], t1[0]["samples"][k]), k) for k in t1[0]["samples"])
            ok = worst <= bound
            failed |= not ok
            cross = f"{'PASS' if ok else 'FAIL'} {tensor} {worst:.1e}"
        else:
            failed = True
        def own(key):
            if not t1 or key not in t1[0]:
                return "-"
            ok = t1[0][key] <= bound
            return f"{'PASS' if ok else 'FAIL'} {t1[0][key]:.1e}"
        emit(f"{row:24} {ours_check:34} {cross:>16} {own('graphs_vs_eager'):>16} {own('compile_vs_eager'):>17}   (bound {bound:g})")
    algos = {}
    for row, sides in by.items():
        for r in sides.get("ours", []):
            algos.setdefault(row, set()).add(" ".join(r["algorithms"]))
    for row, names in algos.items():
        print(f"{row}: {' | '.join(sorted(names))}")
    for note in notes:
        print(note)
    print()
    for line in table:
        print(line)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
