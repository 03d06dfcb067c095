#!/usr/bin/env python3
"""PyTorch side of baracuda's conv3d benchmark.

Usage:
    python3 torch_conv3d_bench.py JOB.json [--out RESULTS.json]   # a batch run (bench: host overhead)
    python3 torch_conv3d_bench.py JOB.json --check-job             # validate the job only (no torch needed)
    python3 torch_conv3d_bench.py --serve --column default|tuned   # a worker: JSON requests on stdin (serve())

`bench --vs-torch` starts one worker per column and takes turns with them, round by round, group by
group (packages/conformance/src/bench/torch-worker.ts). A process is one column for its whole life:
- column "default": torch.backends.cudnn.benchmark = False, PyTorch as a user gets it, the peer of
  our heuristic (default) mode;
- column "tuned": benchmark = True and benchmark_limit = 0 (every engine config cuDNN offers is
  tried on a shape's first call), the peer of our autotune.
After timing, `bench` runs a batch job of host-overhead items in a fresh process per column.

Set-up, as the benchmark asks:
- TF32 off for strict rows (f32, f16, bf16, f64, and 3xtf32: PyTorch has no 3xTF32, and strict
  f32 is its peer in accuracy), on for tf32 rows;
- channels_last_3d memory format for ndhwc rows;
- forward through F.conv3d; bwData and bwFilter through aten.convolution_backward with an output
  mask ([True, False, False] / [False, True, False]); bwStep as a training step calls the backward:
  one autograd backward (torch.autograd.grad of y = F.conv3d(x, w) with respect to x and w), which
  computes dX and dW together;
- CUDA events around each call, after a warm-up; the median of the reps; inputs rotated among sets;
- the first call of each pass of a new group is timed on its own (wall clock, synchronized): with
  benchmark = True it holds cuDNN's search, PyTorch's time to a plan.

No profiler is imported or run here: a process that times never profiles (torch.profiler leaves
CUPTI slowing later work). To see which kernels PyTorch ran, profile a row in a separate process
afterwards (torch_profile_row.py). Whether PyTorch ran cuDNN for a row comes from
torch._C._select_conv_backend.

Results (JSON) go to --out (rewritten after every group, so a killed run leaves partial results) or
stdout. Progress goes to stderr.
"""

import argparse
import json
import os
import statistics
import sys
import time

# 3xtf32 rows (our math '3xtf32') run strict f32 here: PyTorch has no such mode.
DTYPES = ("f32", "tf32", "3xtf32", "f16", "bf16", "f64")
LAYOUTS = ("ncdhw", "ndhwc")
PASSES = ("fw", "bwData", "bwFilter", "bwStep")
COLUMNS = ("default", "tuned")


def log(message):
    print(message, file=sys.stderr, flush=True)


class JobError(ValueError):
    pass


def _expect(condition, what, value):
    if not condition:
        raise JobError("Expected %s but received %r" % (what, value))


def _triple(value, what):
    _expect(isinstance(value, list) and len(value) == 3 and all(isinstance(v, int) for v in value),
            "three integers for " + what, value)
    return value


def _case(raw, where):
    _expect(isinstance(raw, dict), "an object for " + where, raw)
    for key in ("n", "c_in", "c_out", "groups"):
        _expect(isinstance(raw.get(key), int) and raw[key] > 0, "a positive integer for %s.%s" % (where, key),
                raw.get(key))
    for key in ("in", "k", "pad", "stride", "dil"):
        _triple(raw.get(key), "%s.%s" % (where, key))
    _expect(isinstance(raw.get("name"), str), "a string for %s.name" % where, raw.get("name"))
    return raw


def _row(row, where):
    _expect(isinstance(row, dict) and isinstance(row.get("id"), str), "an object with an id for " + where, row)
    _case(row.get("case"), where + ".case")
    _expect(row.get("dtype") in DTYPES, "one of %s for %s.dtype" % (", ".join(DTYPES), where), row.get("dtype"))
    _expect(row.get("layout") in LAYOUTS, "one of %s for %s.layout" % (", ".join(LAYOUTS), where),
            row.get("layout"))
    _expect(row.get("pass") in PASSES, "one of %s for %s.pass" % (", ".join(PASSES), where), row.get("pass"))
    _expect(isinstance(row.get("sets"), int) and row["sets"] > 0, "a positive integer for %s.sets" % where,
            row.get("sets"))
    return row


