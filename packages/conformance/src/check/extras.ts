/**
 * The checks beyond "each pass computes the right function": the adjoint identity on GPU
 * results, bit-reproducibility, beta = 1 accumulation, typed errors that write nothing, two
 * streams at once, and no leaks over many plan lifetimes.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  BufferTooSmallError,
  InvalidProblemError,
  UnsupportedError,
  WorkspaceTooSmallError,
} from '@baracuda/types';
import { type ConvProblem, dot, type Layout, relL2 } from '../reference/index.js';
import type { SuiteCase } from '../suite/index.js';
import {
  executePass,
  formatError,
  type PassBuffers,
  passBuffers,
  passShapes,
  referencePass,
  toProblem,
} from './conv.js';
import {
  type AlgoMode,
  type GpuApi,
  type GpuBuffer,
  type GpuPlan,
  type GpuStream,
  PASSES,
  type Pass,
} from './gpu-api.js';
import {
  asF64,
  countNaN,
  decode,
  poison,
  Rng,
  randomTensor,
  type Seed,
  stillPoisoned,
  storageArray,
} from './host.js';
import { type CheckRow, errorSummary, statusOfError } from './rows.js';
import { ADJOINT_TOLERANCE, type CheckDtype, elementBytes, toleranceFor } from './tolerances.js';

/**
 * The case the extra checks run on: odd channel counts, and padding, stride and dilation that
 * differ per axis, small enough that every extra check takes milliseconds.
 */
export const EXTRAS_CASE: SuiteCase = {
  name: 'extras-odd',
  n: 2,
  cIn: 5,
  cOut: 6,
  in: [5, 6, 7],
  k: [3, 2, 3],
  pad: [1, 0, 1],
  stride: [1, 2, 1],
  dil: [1, 1, 2],
  groups: 1,
};

/** A second, different case for the two-stream check. */
export const EXTRAS_CASE_GROUPED: SuiteCase = {
  name: 'extras-grouped',
  n: 1,
  cIn: 8,
  cOut: 12,
  in: [6, 5, 4],
  k: [3, 3, 3],
  pad: [1, 1, 1],
  stride: [1, 1, 1],
  dil: [1, 1, 1],
  groups: 4,
};

/** Options of {@link runExtras}. */
export interface ExtrasOptions {
  readonly seed: Seed;
  /** Plan create/dispose cycles of the leak check. Defaults to `10000`. */
  readonly leakCycles?: number;
  /** Run a forward pass every this many cycles of the leak check. Defaults to `100`. */
  readonly leakRunEvery?: number;
  /** Called with each row as soon as it is known. Defaults to none. */
  readonly onRow?: (row: CheckRow) => void;
}

const MiB = 1024 * 1024;
/** Device memory the leak check tolerates losing: allocator granularity and cuDNN caches. */
export const LEAK_DEVICE_SLACK_BYTES = 32 * MiB;
/** Host RSS growth the leak check tolerates over all cycles. */
export const LEAK_RSS_SLACK_BYTES = 128 * MiB;
/** Host `external` (native objects reported to V8) growth the leak check tolerates. */
export const LEAK_EXTERNAL_SLACK_BYTES = 16 * MiB;

function row(partial: Partial<CheckRow> & Pick<CheckRow, 'check' | 'status' | 'detail'>): CheckRow {
  return {
    case: EXTRAS_CASE.name,
    dtype: '-',
    layout: '-',
    pass: '-',
    mode: '-',
    algorithm: '-',
    error: null,
    tolerance: null,
    unwritten: null,
    sampledPoints: null,
    ...partial,
  };
}

function failedRow(check: string, error: unknown, extra: Partial<CheckRow> = {}): CheckRow {
  const { status, detail } = statusOfError(error);
  return row({ check, status, detail, ...extra });
}

async function withPlan<T>(
  api: GpuApi,
  stream: GpuStream,
  problem: ConvProblem,
  dtype: CheckDtype,
  algorithm: AlgoMode,
  deterministic: boolean,
  body: (plan: GpuPlan) => Promise<T>,
): Promise<T> {
  const plan = await api.selectPlan(stream, { problem, dtype, algorithm, deterministic });
  try {
    return await body(plan);
  } finally {
    plan.dispose();
  }
}

