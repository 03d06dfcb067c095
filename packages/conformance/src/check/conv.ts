/** One plan, fresh data, poisoned outputs, a run per pass, compared with the f64 reference. */
import {
  type ConvProblem,
  conv3dBackwardData,
  conv3dBackwardDataAt,
  conv3dBackwardFilter,
  conv3dBackwardFilterAt,
  conv3dForward,
  conv3dForwardAt,
  elementCounts,
  type Layout,
  macs,
  pointsWithinBudget,
  relL2,
} from '../reference/index.js';
import { LARGE_SAMPLE_POINTS, type SuiteCase, toProblem } from '../suite/index.js';

export { toProblem };

import type { AlgoMode, GpuApi, GpuBuffer, GpuPlan, GpuStream, Pass } from './gpu-api.js';
import {
  asF64,
  countNaNStored,
  decode,
  decodeAt,
  type HostTensor,
  poison,
  Rng,
  randomTensor,
  type Seed,
  type StorageArray,
  storageArray,
} from './host.js';
import { type CheckRow, errorSummary, statusOfError } from './rows.js';
import { type CheckDtype, elementBytes, toleranceFor } from './tolerances.js';

/**
 * Largest output (or input) element count the full reference handles. Past it, or past the
 * MAC budget, the row compares LARGE_SAMPLE_POINTS random output points with the *At reference.
 */
export const FULL_REFERENCE_MAX_ELEMENTS = 1 << 24;

/** Element counts of a pass's two inputs and its output. */
export function passShapes(
  problem: ConvProblem,
  pass: Pass,
): { a: number; b: number; out: number } {
  const counts = elementCounts(problem);
  if (pass === 'fw') return { a: counts.x, b: counts.w, out: counts.y };
  if (pass === 'bwData') return { a: counts.y, b: counts.w, out: counts.x };
  return { a: counts.x, b: counts.y, out: counts.w };
}

/** The CPU work (MACs) one sampled comparison may cost: about 10 s of the f64 reference. */
export const SAMPLED_REFERENCE_MAX_MACS = 4e9;

/** Whether a problem is checked on sampled points. */
export function needsSampling(problem: ConvProblem, maxMacs: number): boolean {
  const counts = elementCounts(problem);
  return (
    macs(problem) > maxMacs || Math.max(counts.x, counts.w, counts.y) > FULL_REFERENCE_MAX_ELEMENTS
  );
}

/** Full f64 reference of a pass. */
export function referencePass(
  problem: ConvProblem,
  pass: Pass,
  a: Float64Array | Float32Array,
  b: Float64Array | Float32Array,
): Float64Array {
  const x = asF64(a);
  const y = asF64(b);
  if (pass === 'fw') return conv3dForward(problem, x, y);
  if (pass === 'bwData') return conv3dBackwardData(problem, x, y);
  return conv3dBackwardFilter(problem, x, y);
}

/** f64 reference of a pass at some output indices. */
export function referencePassAt(
  problem: ConvProblem,
  pass: Pass,
  a: Float64Array | Float32Array,
  b: Float64Array | Float32Array,
  indices: number[],
): Float64Array {
  if (pass === 'fw') return conv3dForwardAt(problem, a, b, indices);
  if (pass === 'bwData') return conv3dBackwardDataAt(problem, a, b, indices);
  return conv3dBackwardFilterAt(problem, a, b, indices);
}

/** Distinct random indices in [0, count), always with the first and the last. */
export function sampleIndices(count: number, points: number, rng: Rng): number[] {
  if (points >= count) return Array.from({ length: count }, (_, i) => i);
  const picked = new Set<number>([0, count - 1]);
  while (picked.size < points) picked.add(rng.nextBelow(count));
  return [...picked].sort((x, y) => x - y);
}

/** Everything one pass run produced, before judging. */
export interface PassResult {
  readonly got: Float64Array;
  readonly a: HostTensor;
  readonly b: HostTensor;
}

/** A pass's output as stored, before widening. */
export interface RawPassResult {
  readonly storage: StorageArray;
  readonly a: HostTensor;
  readonly b: HostTensor;
}

/** @internal executePassRaw, widened to f64. */
export async function executePass(
  api: GpuApi,
  stream: GpuStream,
  plan: GpuPlan,
  problem: ConvProblem,
  dtype: CheckDtype,
  pass: Pass,
  rng: Rng,
  inputs?: { a: HostTensor; b: HostTensor },
): Promise<PassResult> {
  const raw = await executePassRaw(api, stream, plan, problem, dtype, pass, rng, inputs);
  return { got: decode(dtype, raw.storage), a: raw.a, b: raw.b };
}