def _overhead_item(item, where):
    _expect(isinstance(item, dict), "an object for " + where, item)
    _case(item.get("case"), where + ".case")
    _expect(item.get("dtype") in DTYPES, "a dtype for %s.dtype" % where, item.get("dtype"))
    _expect(item.get("layout") in LAYOUTS, "a layout for %s.layout" % where, item.get("layout"))
    _expect(item.get("pass", "fw") in PASSES, "one of %s for %s.pass" % (", ".join(PASSES), where),
            item.get("pass"))
    return item


def _column(value, where):
    _expect(value in COLUMNS, "one of %s for %s" % (", ".join(COLUMNS), where), value)
    return value


def load_job(path):
    """Read and validate a job file; raises JobError naming the field at fault."""
    with open(path, "r", encoding="utf-8") as handle:
        job = json.load(handle)
    _expect(isinstance(job, dict) and job.get("version") == 1, "a job object with version 1", job.get("version")
            if isinstance(job, dict) else job)
    for key in ("warmup", "reps"):
        _expect(isinstance(job.get(key), int) and job[key] >= 0, "a non-negative integer for " + key, job.get(key))
    _expect(isinstance(job.get("rows"), list), "a list for rows", job.get("rows"))
    for i, row in enumerate(job["rows"]):
        _row(row, "rows[%d]" % i)
    for i, item in enumerate(job.get("overhead", [])):
        _overhead_item(item, "overhead[%d]" % i)
    job.setdefault("overhead", [])
    job.setdefault("timeBudgetS", 0)
    job["column"] = _column(job.get("column", "tuned"), "column")
    return job


def group_rows(rows):
    """Consecutive rows sharing case, dtype and layout share their input sets."""
    groups = []
    for row in rows:
        key = (row["case"]["name"], row["dtype"], row["layout"])
        if groups and groups[-1][0] == key:
            groups[-1][1].append(row)
        else:
            groups.append((key, [row]))
    return groups


def suite_case(suite_path, name):
    """One case of a suite file in the shared format (groups defaults to 1), checked as a job's are."""
    with open(suite_path) as f:
        cases = [c for c in json.load(f)["cases"] if c.get("name") == name]
    if not cases:
        raise JobError("no case %r in %s" % (name, suite_path))
    case = dict(cases[0])
    case.setdefault("groups", 1)
    return _case(case, name)


def output_dims(case):
    return [
        (case["in"][i] + 2 * case["pad"][i] - case["dil"][i] * (case["k"][i] - 1) - 1) // case["stride"][i] + 1
        for i in range(3)
    ]


def cudnn_libraries():
    """Every libcudnn* mapped into this process (after the first convolution loaded it)."""
    found = []
    try:
        with open("/proc/self/maps", "r", encoding="utf-8") as maps:
            for line in maps:
                parts = line.split()
                if len(parts) >= 6 and "libcudnn" in parts[-1] and parts[-1] not in found:
                    found.append(parts[-1])
    except OSError:
        pass
    return found


def write_results(results, out_path):
    text = json.dumps(results, indent=2)
    if out_path:
        tmp = out_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        os.replace(tmp, out_path)
    else:
        print(text, flush=True)


def configure_column(torch, column):
    """Set cuDNN's algorithm search as the column asks, once, for the life of the process."""
    cudnn = torch.backends.cudnn
    if column == "tuned":
        cudnn.benchmark = True
        cudnn.benchmark_limit = 0
    else:
        cudnn.benchmark = False