/** ⟨fw(x,w),dy⟩ = ⟨x,bwData(dy,w)⟩ = ⟨w,bwFilter(x,dy)⟩ on f64 GPU results. */
export async function checkAdjoint(
  api: GpuApi,
  stream: GpuStream,
  layout: Layout,
  seed: Seed,
): Promise<CheckRow> {
  const problem = toProblem(EXTRAS_CASE, layout);
  const base = { check: 'adjoint', dtype: 'f64', layout, mode: 'heuristic' } as const;
  try {
    return await withPlan(api, stream, problem, 'f64', 'heuristic', false, async (plan) => {
      const rng = new Rng(seed, `adjoint|${layout}`);
      const shapes = passShapes(problem, 'fw');
      const x = randomTensor('f64', shapes.a, rng);
      const w = randomTensor('f64', shapes.b, rng);
      const dy = randomTensor('f64', shapes.out, rng);
      const y = (await executePass(api, stream, plan, problem, 'f64', 'fw', rng, { a: x, b: w }))
        .got;
      const dx = (
        await executePass(api, stream, plan, problem, 'f64', 'bwData', rng, { a: dy, b: w })
      ).got;
      const dw = (
        await executePass(api, stream, plan, problem, 'f64', 'bwFilter', rng, { a: x, b: dy })
      ).got;
      const ip = [
        dot(y, asF64(dy.values)),
        dot(asF64(x.values), dx),
        dot(asF64(w.values), dw),
      ] as const;
      const scale = Math.max(Math.abs(ip[0]), Math.abs(ip[1]), Math.abs(ip[2]), 1e-300);
      const error =
        Math.max(Math.abs(ip[0] - ip[1]), Math.abs(ip[0] - ip[2]), Math.abs(ip[1] - ip[2])) / scale;
      const ok = error <= ADJOINT_TOLERANCE && countNaN(y) + countNaN(dx) + countNaN(dw) === 0;
      return row({
        ...base,
        algorithm: `${plan.algorithmName('fw')} / ${plan.algorithmName('bwData')} / ${plan.algorithmName('bwFilter')}`,
        error,
        tolerance: ADJOINT_TOLERANCE,
        status: ok ? 'pass' : 'fail',
        detail: `<fw,dy>=${ip[0].toPrecision(17)} <x,bwData>=${ip[1].toPrecision(17)} <w,bwFilter>=${ip[2].toPrecision(17)}`,
      });
    });
  } catch (error) {
    return failedRow('adjoint', error, base);
  }
}

