/**
 * The `transpose` check: one ConvTranspose3dPlan per (case, dtype, layout, mode), fresh random
 * inputs, poisoned outputs, each pass compared by relative L2 with the f64 scatter-form reference
 * (reference/conv-transpose3d.ts), with the conv check's tolerances.
 */
import {
  convTranspose3dBackwardData,
  convTranspose3dBackwardFilter,
  convTranspose3dForward,
  type Layout,
  relL2,
  type TransposeProblem,
  transposeElementCounts,
} from '../reference/index.js';
import type { TransposeCase } from '../suite/index.js';
import { formatError } from './conv.js';
import type { AlgoMode, GpuApi, GpuBuffer, GpuPlan, GpuStream, Pass } from './gpu-api.js';
import {
  countNaNStored,
  decode,
  type HostTensor,
  poison,
  Rng,
  randomTensor,
  type Seed,
  storageArray,
} from './host.js';
import { type CheckRow, statusOfError } from './rows.js';
import { type CheckDtype, elementBytes, toleranceFor } from './tolerances.js';

/** The problem a transposed case poses in one layout. */
export function toTransposeProblem(c: TransposeCase, layout: Layout): TransposeProblem {
  const { name: _name, ...fields } = c;
  return { ...fields, layout };
}

/** Element counts of a transposed pass's two inputs and its output (the run's a, b, out). */
export function transposeShapes(
  p: TransposeProblem,
  pass: Pass,
): { a: number; b: number; out: number } {
  const c = transposeElementCounts(p);
  if (pass === 'fw') return { a: c.x, b: c.w, out: c.y };
  if (pass === 'bwData') return { a: c.y, b: c.w, out: c.x };
  return { a: c.x, b: c.y, out: c.w };
}

/** The f64 reference of a transposed pass on (a, b). */
export function transposeReference(
  p: TransposeProblem,
  pass: Pass,
  a: ArrayLike<number>,
  b: ArrayLike<number>,
): Float64Array {
  if (pass === 'fw') return convTranspose3dForward(p, a, b);
  if (pass === 'bwData') return convTranspose3dBackwardData(p, a, b);
  return convTranspose3dBackwardFilter(p, a, b);
}

/** Inputs of one (case, dtype, layout), drawn once and shared by the passes and modes, with each pass's reference. */
export class TransposeInputs {
  private readonly drawn = new Map<'x' | 'w' | 'dy', HostTensor>();
  private readonly references = new Map<Pass, Float64Array>();
  constructor(
    readonly problem: TransposeProblem,
    private readonly dtype: CheckDtype,
    private readonly seed: Seed,
    private readonly label: string,
  ) {}

  get(role: 'x' | 'w' | 'dy'): HostTensor {
    let t = this.drawn.get(role);
    if (!t) {
      const c = transposeElementCounts(this.problem);
      const count = role === 'x' ? c.x : role === 'w' ? c.w : c.y;
      t = randomTensor(this.dtype, count, new Rng(this.seed, `${this.label}|${role}`));
      this.drawn.set(role, t);
    }
    return t;
  }

  forPass(pass: Pass): { a: HostTensor; b: HostTensor } {
    if (pass === 'fw') return { a: this.get('x'), b: this.get('w') };
    if (pass === 'bwData') return { a: this.get('dy'), b: this.get('w') };
    return { a: this.get('x'), b: this.get('dy') };
  }

  /** The f64 reference of a pass on the (rounded) inputs, computed once. */
  reference(pass: Pass): Float64Array {
    let r = this.references.get(pass);
    if (!r) {
      const { a, b } = this.forPass(pass);
      r = transposeReference(this.problem, pass, a.values, b.values);
      this.references.set(pass, r);
    }
    return r;
  }
}

/** What one transposed row needs. */
export interface TransposeRowSpec {
  readonly caseName: string;
  readonly dtype: CheckDtype;
  readonly layout: Layout;
  readonly algorithm: AlgoMode;
  readonly passes: readonly Pass[];
  readonly inputs: TransposeInputs;
}

async function runPass(
  api: GpuApi,
  stream: GpuStream,
  plan: GpuPlan,
  spec: TransposeRowSpec,
  pass: Pass,
): Promise<{ got: Float64Array; unwritten: number }> {
  const shapes = transposeShapes(spec.inputs.problem, pass);
  const bytes = elementBytes(spec.dtype);
  const { a, b } = spec.inputs.forPass(pass);
  const buffers: GpuBuffer[] = [];
  try {
    const alloc = (count: number) => {
      const buffer = api.alloc(count * bytes);
      buffers.push(buffer);
      return buffer;
    };
    const [ab, bb, out] = [alloc(shapes.a), alloc(shapes.b), alloc(shapes.out)];
    ab.uploadSync(a.storage);
    bb.uploadSync(b.storage);
    poison(out, spec.dtype);
    const wsBytes = plan.workspaceSize(pass);
    const workspace = wsBytes > 0 ? alloc(wsBytes) : undefined;
    plan.run(pass, { a: ab, b: bb, out, workspace, stream });
    await stream.synchronize();
    const storage = storageArray(spec.dtype, shapes.out);
    out.downloadSync(storage);
    return { got: decode(spec.dtype, storage), unwritten: countNaNStored(spec.dtype, storage) };
  } finally {
    for (const buffer of buffers) buffer.dispose();
  }
}

/** Select one transposed plan and check each requested pass with it: one row per pass. */
export async function checkTranspose(
  api: GpuApi,
  stream: GpuStream,
  spec: TransposeRowSpec,
): Promise<CheckRow[]> {
  const tolerance = toleranceFor(spec.dtype);
  const base = {
    check: 'transpose',
    case: spec.caseName,
    dtype: spec.dtype,
    layout: spec.layout,
    mode: spec.algorithm,
    tolerance,
    sampledPoints: null,
  } as const;
  const none = { algorithm: '-', error: null, unwritten: null } as const;
  if (api.selectTransposePlan === undefined) {
    return spec.passes.map((pass) => ({
      ...base,
      ...none,
      pass,
      status: 'unsupported' as const,
      detail: 'this GPU stack has no ConvTranspose3dPlan',
    }));
  }
  let plan: GpuPlan;
  try {
    plan = await api.selectTransposePlan(stream, {
      problem: spec.inputs.problem,
      dtype: spec.dtype,
      algorithm: spec.algorithm,
    });
  } catch (error) {
    const { status, detail } = statusOfError(error);
    return spec.passes.map((pass) => ({
      ...base,
      ...none,
      pass,
      status,
      detail: status === 'fail' ? `select failed: ${detail}` : detail,
    }));
  }
  const rows: CheckRow[] = [];
  try {
    for (const pass of spec.passes) {
      let algorithm = '-';
      try {
        algorithm = plan.algorithmName(pass);
        const { got, unwritten } = await runPass(api, stream, plan, spec, pass);
        const error = relL2(got, spec.inputs.reference(pass));
        const failures: string[] = [];
        if (unwritten > 0) {
          failures.push(`${unwritten} of ${got.length} output elements unwritten or NaN`);
        }
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
          status: failures.length === 0 ? 'pass' : 'fail',
          detail: failures.join('; '),
        });
      } catch (error) {
        const { status, detail } = statusOfError(error);
        rows.push({ ...base, ...none, algorithm, pass, status, detail });
      }
    }
  } finally {
    plan.dispose();
  }
  return rows;
}
