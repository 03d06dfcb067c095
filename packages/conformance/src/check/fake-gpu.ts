/**
 * @internal A CPU stand-in for the GPU stack, used by the unit tests so the runner's rules are
 * exercised in CI without a GPU. It follows the kernels contract (typed errors raised before
 * anything is written; unsupported pinned NDHWC forward) and can be told to misbehave, so the
 * tests prove that the runner catches each kind of wrong result.
 */
import type { DeviceSlice } from '@baracuda/types';
import {
  BufferTooSmallError,
  InvalidProblemError,
  UnsupportedError,
  WorkspaceTooSmallError,
} from '@baracuda/types';
import { elementCounts, outputDims, transposeOutputDims } from '../reference/index.js';
import { passShapes, referencePass } from './conv.js';
import { fakeStage } from './fake-stage.js';
import type {
  GpuApi,
  GpuBuffer,
  GpuPlan,
  GpuStream,
  Pass,
  PlanRequest,
  StageRequest,
  TransposePlanRequest,
} from './gpu-api.js';
import { decode, encode, type StorageArray, storageArray } from './host.js';
import { type CheckDtype, elementBytes } from './tolerances.js';
import { transposeReference, transposeShapes } from './transpose.js';

/** @internal Ways the fake can be wrong. */
export interface FakeGpuFaults {
  /** Leave the last N output elements of every run unwritten. */
  unwritten?: number;
  /** Scale every output by (1 + perturb). */
  perturb?: number;
  /** Add random noise of this relative size on each run (breaks bit-reproducibility). */
  noise?: number;
  /** Make select refuse with UnsupportedError when this returns a reason. */
  unsupported?: (request: PlanRequest) => string | undefined;
  /** Make a run throw this (a plain Error = a crash). */
  runError?: (pass: Pass) => Error | undefined;
  /** Write the output before checking buffer sizes (the bug "nothing written" catches). */
  writeBeforeChecks?: boolean;
  /** Device bytes leaked per plan. */
  leakPerPlan?: number;
  /** Workspace bytes each pass asks for. Defaults to 256 for fw, 0 otherwise. */
  workspace?: Partial<Record<Pass, number>>;
}

class FakeBuffer implements GpuBuffer {
  disposed = false;
  constructor(
    readonly bytes: Uint8Array,
    readonly devicePtr: bigint,
    private readonly owner: FakeGpu,
    private readonly root: boolean,
  ) {}
  get byteLength(): number {
    return this.bytes.byteLength;
  }
  private alive(): void {
    if (this.disposed) throw new Error('fake buffer used after dispose');
  }
  uploadSync(src: ArrayBufferView): void {
    this.alive();
    if (src.byteLength > this.bytes.byteLength) throw new RangeError('upload larger than buffer');
    this.bytes.set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
  }
  downloadSync(dst: ArrayBufferView): void {
    this.alive();
    if (dst.byteLength > this.bytes.byteLength) throw new RangeError('download larger than buffer');
    new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(
      this.bytes.subarray(0, dst.byteLength),
    );
  }
  fillSync16(pattern: number): void {
    this.alive();
    new Uint16Array(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength >> 1).fill(
      pattern,
    );
  }
  fillSync32(pattern: number): void {
    this.alive();
    new Uint32Array(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength >> 2).fill(
      pattern,
    );
  }
  slice(byteOffset: number, byteLength: number): GpuBuffer {
    this.alive();
    return new FakeBuffer(
      this.bytes.subarray(byteOffset, byteOffset + byteLength),
      this.devicePtr + BigInt(byteOffset),
      this.owner,
      false,
    );
  }
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.root) this.owner.allocated -= this.bytes.byteLength;
  }
}

function bytesOf(slice: DeviceSlice): Uint8Array {
  if (!(slice instanceof FakeBuffer)) throw new TypeError('not a fake buffer');
  return slice.bytes;
}

function readStorage(dtype: CheckDtype, bytes: Uint8Array, count: number): StorageArray {
  const out = storageArray(dtype, count);
  new Uint8Array(out.buffer).set(bytes.subarray(0, count * elementBytes(dtype)));
  return out;
}

/** @internal The fake GPU. */
export class FakeGpu implements GpuApi {
  allocated = 0;
  leaked = 0;
  plansAlive = 0;
  private nextPtr = 0x7f0000000000n;
  readonly total = 80 * 1024 ** 3;
  readonly info = {
    deviceName: 'Fake CPU GPU',
    ordinal: 0,
    computeCapability: '9.0',
    totalMemory: 80 * 1024 ** 3,
    driverVersion: '13.0',
    cudnnVersion: '9.14.0',
    cudnnPath: '/fake/libcudnn.so.9',
  };

  constructor(readonly faults: FakeGpuFaults = {}) {}

  createStream(): GpuStream {
    return {
      raw: 0n,
      synchronize: async () => {},
      synchronizeSync: () => {},
      dispose: () => {},
    };
  }

  alloc(byteLength: number): GpuBuffer {
    const ptr = this.nextPtr;
    this.nextPtr += BigInt(Math.ceil(byteLength / 256) * 256 + 256);
    this.allocated += byteLength;
    return new FakeBuffer(new Uint8Array(byteLength), ptr, this, true);
  }

  createTimer() {
    let begin = 0;
    return {
      start: () => {
        begin = performance.now();
      },
      stop: () => performance.now() - begin,
      dispose: () => {},
    };
  }