function sameBits(first: Float64Array, other: Float64Array): boolean {
  if (first.length !== other.length) return false;
  const a = new BigUint64Array(first.buffer, first.byteOffset, first.length);
  const b = new BigUint64Array(other.buffer, other.byteOffset, other.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * 'pinned' plans, and heuristic plans with `deterministic: true`, give bit-identical outputs
 * when the same inputs run again (three runs, fresh output buffers each time).
 */
export async function checkReproducible(
  api: GpuApi,
  stream: GpuStream,
  mode: 'pinned' | 'deterministic',
  dtype: CheckDtype,
  pass: Pass,
  seed: Seed,
): Promise<CheckRow> {
  const problem = toProblem(EXTRAS_CASE, 'ncdhw');
  const base = { check: 'bit-identical', dtype, layout: 'ncdhw', pass, mode } as const;
  const algorithm: AlgoMode = mode === 'pinned' ? 'pinned' : 'heuristic';
  try {
    return await withPlan(
      api,
      stream,
      problem,
      dtype,
      algorithm,
      mode === 'deterministic',
      async (plan) => {
        const rng = new Rng(seed, `bit-identical|${mode}|${dtype}|${pass}`);
        const shapes = passShapes(problem, pass);
        const inputs = {
          a: randomTensor(dtype, shapes.a, rng),
          b: randomTensor(dtype, shapes.b, rng),
        };
        const runs: Float64Array[] = [];
        for (let i = 0; i < 3; i++) {
          runs.push((await executePass(api, stream, plan, problem, dtype, pass, rng, inputs)).got);
        }
        const first = runs[0]!;
        const identical = runs.every((r) => sameBits(first, r));
        const nan = countNaN(first);
        const ok = identical && nan === 0;
        return row({
          ...base,
          algorithm: plan.algorithmName(pass),
          unwritten: nan,
          status: ok ? 'pass' : 'fail',
          detail: identical
            ? nan === 0
              ? '3 runs bit-identical'
              : `${nan} output elements unwritten or NaN`
            : `runs differ (max |Δ| ${formatError(maxAbsDiff(runs))})`,
        });
      },
    );
  } catch (error) {
    return failedRow('bit-identical', error, base);
  }
}

function maxAbsDiff(runs: Float64Array[]): number {
  let worst = 0;
  const first = runs[0]!;
  for (const other of runs.slice(1)) {
    for (let i = 0; i < first.length; i++) worst = Math.max(worst, Math.abs(first[i]! - other[i]!));
  }
  return worst;
}

/** beta = 1 accumulates: out = conv(a, b) + out0. */
export async function checkAccumulate(
  api: GpuApi,
  stream: GpuStream,
  dtype: CheckDtype,
  pass: Pass,
  seed: Seed,
): Promise<CheckRow> {
  const problem = toProblem(EXTRAS_CASE, 'ncdhw');
  const tolerance = toleranceFor(dtype);
  const base = {
    check: 'beta=1',
    dtype,
    layout: 'ncdhw',
    pass,
    mode: 'heuristic',
    tolerance,
  } as const;
  try {
    return await withPlan(api, stream, problem, dtype, 'heuristic', false, async (plan) => {
      const rng = new Rng(seed, `beta|${dtype}|${pass}`);
      const shapes = passShapes(problem, pass);
      const a = randomTensor(dtype, shapes.a, rng);
      const b = randomTensor(dtype, shapes.b, rng);
      const out0 = randomTensor(dtype, shapes.out, rng);
      const operands = passBuffers(api, problem, dtype, pass, a, b, out0);
      try {
        // No workspace: the engine chosen for beta = 1 may need more than the beta = 0 query
        // reports, and the plan then allocates its own.
        const { a: aBuffer, b: bBuffer, out: outBuffer } = operands;
        plan.run(pass, { a: aBuffer, b: bBuffer, out: outBuffer, alpha: 1, beta: 1, stream });
        await stream.synchronize();
        const storage = storageArray(dtype, shapes.out);
        outBuffer.downloadSync(storage);
        const got = decode(dtype, storage);
        const expected = referencePass(problem, pass, a.values, b.values);
        for (let i = 0; i < expected.length; i++) expected[i]! += out0.values[i]!;
        const error = relL2(got, expected);
        const ok = error <= tolerance;
        return row({
          ...base,
          algorithm: plan.algorithmName(pass),
          error,
          unwritten: countNaN(got),
          status: ok ? 'pass' : 'fail',
          detail: ok
            ? 'out = conv + out0'
            : `relative L2 error ${formatError(error)} exceeds ${formatError(tolerance)}`,
        });
      } finally {
        operands.dispose();
      }
    });
  } catch (error) {
    return failedRow('beta=1', error, base);
  }
}

/** A pass's operands with fresh random inputs and a poisoned output. */
function preparePass(
  api: GpuApi,
  problem: ConvProblem,
  dtype: CheckDtype,
  pass: Pass,
  rng: Rng,
): PassBuffers {
  const shapes = passShapes(problem, pass);
  const a = randomTensor(dtype, shapes.a, rng);
  const b = randomTensor(dtype, shapes.b, rng);
  return passBuffers(api, problem, dtype, pass, a, b);
}

function poisonIntact(buffer: GpuBuffer, byteLength: number): boolean {
  const bytes = new Uint8Array(byteLength);
  buffer.downloadSync(bytes);
  return stillPoisoned(bytes);
}

/**
 * A workspace one byte short raises WorkspaceTooSmallError {needed, got} and writes nothing.
 * Tries plans until one pass needs a workspace at all.
 */
export async function checkWorkspaceTooSmall(
  api: GpuApi,
  stream: GpuStream,
  seed: Seed,
): Promise<CheckRow> {
  const candidates: Array<[CheckDtype, Layout, AlgoMode]> = [
    ['f32', 'ncdhw', 'heuristic'],
    ['f16', 'ndhwc', 'heuristic'],
    ['f32', 'ncdhw', 'pinned'],
    ['f16', 'ncdhw', 'pinned'],
    ['bf16', 'ndhwc', 'heuristic'],
  ];
  const tried: string[] = [];
  for (const [dtype, layout, algorithm] of candidates) {
    for (const suiteCase of [EXTRAS_CASE, EXTRAS_CASE_GROUPED]) {
      const problem = toProblem(suiteCase, layout);
      let plan: GpuPlan;
      try {
        plan = await api.selectPlan(stream, { problem, dtype, algorithm });
      } catch (error) {
        if (UnsupportedError.isInstance(error)) continue;
        return failedRow('workspace too small', error, {
          case: suiteCase.name,
          dtype,
          layout,
          mode: algorithm,
        });
      }
      try {
        for (const pass of PASSES) {
          const needed = plan.workspaceSize(pass);
          tried.push(`${suiteCase.name} ${dtype} ${layout} ${algorithm} ${pass}: ${needed} B`);
          if (needed === 0) continue;
          const base = {
            check: 'workspace too small',
            case: suiteCase.name,
            dtype,
            layout,
            pass,
            mode: algorithm,
            algorithm: plan.algorithmName(pass),
          } as const;
          const prepared = preparePass(api, problem, dtype, pass, new Rng(seed, 'workspace'));
          const workspace = api.alloc(needed);
          try {
            let thrown: unknown;
            try {
              plan.run(pass, {
                a: prepared.a,
                b: prepared.b,
                out: prepared.out,
                workspace: workspace.slice(0, needed - 1),
                stream,
              });
            } catch (error) {
              thrown = error;
            }
            await stream.synchronize();
            const intact = poisonIntact(prepared.out, prepared.outBytes);
            const typed =
              WorkspaceTooSmallError.isInstance(thrown) &&
              thrown.needed === needed &&
              thrown.got === needed - 1;
            return row({
              ...base,
              status: typed && intact ? 'pass' : 'fail',
              detail: `${thrown === undefined ? 'nothing thrown' : errorSummary(thrown)}${typed ? '' : ` (expected WorkspaceTooSmallError needed=${needed} got=${needed - 1})`}; output ${intact ? 'untouched' : 'WRITTEN'}`,
            });
          } finally {
            workspace.dispose();
            prepared.dispose();
          }
        }
      } catch (error) {
        return failedRow('workspace too small', error, {
          case: suiteCase.name,
          dtype,
          layout,
          mode: algorithm,
        });
      } finally {
        plan.dispose();
      }
    }
  }
  return row({
    check: 'workspace too small',
    status: 'unsupported',
    detail: `unsupported: no tried plan needs a workspace (${tried.length} passes tried)`,
  });
}

/** An output one element short raises BufferTooSmallError {needed, got} and writes nothing. */
export async function checkBufferTooSmall(
  api: GpuApi,
  stream: GpuStream,
  pass: Pass,
  seed: Seed,
): Promise<CheckRow> {
  const dtype: CheckDtype = 'f32';
  const problem = toProblem(EXTRAS_CASE, 'ncdhw');
  const base = {
    check: 'buffer too small',
    dtype,
    layout: 'ncdhw',
    pass,
    mode: 'heuristic',
  } as const;
  try {
    return await withPlan(api, stream, problem, dtype, 'heuristic', false, async (plan) => {
      const prepared = preparePass(api, problem, dtype, pass, new Rng(seed, `buffer|${pass}`));
      const needed = plan.workspaceSize(pass);
      const workspace = needed > 0 ? api.alloc(needed) : undefined;
      try {
        const short = prepared.outBytes - elementBytes(dtype);
        let thrown: unknown;
        try {
          plan.run(pass, {
            a: prepared.a,
            b: prepared.b,
            out: prepared.out.slice(0, short),
            workspace,
            stream,
          });
        } catch (error) {
          thrown = error;
        }
        await stream.synchronize();
        const intact = poisonIntact(prepared.out, prepared.outBytes);
        const typed =
          BufferTooSmallError.isInstance(thrown) &&
          thrown.needed === prepared.outBytes &&
          thrown.got === short;
        return row({
          ...base,
          algorithm: plan.algorithmName(pass),
          status: typed && intact ? 'pass' : 'fail',
          detail: `${thrown === undefined ? 'nothing thrown' : errorSummary(thrown)}${typed ? '' : ` (expected BufferTooSmallError needed=${prepared.outBytes} got=${short})`}; output ${intact ? 'untouched' : 'WRITTEN'}`,
        });
      } finally {
        workspace?.dispose();
        prepared.dispose();
      }
    });
  } catch (error) {
    return failedRow('buffer too small', error, base);
  }
}

/** Problems that must be refused with InvalidProblemError, and why. */
export const INVALID_PROBLEMS: ReadonlyArray<{
  readonly why: string;
  readonly suiteCase: SuiteCase;
}> = [
  {
    why: 'groups 2 does not divide cIn 5',
    suiteCase: { ...EXTRAS_CASE, name: 'groups-not-dividing', groups: 2, cOut: 6 },
  },
  {
    why: 'x holds 2^32 elements, past int32',
    suiteCase: {
      ...EXTRAS_CASE,
      name: 'int32-overflow',
      n: 1,
      cIn: 1,
      cOut: 1,
      in: [1024, 2048, 2048],
      k: [1, 1, 1],
      pad: [0, 0, 0],
      stride: [1, 1, 1],
      dil: [1, 1, 1],
    },
  },
];

/**
 * Invalid problems are refused with InvalidProblemError before anything runs: a poisoned
 * sentinel buffer allocated beforehand is still poisoned afterwards.
 */
export async function checkInvalidProblem(api: GpuApi, stream: GpuStream): Promise<CheckRow[]> {
  const rows: CheckRow[] = [];
  for (const { why, suiteCase } of INVALID_PROBLEMS) {
    const base = {
      check: 'invalid problem',
      case: suiteCase.name,
      dtype: 'f32',
      layout: 'ncdhw',
      mode: 'heuristic',
    } as const;
    const sentinel = api.alloc(4096);
    try {
      sentinel.fillSync32(0xffffffff);
      let thrown: unknown;
      let plan: GpuPlan | undefined;
      try {
        plan = await api.selectPlan(stream, {
          problem: toProblem(suiteCase, 'ncdhw'),
          dtype: 'f32',
          algorithm: 'heuristic',
        });
      } catch (error) {
        thrown = error;
      }
      plan?.dispose();
      await stream.synchronize();
      const intact = poisonIntact(sentinel, 4096);
      const typed = InvalidProblemError.isInstance(thrown);
      rows.push(
        row({
          ...base,
          status: typed && intact ? 'pass' : 'fail',
          detail: `${why}: ${thrown === undefined ? 'nothing thrown' : errorSummary(thrown)}${typed ? '' : ' (expected InvalidProblemError)'}${intact ? '' : '; memory WRITTEN'}`,
        }),
      );
    } catch (error) {
      rows.push(failedRow('invalid problem', error, base));
    } finally {
      sentinel.dispose();
    }
  }
  return rows;
}

/** Two plans enqueued on two streams before either is waited for; both results checked. */
export async function checkTwoStreams(api: GpuApi, seed: Seed): Promise<CheckRow> {
  const base = {
    check: 'two streams',
    case: `${EXTRAS_CASE.name} + ${EXTRAS_CASE_GROUPED.name}`,
    dtype: 'f32',
    layout: 'ncdhw',
    pass: 'fw',
    mode: 'heuristic',
    tolerance: toleranceFor('f32'),
  } as const;
  const streams = [api.createStream(), api.createStream()];
  const plans: GpuPlan[] = [];
  const cleanups: Array<() => void> = [];
  try {
    const problems = [toProblem(EXTRAS_CASE, 'ncdhw'), toProblem(EXTRAS_CASE_GROUPED, 'ncdhw')];
    const jobs = [];
    for (let s = 0; s < 2; s++) {
      const stream = streams[s]!;
      const problem = problems[s]!;
      const plan = await api.selectPlan(stream, { problem, dtype: 'f32', algorithm: 'heuristic' });
      plans.push(plan);
      const rng = new Rng(seed, `two-streams|${s}`);
      const shapes = passShapes(problem, 'fw');
      const a = randomTensor('f32', shapes.a, rng);
      const b = randomTensor('f32', shapes.b, rng);
      const aBuffer = api.alloc(shapes.a * 4);
      const bBuffer = api.alloc(shapes.b * 4);
      const outBuffer = api.alloc(shapes.out * 4);
      const needed = plan.workspaceSize('fw');
      const workspace = needed > 0 ? api.alloc(needed) : undefined;
      cleanups.push(() => {
        for (const buffer of [aBuffer, bBuffer, outBuffer, workspace]) buffer?.dispose();
      });
      aBuffer.uploadSync(a.storage);
      bBuffer.uploadSync(b.storage);
      poison(outBuffer, 'f32');
      jobs.push({
        stream,
        plan,
        problem,
        a,
        b,
        aBuffer,
        bBuffer,
        outBuffer,
        workspace,
        count: shapes.out,
      });
    }
    // Enqueue both (several times, so the work overlaps) before waiting on either.
    for (let repeat = 0; repeat < 4; repeat++) {
      for (const job of jobs) {
        job.plan.run('fw', {
          a: job.aBuffer,
          b: job.bBuffer,
          out: job.outBuffer,
          workspace: job.workspace,
          stream: job.stream,
        });
      }
    }
    await Promise.all(streams.map((stream) => stream.synchronize()));
    let worst = 0;
    let unwritten = 0;
    for (const job of jobs) {
      const storage = new Float32Array(job.count);
      job.outBuffer.downloadSync(storage);
      const got = Float64Array.from(storage);
      unwritten += countNaN(got);
      worst = Math.max(
        worst,
        relL2(got, referencePass(job.problem, 'fw', job.a.values, job.b.values)),
      );
    }
    const ok = unwritten === 0 && worst <= base.tolerance;
    return row({
      ...base,
      algorithm: plans.map((plan) => plan.algorithmName('fw')).join(' | '),
      error: worst,
      unwritten,
      status: ok ? 'pass' : 'fail',
      detail: ok
        ? 'both streams correct'
        : `worst relative L2 ${formatError(worst)}, ${unwritten} unwritten`,
    });
  } catch (error) {
    return failedRow('two streams', error, base);
  } finally {
    for (const cleanup of cleanups) cleanup();
    for (const plan of plans) plan.dispose();
    for (const stream of streams) stream.dispose();
  }
}

let collectGarbage: (() => void) | undefined;
/** @internal `global.gc`, exposed on demand so the CLI needs no node flag. */
export function gc(): void {
  if (!collectGarbage) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) collectGarbage = exposed;
    else {
      try {
        setFlagsFromString('--expose-gc');
        collectGarbage = runInNewContext('gc') as () => void;
      } catch {
        collectGarbage = () => {};
      }
    }
  }
  collectGarbage();
}