/** @internal The device operands of one pass, and how to free them. */
export interface PassBuffers {
  readonly a: GpuBuffer;
  readonly b: GpuBuffer;
  readonly out: GpuBuffer;
  readonly outBytes: number;
  dispose(): void;
}

/**
 * @internal Allocate a pass's operands, upload its inputs, and fill the output with `out0`, or
 * with poison when there is none. Frees what it allocated if a step fails.
 */
export function passBuffers(
  api: GpuApi,
  problem: ConvProblem,
  dtype: CheckDtype,
  pass: Pass,
  a: HostTensor,
  b: HostTensor,
  out0?: HostTensor,
): PassBuffers {
  const shapes = passShapes(problem, pass);
  const bytes = elementBytes(dtype);
  const buffers: GpuBuffer[] = [];
  const dispose = () => {
    for (const buffer of buffers.splice(0)) buffer.dispose();
  };
  try {
    const alloc = (count: number) => {
      const buffer = api.alloc(count * bytes);
      buffers.push(buffer);
      return buffer;
    };
    const [aBuffer, bBuffer, out] = [alloc(shapes.a), alloc(shapes.b), alloc(shapes.out)];
    aBuffer.uploadSync(a.storage);
    bBuffer.uploadSync(b.storage);
    if (out0) out.uploadSync(out0.storage);
    else poison(out, dtype);
    return { a: aBuffer, b: bBuffer, out, outBytes: shapes.out * bytes, dispose };
  } catch (error) {
    dispose();
    throw error;
  }
}

/** @internal Allocate, upload, poison, run, wait and download one pass. */
export async function executePassRaw(
  api: GpuApi,
  stream: GpuStream,
  plan: GpuPlan,
  problem: ConvProblem,
  dtype: CheckDtype,
  pass: Pass,
  rng: Rng,
  inputs?: { a: HostTensor; b: HostTensor },
): Promise<RawPassResult> {
  const shapes = passShapes(problem, pass);
  const a = inputs?.a ?? randomTensor(dtype, shapes.a, rng);
  const b = inputs?.b ?? randomTensor(dtype, shapes.b, rng);
  const operands = passBuffers(api, problem, dtype, pass, a, b);
  let workspace: GpuBuffer | undefined;
  try {
    const workspaceBytes = plan.workspaceSize(pass);
    if (workspaceBytes > 0) workspace = api.alloc(workspaceBytes);
    plan.run(pass, { a: operands.a, b: operands.b, out: operands.out, workspace, stream });
    await stream.synchronize();
    const storage = storageArray(dtype, shapes.out);
    operands.out.downloadSync(storage);
    return { storage, a, b };
  } finally {
    workspace?.dispose();
    operands.dispose();
  }
}

/**
 * The x, w and dy of one (case, dtype, layout), drawn on first use and shared by the three
 * passes and the three algorithm modes: fresh every `check` run, but drawn once, which matters
 * for the 2^28+ element cases.
 */
export class InputSet {
  private readonly drawn = new Map<'x' | 'w' | 'dy', HostTensor>();
  constructor(
    private readonly problem: ConvProblem,
    private readonly dtype: CheckDtype,
    private readonly seed: Seed,
    private readonly label: string,
  ) {}

  get(role: 'x' | 'w' | 'dy'): HostTensor {
    let tensor = this.drawn.get(role);
    if (!tensor) {
      const counts = elementCounts(this.problem);
      const count = role === 'x' ? counts.x : role === 'w' ? counts.w : counts.y;
      tensor = randomTensor(this.dtype, count, new Rng(this.seed, `${this.label}|${role}`));
      this.drawn.set(role, tensor);
    }
    return tensor;
  }

  /** The two inputs of a pass. */
  forPass(pass: Pass): { a: HostTensor; b: HostTensor } {
    if (pass === 'fw') return { a: this.get('x'), b: this.get('w') };
    if (pass === 'bwData') return { a: this.get('dy'), b: this.get('w') };
    return { a: this.get('x'), b: this.get('dy') };
  }
}