  memoryInfo() {
    return { free: this.total - this.allocated - this.leaked, total: this.total };
  }

  async selectPlan(_stream: GpuStream, request: PlanRequest): Promise<GpuPlan> {
    const { problem, dtype, algorithm } = request;
    if (problem.cIn % problem.groups !== 0 || problem.cOut % problem.groups !== 0) {
      throw new InvalidProblemError(
        `groups ${problem.groups} must divide cIn ${problem.cIn} and cOut ${problem.cOut}`,
        'groups',
      );
    }
    if (outputDims(problem).some((d) => d <= 0)) {
      throw new InvalidProblemError('output dims must be positive', 'y');
    }
    const counts = elementCounts(problem);
    for (const [name, count] of Object.entries(counts)) {
      if (count > 2 ** 31 - 1) {
        throw new InvalidProblemError(`${name} holds ${count} elements, past int32`, name);
      }
    }
    const after = problem.padAfter ?? problem.pad;
    if (algorithm === 'pinned' && after.some((v, a) => v !== problem.pad[a])) {
      throw new UnsupportedError('the legacy API takes only symmetric padding');
    }
    if (algorithm === 'pinned' && problem.layout === 'ndhwc') {
      throw new UnsupportedError('pinned forward IMPLICIT_GEMM does not support NDHWC');
    }
    const reason = this.faults.unsupported?.(request);
    if (reason) throw new UnsupportedError(reason);
    return this.plan(
      algorithm,
      dtype,
      (pass) => passShapes(problem, pass),
      (pass, a, b) => referencePass(problem, pass, a, b),
    );
  }

  /** A ConvTranspose3dPlan's stand-in: the scatter-form reference, the kernels' refusals. */
  async selectTransposePlan(_stream: GpuStream, request: TransposePlanRequest): Promise<GpuPlan> {
    const { problem, dtype, algorithm } = request;
    transposeOutputDims(problem);
    const after = problem.padAfter ?? problem.pad;
    const op = problem.outputPadding ?? [0, 0, 0];
    // The convolution it runs pads `pad` before and max(0, padAfter − outputPadding) after.
    if (
      algorithm === 'pinned' &&
      op.some((v, a) => Math.max(0, after[a]! - v) !== problem.pad[a])
    ) {
      throw new UnsupportedError('the legacy API takes only symmetric padding');
    }
    return this.plan(
      algorithm,
      dtype,
      (pass) => transposeShapes(problem, pass),
      (pass, a, b) => transposeReference(problem, pass, a, b),
    );
  }

  async selectStage(_stream: GpuStream, request: StageRequest) {
    return fakeStage(request, (bytes) => this.alloc(bytes), this.faults);
  }

  private plan(
    algorithm: PlanRequest['algorithm'],
    dtype: CheckDtype,
    shapesOf: (pass: Pass) => { a: number; b: number; out: number },
    reference: (pass: Pass, a: Float64Array, b: Float64Array) => Float64Array,
  ): GpuPlan {
    const faults = this.faults;
    const workspace = { fw: 256, bwData: 0, bwFilter: 0, ...faults.workspace };
    this.leaked += faults.leakPerPlan ?? 0;
    this.plansAlive++;
    let disposed = false;
    return {
      workspaceSize: (pass) => workspace[pass],
      algorithmName: (pass) => `FAKE_${algorithm.toUpperCase()}_${pass}`,
      deterministic: () => !faults.noise,
      dispose: () => {
        if (!disposed) this.plansAlive--;
        disposed = true;
      },
      run: (pass, { a, b, out, workspace: ws, alpha = 1, beta = 0 }) => {
        if (disposed) throw new Error('plan disposed');
        const error = faults.runError?.(pass);
        if (error) throw error;
        const shapes = shapesOf(pass);
        const bytes = elementBytes(dtype);
        const write = () => {
          const av = decode(dtype, readStorage(dtype, bytesOf(a), shapes.a));
          const bv = decode(dtype, readStorage(dtype, bytesOf(b), shapes.b));
          const result = reference(pass, av, bv);
          const outBytes = bytesOf(out);
          const old =
            beta !== 0 ? decode(dtype, readStorage(dtype, outBytes, shapes.out)) : undefined;
          for (let i = 0; i < result.length; i++) {
            let v = alpha * result[i]! + (old ? beta * old[i]! : 0);
            if (faults.perturb) v *= 1 + faults.perturb;
            if (faults.noise) v *= 1 + faults.noise * (Math.random() - 0.5);
            result[i] = v;
          }
          const encoded = new Uint8Array(encode(dtype, result).storage.buffer);
          const keep = Math.max(0, shapes.out - (faults.unwritten ?? 0)) * bytes;
          outBytes.set(encoded.subarray(0, Math.min(keep, outBytes.byteLength)));
        };
        if (faults.writeBeforeChecks) write();
        const needed = workspace[pass];
        // Like the real plan: no workspace means the plan uses its own.
        if (ws !== undefined && ws.byteLength < needed) {
          throw new WorkspaceTooSmallError(needed, ws.byteLength);
        }
        const names = { fw: 'y', bwData: 'dx', bwFilter: 'dw' } as const;
        if (out.byteLength < shapes.out * bytes) {
          throw new BufferTooSmallError(names[pass], shapes.out * bytes, out.byteLength);
        }
        if (!faults.writeBeforeChecks) write();
      },
    };
  }
}