/**
 * `cycles` plan create/dispose cycles (a forward run every `runEvery`-th) leak neither device
 * memory (free memory back within LEAK_DEVICE_SLACK_BYTES) nor host memory (RSS and external
 * growth bounded). Returns a device row and a host row.
 */
export async function checkLeaks(
  api: GpuApi,
  stream: GpuStream,
  seed: Seed,
  cycles = 10_000,
  runEvery = 100,
): Promise<CheckRow[]> {
  const problem = toProblem(EXTRAS_CASE, 'ncdhw');
  let mode: AlgoMode = 'pinned';
  const base = { case: EXTRAS_CASE.name, dtype: 'f32', layout: 'ncdhw' } as const;
  try {
    try {
      (await api.selectPlan(stream, { problem, dtype: 'f32', algorithm: mode })).dispose();
    } catch (error) {
      if (!UnsupportedError.isInstance(error)) throw error;
      mode = 'heuristic';
    }
    const rng = new Rng(seed, 'leaks');
    const cycle = async (i: number) => {
      const plan = await api.selectPlan(stream, { problem, dtype: 'f32', algorithm: mode });
      try {
        if (i % runEvery === 0) await executePass(api, stream, plan, problem, 'f32', 'fw', rng);
      } finally {
        plan.dispose();
      }
    };
    // Warm-up: cuDNN and the allocator keep caches after the first plans; do not count them.
    const warmup = Math.min(200, Math.max(1, Math.floor(cycles / 10)));
    for (let i = 0; i < warmup; i++) await cycle(i);
    await stream.synchronize();
    gc();
    const before = { free: api.memoryInfo().free, ...process.memoryUsage() };
    const started = performance.now();
    for (let i = 0; i < cycles; i++) await cycle(i);
    await stream.synchronize();
    gc();
    const seconds = (performance.now() - started) / 1000;
    const after = { free: api.memoryInfo().free, ...process.memoryUsage() };
    const deviceLost = before.free - after.free;
    const rssGrowth = after.rss - before.rss;
    const externalGrowth = after.external - before.external;
    const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
    const rate = `${cycles} cycles in ${seconds.toFixed(1)} s (${mode})`;
    return [
      row({
        ...base,
        check: 'leak: device',
        mode,
        error: deviceLost,
        tolerance: LEAK_DEVICE_SLACK_BYTES,
        status: deviceLost <= LEAK_DEVICE_SLACK_BYTES ? 'pass' : 'fail',
        detail: `device free memory changed by ${mib(-deviceLost)}; ${rate}`,
      }),
      row({
        ...base,
        check: 'leak: host',
        mode,
        error: rssGrowth,
        tolerance: LEAK_RSS_SLACK_BYTES,
        status:
          rssGrowth <= LEAK_RSS_SLACK_BYTES && externalGrowth <= LEAK_EXTERNAL_SLACK_BYTES
            ? 'pass'
            : 'fail',
        detail: `rss grew ${mib(rssGrowth)} (limit ${mib(LEAK_RSS_SLACK_BYTES)}), external grew ${mib(externalGrowth)} (limit ${mib(LEAK_EXTERNAL_SLACK_BYTES)}); ${rate}`,
      }),
    ];
  } catch (error) {
    return [
      failedRow('leak: device', error, { ...base, mode }),
      failedRow('leak: host', error, { ...base, mode }),
    ];
  }
}