/** What a conv row needs to know. */
export interface ConvRowSpec {
  readonly caseName: string;
  readonly suiteCase: SuiteCase;
  readonly dtype: CheckDtype;
  readonly layout: Layout;
  readonly algorithm: AlgoMode;
  readonly passes: readonly Pass[];
  readonly maxMacs: number;
  readonly seed: Seed;
  /** Points compared when sampling. Defaults to `LARGE_SAMPLE_POINTS`. */
  readonly samplePoints?: number;
  /** Inputs shared with other rows of the same case, dtype and layout. Defaults to fresh ones. */
  readonly inputs?: InputSet;
}

/** Select one plan and check each requested pass with it: one row per pass. */
export async function checkConv(
  api: GpuApi,
  stream: GpuStream,
  spec: ConvRowSpec,
): Promise<CheckRow[]> {
  const problem = toProblem(spec.suiteCase, spec.layout);
  const tolerance = toleranceFor(spec.dtype);
  const base = {
    check: 'conv',
    case: spec.caseName,
    dtype: spec.dtype,
    layout: spec.layout,
    mode: spec.algorithm,
    tolerance,
  } as const;
  const rows: CheckRow[] = [];
  const inputs =
    spec.inputs ??
    new InputSet(problem, spec.dtype, spec.seed, `${spec.caseName}|${spec.dtype}|${spec.layout}`);
  let plan: GpuPlan;
  try {
    plan = await api.selectPlan(stream, { problem, dtype: spec.dtype, algorithm: spec.algorithm });
  } catch (error) {
    const { status, detail } = statusOfError(error);
    for (const pass of spec.passes) {
      rows.push({
        ...base,
        pass,
        algorithm: '-',
        error: null,
        unwritten: null,
        sampledPoints: null,
        status,
        detail: status === 'fail' ? `select failed: ${detail}` : detail,
      });
    }
    return rows;
  }
  try {
    const sampled = needsSampling(problem, spec.maxMacs);
    for (const pass of spec.passes) {
      let algorithm = '-';
      try {
        algorithm = plan.algorithmName(pass);
      } catch (error) {
        algorithm = `? (${errorSummary(error)})`;
      }
      const rng = new Rng(
        spec.seed,
        `${spec.caseName}|${spec.dtype}|${spec.layout}|${pass}|${spec.algorithm}`,
      );
      try {
        const { storage, a, b } = await executePassRaw(
          api,
          stream,
          plan,
          problem,
          spec.dtype,
          pass,
          rng,
          inputs.forPass(pass),
        );
        const unwritten = countNaNStored(spec.dtype, storage);
        const outputCount = storage.length;
        let error: number;
        let sampledPoints: number | null = null;
        if (sampled) {
          // Each sampled point costs macsPerPoint MACs on the CPU: a backward-filter point of the
          // PyTorch-163539 reproducer is 1.1e8 MACs, so the budget, not LARGE_SAMPLE_POINTS, limits it.
          const points = pointsWithinBudget(
            problem,
            pass,
            SAMPLED_REFERENCE_MAX_MACS,
            spec.samplePoints ?? LARGE_SAMPLE_POINTS,
          );
          const indices = sampleIndices(outputCount, points, rng);
          const reference = referencePassAt(problem, pass, a.values, b.values, indices);
          error = relL2(decodeAt(spec.dtype, storage, indices), reference);
          sampledPoints = indices.length;
        } else {
          error = relL2(
            decode(spec.dtype, storage),
            referencePass(problem, pass, a.values, b.values),
          );
        }
        const failures: string[] = [];
        if (unwritten > 0)
          failures.push(`${unwritten} of ${outputCount} output elements unwritten or NaN`);
        if (!(error <= tolerance)) {
          failures.push(
            `relative L2 error ${formatError(error)} exceeds ${formatError(tolerance)}`,
          );
        }
        rows.push({
          ...base,
          pass,
          algorithm,
          error,
          unwritten,
          sampledPoints,
          status: failures.length === 0 ? 'pass' : 'fail',
          detail: failures.join('; '),
        });
      } catch (error) {
        const { status, detail } = statusOfError(error);
        rows.push({
          ...base,
          pass,
          algorithm,
          error: null,
          unwritten: null,
          sampledPoints: null,
          status,
          detail,
        });
      }
    }
  } finally {
    plan.dispose();
  }
  return rows;
}

/** @internal Short scientific notation for errors and tolerances. */
export function formatError(value: number | null): string {
  if (value === null) return '-';
  if (Number.isNaN(value)) return 'NaN';
  if (value === 0) return '0';
  return value.toExponential(2);
}