class TorchSide:
    """PyTorch on GPU 0, set up as the benchmark asks for one column; times the rows of one group
    at a time.

    The batch run (a job file) and the worker (--serve) both drive it, so both time alike.
    """

    def __init__(self, column="tuned"):
        import torch
        import torch.nn.functional as F
        self.torch = torch
        self.F = F
        self.column = _column(column, "the column")
        self.errors = []
        self.available = torch.cuda.is_available()
        if not self.available:
            self.errors.append("torch.cuda.is_available() is False")
            return
        self.device = torch.device("cuda", 0)
        configure_column(torch, self.column)
        self.dtypes = {"f32": torch.float32, "tf32": torch.float32, "3xtf32": torch.float32,
                       "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64}
        self.key = None
        self.tensors = None
        self.backend = None
        self.warm_up()

    def warm_up(self):
        """One tiny convolution, so that loading cuDNN and creating its handle is in no group's
        first call (our side has loaded cuDNN and run the peak's convolution before any group)."""
        torch = self.torch
        try:
            x = torch.rand((1, 1, 4, 4, 4), device=self.device, dtype=torch.float32)
            w = torch.rand((1, 1, 1, 1, 1), device=self.device, dtype=torch.float32)
            self.F.conv3d(x, w, None, [1, 1, 1], [0, 0, 0], [1, 1, 1], 1)
            torch.cuda.synchronize()
        except Exception as error:  # noqa: BLE001 - report it; the rows will say what fails
            self.errors.append(("warm-up convolution: %s: %s" % (type(error).__name__, error))[:400])

    def info(self):
        """Versions, device and the cuDNN loaded so far (libraries appear after the first convolution)."""
        torch = self.torch
        cudnn = {"version": None, "path": None, "libraries": cudnn_libraries(), "enabled": None}
        if self.available:
            cudnn["enabled"] = bool(torch.backends.cudnn.enabled)
            try:
                cudnn["version"] = torch.backends.cudnn.version()
            except Exception as error:  # noqa: BLE001 - report, never crash
                if not any(e.startswith("torch.backends.cudnn.version()") for e in self.errors):
                    self.errors.append("torch.backends.cudnn.version(): %s" % error)
        main_library = [p for p in cudnn["libraries"] if os.path.basename(p).startswith("libcudnn.so")]
        cudnn["path"] = (main_library or cudnn["libraries"] or [None])[0]
        cudnn["benchmark"] = bool(torch.backends.cudnn.benchmark)
        limit = getattr(torch.backends.cudnn, "benchmark_limit", None)
        cudnn["benchmarkLimit"] = limit if isinstance(limit, int) else None
        return {"torch": torch.__version__, "cuda": torch.version.cuda, "column": self.column,
                "device": torch.cuda.get_device_name(0) if self.available else None, "cudnn": cudnn}

    def set_tf32(self, enabled):
        self.torch.backends.cuda.matmul.allow_tf32 = enabled
        self.torch.backends.cudnn.allow_tf32 = enabled

    def make_tensors(self, case, dtype, layout, sets):
        """Random inputs (uniform in [-1, 1)) for each rotation set: x, w, dy."""
        torch = self.torch
        od, oh, ow = output_dims(case)
        kind = self.dtypes[dtype]
        memory_format = torch.channels_last_3d if layout == "ndhwc" else torch.contiguous_format
        out = []
        for _ in range(sets):
            x = torch.rand((case["n"], case["c_in"]) + tuple(case["in"]), device=self.device, dtype=kind) * 2 - 1
            w = torch.rand((case["c_out"], case["c_in"] // case["groups"]) + tuple(case["k"]), device=self.device,
                           dtype=kind) * 2 - 1
            dy = torch.rand((case["n"], case["c_out"], od, oh, ow), device=self.device, dtype=kind) * 2 - 1
            out.append(tuple(t.contiguous(memory_format=memory_format) for t in (x, w, dy)))
        return out

    def make_call(self, case, pass_name, tensors):
        F, torch = self.F, self.torch
        stride, pad, dil, groups = case["stride"], case["pad"], case["dil"], case["groups"]
        if pass_name == "fw":
            return lambda i: F.conv3d(tensors[i % len(tensors)][0], tensors[i % len(tensors)][1], None, stride, pad,
                                      dil, groups)
        if pass_name == "bwStep":
            return self.make_step(case, tensors)
        mask = [True, False, False] if pass_name == "bwData" else [False, True, False]

        def call(i):
            x, w, dy = tensors[i % len(tensors)]
            return torch.ops.aten.convolution_backward(dy, x, w, None, stride, pad, dil, False, [0, 0, 0], groups,
                                                       mask)
        return call

    def make_step(self, case, tensors):
        """The backward of a training step: one autograd backward of y = conv3d(x, w) giving dX and
        dW together (autograd asks convolution_backward for both at once). Each set's graph is built
        once, untimed, and kept (retain_graph) so a timed call is the backward alone."""
        F, torch = self.F, self.torch
        graphs = []
        for x, w, dy in tensors:
            x = x.detach().requires_grad_(True)
            w = w.detach().requires_grad_(True)
            y = F.conv3d(x, w, None, case["stride"], case["pad"], case["dil"], case["groups"])
            graphs.append((x, w, y, dy))

        def call(i):
            x, w, y, dy = graphs[i % len(graphs)]
            return torch.autograd.grad(y, (x, w), dy, retain_graph=True)
        return call

    def select_backend(self, case, tensors):
        x, w, _ = tensors[0]
        args = (x, w, None, case["stride"], case["pad"], case["dil"], False, [0, 0, 0], case["groups"])
        selector = getattr(self.torch._C, "_select_conv_backend", None)
        if selector is None:
            return None
        for extra in ((), (None,)):
            try:
                return str(selector(*(args + extra)))
            except Exception:  # noqa: BLE001 - try the other overload
                continue
        return None

    def first_call_ms(self, call):
        """Wall ms of one call and its completion: on a shape's first call, the search included."""
        torch = self.torch
        torch.cuda.synchronize()
        begin = time.perf_counter()
        call(0)
        torch.cuda.synchronize()
        return (time.perf_counter() - begin) * 1e3

    def time_call(self, call, warmup, reps):
        torch = self.torch
        for i in range(max(1, warmup)):
            call(i)
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        base = max(1, warmup)
        for i in range(reps):
            starts[i].record()
            call(base + i)
            ends[i].record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in zip(starts, ends)]

    def release(self):
        self.key = None
        self.tensors = None
        self.backend = None
        if self.available:
            self.torch.cuda.empty_cache()

    def time_group(self, rows, warmup, reps):
        """Time each row of one group (rows sharing case, dtype, layout and sets); one entry per row.

        The group's tensors stay allocated until another group or release(), so a group timed in
        several rounds keeps its inputs; on a new group each pass's first call is timed on its own
        (firstCallMs). Raises on failing to allocate them; a row that fails is an entry with status
        "error".
        """
        first = rows[0]
        case, dtype, layout = first["case"], first["dtype"], first["layout"]
        key = json.dumps([case, dtype, layout, first["sets"]], sort_keys=True)
        self.set_tf32(dtype == "tf32")
        new_group = key != self.key
        if new_group:
            self.release()
            self.tensors = self.make_tensors(case, dtype, layout, first["sets"])
            self.backend = self.select_backend(case, self.tensors)
            self.key = key
        entries = []
        for row in rows:
            entry = {"id": row["id"], "status": "error", "backend": self.backend}
            try:
                call = self.make_call(case, row["pass"], self.tensors)
                if new_group:
                    entry["firstCallMs"] = self.first_call_ms(call)
                times = self.time_call(call, warmup, reps)
                entry["status"] = "ok"
                entry["medianMs"] = statistics.median(times)
                entry["reps"] = len(times)
                used = None if self.backend is None else ("Cudnn" in self.backend)
                entry["usedCudnn"] = used
                log("  %s %s: %.4f ms (cuDNN: %s)" % (self.column, row["pass"], entry["medianMs"], used))
            except Exception as error:  # noqa: BLE001 - one row failing must not end the run
                entry["note"] = ("%s: %s" % (type(error).__name__, error))[:400]
                log("  %s: %s" % (row["pass"], entry["note"]))
            entries.append(entry)
        return entries

    def overhead(self, item):
        """Host µs per call of one pass on a tiny problem: `calls` calls with no sync, median of
        `trials` (the same call as the timed rows make: F.conv3d, convolution_backward, autograd)."""
        torch = self.torch
        case = item["case"]
        pass_name = item.get("pass", "fw")
        calls = int(item.get("calls", 1000))
        trials = int(item.get("trials", 5))
        entry = {"id": item.get("id", case["name"]), "dtype": item["dtype"], "layout": item["layout"],
                 "pass": pass_name, "column": self.column}
        try:
            self.set_tf32(False)
            call = self.make_call(case, pass_name, self.make_tensors(case, item["dtype"], item["layout"], 1))
            for i in range(50):
                call(i)
            torch.cuda.synchronize()
            per_call = []
            for _ in range(trials):
                begin = time.perf_counter_ns()
                for i in range(calls):
                    call(i)
                end = time.perf_counter_ns()
                torch.cuda.synchronize()
                per_call.append((end - begin) / 1e3 / calls)
            entry["trialsUs"] = per_call
            entry["usPerCall"] = statistics.median(per_call)
            log("host overhead %s %s %s %s: %.1f us/call" % (self.column, item["dtype"], item["layout"], pass_name,
                                                            entry["usPerCall"]))
        except Exception as error:  # noqa: BLE001
            entry["note"] = ("%s: %s" % (type(error).__name__, error))[:400]
        return entry


def run(job, out_path):
    """The batch run: every group of the job in turn, then the host overhead."""
    side = TorchSide(job["column"])
    results = {"label": job.get("label", ""), "rows": [], "overhead": [], "errors": side.errors,
               "finished": False}
    results.update(side.info())
    if not side.available:
        write_results(results, out_path)
        return 1

    started = time.monotonic()
    budget = float(job.get("timeBudgetS") or 0)
    groups = group_rows(job["rows"])
    for index, (key, rows) in enumerate(groups):
        case_name, dtype, layout = key
        if budget > 0 and time.monotonic() - started > budget:
            for row in rows:
                results["rows"].append({"id": row["id"], "status": "skipped",
                                        "note": "time budget of %g s reached" % budget})
            continue
        log("[%d/%d] %s %s %s (%d sets)" % (index + 1, len(groups), case_name, dtype, layout, rows[0]["sets"]))
        try:
            results["rows"].extend(side.time_group(rows, job["warmup"], job["reps"]))
        except Exception as error:  # noqa: BLE001 - e.g. out of memory allocating inputs
            note = ("allocating inputs: %s: %s" % (type(error).__name__, error))[:400]
            for row in rows:
                results["rows"].append({"id": row["id"], "status": "error", "note": note})
        finally:
            side.release()
        results["cudnn"]["libraries"] = cudnn_libraries()
        if out_path:
            write_results(results, out_path)

    side.set_tf32(False)
    results["overhead"] = [side.overhead(item) for item in job.get("overhead", [])]
    results.update(side.info())
    results["finished"] = True
    write_results(results, out_path)
    return 0


SERVE_OPS = ("hello", "group", "release", "overhead", "quit")


def serve(requests, replies, column="tuned"):
    """The worker: one JSON request per line in, one JSON reply per line out (stdout is the channel;
    everything else goes to stderr). Requests:

      {"op": "hello"}                                  -> {"ok": true, "info": {...}, "errors": [...]}
      {"op": "group", "rows": [...], "warmup": w, "reps": r}
                                                       -> {"ok": true, "rows": [entry, ...]}
      {"op": "release"}                                -> {"ok": true}
      {"op": "overhead", "items": [...]}               -> {"ok": true, "overhead": [...], "info": {...}}
      {"op": "quit"}                                   -> {"ok": true}, then exit

    Rows are one group's rows in the job's spelling (see load_job). The process is the `column`
    ("default" or "tuned", see configure_column) for its whole life. A bad request gets
    {"ok": false, "error": "Expected ... but received ..."}; the worker keeps serving.
    """
    def reply(message):
        replies.write(json.dumps(message) + "\n")
        replies.flush()

    side = None
    for line in requests:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            _expect(isinstance(request, dict) and request.get("op") in SERVE_OPS,
                    "a request object with op one of %s" % ", ".join(SERVE_OPS), request)
            op = request["op"]
            if op == "quit":
                reply({"ok": True})
                return 0
            if side is None:
                side = TorchSide(column)
            if op == "hello":
                answer = {"ok": side.available, "info": side.info(), "errors": side.errors}
                if not side.available:
                    answer["error"] = "; ".join(side.errors)
                reply(answer)
            elif not side.available:
                reply({"ok": False, "error": "; ".join(side.errors)})
            elif op == "group":
                rows = request.get("rows")
                _expect(isinstance(rows, list) and len(rows) > 0, "a non-empty list for rows", rows)
                rows = [_row(row, "rows[%d]" % i) for i, row in enumerate(rows)]
                keys = {(r["case"]["name"], r["dtype"], r["layout"], r["sets"]) for r in rows}
                _expect(len(keys) == 1, "rows of one group (one case, dtype, layout and sets)", sorted(keys))
                for key in ("warmup", "reps"):
                    _expect(isinstance(request.get(key), int) and request[key] >= 0,
                            "a non-negative integer for " + key, request.get(key))
                reply({"ok": True, "rows": side.time_group(rows, request["warmup"], request["reps"])})
            elif op == "release":
                side.release()
                reply({"ok": True})
            elif op == "overhead":
                items = request.get("items")
                _expect(isinstance(items, list), "a list for items", items)
                for i, item in enumerate(items):
                    _overhead_item(item, "items[%d]" % i)
                reply({"ok": True, "overhead": [side.overhead(item) for item in items], "info": side.info()})
        except JobError as error:
            reply({"ok": False, "error": str(error)})
        except Exception as error:  # noqa: BLE001 - report and keep serving
            reply({"ok": False, "error": ("%s: %s" % (type(error).__name__, error))[:400]})
    return 0



def with_torch(prepare, work, column="tuned"):
    """The diagnostics' main: prepare() checks the arguments (a JobError is written to stderr: exit
    2), then work(side, prepared) runs with PyTorch set up as the benchmark sets up `column` (exit 1
    when PyTorch cannot run, saying why). Returns the exit status."""
    try:
        prepared = prepare()
    except JobError as error:
        sys.stderr.write("%s\n" % error)
        return 2
    side = TorchSide(column)
    if not side.available:
        sys.stderr.write("; ".join(side.errors) + "\n")
        return 1
    return work(side, prepared)

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("job", nargs="?", help="job JSON written by bench --vs-torch")
    parser.add_argument("--serve", action="store_true",
                        help="answer JSON requests on stdin, one per line (bench --rounds; see serve())")
    parser.add_argument("--column", choices=COLUMNS, default="tuned",
                        help="with --serve: default (cudnn.benchmark off) or tuned (benchmark on, limit 0)")
    parser.add_argument("--out", help="write results here instead of stdout")
    parser.add_argument("--check-job", action="store_true", help="validate the job and print a summary")
    args = parser.parse_args(argv)
    if args.serve:
        # Nothing but replies may reach the channel: it gets its own copy of fd 1, and fd 1 itself
        # (where C libraries print) and sys.stdout go to stderr.
        sys.stdout.flush()
        channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        return serve(sys.stdin, channel, args.column)
    if not args.job:
        parser.error("a job file is needed unless --serve is given")
    try:
        job = load_job(args.job)
    except (OSError, ValueError) as error:
        log("torch_conv3d_bench: bad job %s: %s" % (args.job, error))
        return 2
    if args.check_job:
        groups = group_rows(job["rows"])
        print(json.dumps({"rows": len(job["rows"]), "groups": len(groups), "overhead": len(job["overhead"]),
                          "ids": [row["id"] for row in job["rows"]],
                          "outputDims": {row["case"]["name"]: output_dims(row["case"]) for row in job["rows"]}}))
        return 0
    return run(job, args.out)


if __name__ == "__main__":
    sys.exit(main())