/** Every extra check, in table order. */
export async function runExtras(
  api: GpuApi,
  stream: GpuStream,
  options: ExtrasOptions,
): Promise<CheckRow[]> {
  const rows: CheckRow[] = [];
  const emit = (r: CheckRow) => {
    rows.push(r);
    options.onRow?.(r);
  };
  const { seed } = options;
  for (const layout of ['ncdhw', 'ndhwc'] as const)
    emit(await checkAdjoint(api, stream, layout, seed));
  for (const mode of ['pinned', 'deterministic'] as const) {
    for (const dtype of ['f32', 'f16'] as const) {
      for (const pass of PASSES)
        emit(await checkReproducible(api, stream, mode, dtype, pass, seed));
    }
  }
  for (const dtype of ['f32', 'f64'] as const) {
    for (const pass of PASSES) emit(await checkAccumulate(api, stream, dtype, pass, seed));
  }
  emit(await checkWorkspaceTooSmall(api, stream, seed));
  for (const pass of PASSES) emit(await checkBufferTooSmall(api, stream, pass, seed));
  for (const r of await checkInvalidProblem(api, stream)) emit(r);
  emit(await checkTwoStreams(api, seed));
  for (const r of await checkLeaks(
    api,
    stream,
    seed,
    options.leakCycles ?? 10_000,
    options.leakRunEvery ?? 100,
  )) {
    emit(r);
  }
  return rows;
}
