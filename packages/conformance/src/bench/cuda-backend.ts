/**
 * The BenchBackend on a real GPU: @baracuda/driver buffers, streams and events, and
 * @baracuda/kernels plans. The only bench file that touches the native packages.
 */
import { probe as probeCudnn } from '@baracuda/cudnn-sys';
import { Device, DeviceBuffer, Event, probe as probeDriver, type Stream } from '@baracuda/driver';
import { Conv3dDescriptor, Conv3dPlan } from '@baracuda/kernels';
import type { BackendFactoryResult, BenchBackend, GroupSession, PlanSession } from './backend.js';
import { elementBytes, median, tensorElements } from './math.js';
import { randomBytes } from './random.js';
import { planPasses } from './rows.js';
import { passSelection } from './selection.js';
import type {
  BenchCase,
  BenchDtype,
  BenchGroup,
  BenchLayout,
  BenchMode,
  BenchOutputs,
  BenchPass,
  CudnnIdentity,
  PassSelectionInfo,
} from './types.js';

/** Bytes of random data generated on the host once per element size and tiled into buffers. */
const POOL_BYTES = 16 * 1024 * 1024;
/** The copy used to measure bandwidth: large enough that L2 does not matter. */
const COPY_BYTES = 1024 * 1024 * 1024;
const COPY_REPS = 15;

function storageElement(dtype: BenchDtype): 'f16' | 'bf16' | 'f32' | 'f64' {
  return dtype === 'tf32' || dtype === '3xtf32' ? 'f32' : dtype;
}

function describeCudnn(): CudnnIdentity {
  const probe = probeCudnn();
  const v = probe.version;
  return {
    version: v ? `${v.major}.${v.minor}.${v.patch}` : null,
    path: probe.libraryPath ?? null,
  };
}

function makeDescriptor(c: BenchCase, dtype: BenchDtype, layout: BenchLayout) {
  return Conv3dDescriptor.create({
    batch: c.n,
    cIn: c.cIn,
    dIn: c.in[0]!,
    hIn: c.in[1]!,
    wIn: c.in[2]!,
    cOut: c.cOut,
    dFilt: c.k[0]!,
    hFilt: c.k[1]!,
    wFilt: c.k[2]!,
    element: storageElement(dtype),
  })
    .withPadding(c.pad[0]!, c.pad[1]!, c.pad[2]!)
    .withStride(c.stride[0]!, c.stride[1]!, c.stride[2]!)
    .withDilation(c.dil[0]!, c.dil[1]!, c.dil[2]!)
    .withGroups(c.groups)
    .withLayout(layout);
}

/**
 * One rotation set: inputs filled with random values, and outputs (the same buffers in every set
 * when outputs are shared).
 */
interface TensorSet {
  x?: DeviceBuffer;
  w?: DeviceBuffer;
  y?: DeviceBuffer;
  dy?: DeviceBuffer;
  dx?: DeviceBuffer;
  dw?: DeviceBuffer;
}

export function describeAlgorithm(info: unknown): string | undefined {
  if (info === undefined || info === null) return undefined;
  if (typeof info === 'string') return info;
  if (typeof info === 'object') {
    const record = info as Record<string, unknown>;
    if (typeof record.path === 'string' && typeof record.name === 'string') {
      const ws = record.workspaceBytes;
      const suffix =
        typeof ws === 'number' && ws > 0 ? `, workspace ${(ws / 2 ** 20).toFixed(1)} MiB` : '';
      return `${record.path}: ${record.name}${suffix}`;
    }
    for (const key of ['name', 'description', 'engine', 'algorithm']) {
      if (typeof record[key] === 'string') return record[key] as string;
    }
    const text = JSON.stringify(info, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    return text.length > 120 ? `${text.slice(0, 117)}...` : text;
  }
  return String(info);
}

class CudaBenchBackend implements BenchBackend {
  readonly deviceName: string;
  readonly cudnn: CudnnIdentity;
  readonly device: Device;
  readonly stream: Stream;
  private readonly events: Event[] = [];
  private readonly pools = new Map<BenchDtype, Uint8Array>();
  private seed = 1;

  /** Our plans' workspace limit (undefined: the library's default). */
  readonly maxWorkspaceBytes: number | undefined;

  constructor(
    maxWorkspaceBytes?: number,
    readonly outputs: BenchOutputs = 'shared',
  ) {
    this.maxWorkspaceBytes = maxWorkspaceBytes;
    this.device = Device.get(0);
    this.stream = this.device.createStream();
    const cc = this.device.computeCapability;
    this.deviceName = `${this.device.name} (sm_${cc.major}${cc.minor}, ${this.device.smCount} SMs)`;
    this.cudnn = describeCudnn();
  }

  /**
   * At least `count` timing events, made as torch.cuda.Event makes them: without
   * CU_EVENT_BLOCKING_SYNC (the driver's default for a wait), which adds 0.6-0.9 µs to every call
   * it brackets on an H200 (run 33), on both sides. The bench waits on the stream, not on these.
   */
  eventPool(count: number): Event[] {
    while (this.events.length < count)
      this.events.push(Event.create(this.device, { timing: true, blockingSync: false }));
    return this.events;
  }

  /** Fill a buffer with random values of the dtype (a host pool tiled from a random offset). */
  fill(buffer: DeviceBuffer, dtype: BenchDtype): void {
    let pool = this.pools.get(dtype);
    if (!pool) {
      pool = randomBytes(dtype, 2 * POOL_BYTES, 0x5eed + this.pools.size);
      this.pools.set(dtype, pool);
    }
    const start = (this.seed++ * 4099 * 8) % POOL_BYTES;
    for (let offset = 0; offset < buffer.byteLength; offset += POOL_BYTES) {
      const length = Math.min(POOL_BYTES, buffer.byteLength - offset);
      buffer.uploadSync(pool.subarray(start, start + length), offset);
    }
  }

  async measureCopyBandwidth(): Promise<number> {
    const free = this.device.memoryInfo().free;
    const bytes = Math.min(COPY_BYTES, Math.floor(free / 4 / 4096) * 4096);
    const source = DeviceBuffer.alloc(bytes, { device: this.device });
    const target = DeviceBuffer.alloc(bytes, { device: this.device });
    try {
      source.memsetSync(0x3c);
      const events = this.eventPool(2 * COPY_REPS);
      for (let i = 0; i < 2; i++) target.copyFrom(source, this.stream);
      for (let i = 0; i < COPY_REPS; i++) {
        events[2 * i]!.record(this.stream);
        target.copyFrom(source, this.stream);
        events[2 * i + 1]!.record(this.stream);
      }
      await this.stream.synchronize();
      const times: number[] = [];
      for (let i = 0; i < COPY_REPS; i++)
        times.push(Event.elapsedMs(events[2 * i]!, events[2 * i + 1]!));
      return (2 * bytes) / (median(times) * 1e-3);
    } finally {
      source.dispose();
      target.dispose();
    }
  }

  async openGroup(group: BenchGroup): Promise<GroupSession> {
    const counts = tensorElements(group.case);
    const size = elementBytes(group.dtype);
    const operands: Record<BenchPass, Array<keyof TensorSet>> = {
      fw: ['x', 'w', 'y'],
      bwData: ['w', 'dy', 'dx'],
      bwFilter: ['x', 'dy', 'dw'],
      bwStep: ['x', 'w', 'dy', 'dx', 'dw'],
    };
    const needs = new Set(group.passes.flatMap((pass) => operands[pass]));
    const elementsOf: Record<keyof TensorSet, number> = {
      x: counts.x,
      w: counts.w,
      y: counts.y,
      dy: counts.y,
      dx: counts.x,
      dw: counts.w,
    };
    const sets: TensorSet[] = [];
    const allocated: DeviceBuffer[] = [];
    const isInput = (name: keyof TensorSet) => name === 'x' || name === 'w' || name === 'dy';
    try {
      for (let s = 0; s < group.sets; s++) {
        const set: TensorSet = {};
        for (const name of needs) {
          const shared = this.outputs === 'shared' && !isInput(name) ? sets[0]?.[name] : undefined;
          if (shared !== undefined) {
            set[name] = shared;
            continue;
          }
          const buffer = DeviceBuffer.alloc(elementsOf[name] * size, { device: this.device });
          allocated.push(buffer);
          if (isInput(name)) this.fill(buffer, group.dtype);
          set[name] = buffer;
        }
        sets.push(set);
      }
    } catch (error) {
      for (const b of allocated) b.dispose();
      throw error;
    }
    return new CudaGroupSession(this, group, sets, allocated);
  }

  dispose(): void {
    for (const e of this.events.splice(0)) e.dispose();
    this.stream.dispose();
  }
}

class CudaGroupSession implements GroupSession {
  constructor(
    readonly backend: CudaBenchBackend,
    readonly group: BenchGroup,
    readonly sets: TensorSet[],
    private readonly buffers: DeviceBuffer[],
  ) {}

  async selectPlan(mode: BenchMode): Promise<PlanSession> {
    const descriptor = makeDescriptor(this.group.case, this.group.dtype, this.group.layout);
    const started = performance.now();
    const plan = await Conv3dPlan.select(
      this.backend.stream,
      descriptor,
      {
        algorithm: mode,
        allowTf32: this.group.dtype === 'tf32',
        math: this.group.dtype === '3xtf32' ? '3xtf32' : 'default',
        ...(this.backend.maxWorkspaceBytes === undefined
          ? {}
          : { maxWorkspaceBytes: this.backend.maxWorkspaceBytes }),
      },
      {
        passes: planPasses(this.group.passes),
        // Every candidate's time, for reading a row's choice against PyTorch's kernels later,
        // and when it came (ms into the select), for reading where the time to a plan goes.
        onProgress: (message) =>
          process.stderr.write(
            `autotune +${(performance.now() - started).toFixed(0)} ms: ${message}\n`,
          ),
      },
    );
    try {
      let workspaceBytes = 0;
      const unsupported = new Map<BenchPass, unknown>();
      for (const pass of this.group.passes) {
        try {
          for (const planned of planPasses([pass])) {
            const bytes =
              planned === 'fw'
                ? plan.queryFwWorkspaceSize()
                : planned === 'bwData'
                  ? plan.queryBwDataWorkspaceSize()
                  : plan.queryBwFilterWorkspaceSize();
            workspaceBytes = Math.max(workspaceBytes, bytes);
          }
        } catch (error) {
          unsupported.set(pass, error);
        }
      }
      const workspace =
        workspaceBytes > 0
          ? DeviceBuffer.alloc(workspaceBytes, { device: this.backend.device })
          : undefined;
      return new CudaPlanSession(this, plan, workspace, unsupported);
    } catch (error) {
      plan.dispose();
      throw error;
    }
  }

  dispose(): void {
    for (const b of this.buffers.splice(0)) b.dispose();
  }
}

class CudaPlanSession implements PlanSession {
  constructor(
    readonly group: CudaGroupSession,
    readonly plan: Conv3dPlan,
    readonly workspace: DeviceBuffer | undefined,
    /** Passes whose workspace query failed: the error is rethrown when the pass is timed. */
    readonly unsupported: Map<BenchPass, unknown>,
  ) {}

  selection(pass: BenchPass): PassSelectionInfo | undefined {
    return passSelection(this.plan.selectReport(), planPasses([pass]));
  }

  algorithm(pass: BenchPass): string | undefined {
    if (pass !== 'bwStep') return describeAlgorithm(this.plan.algorithm(pass));
    const parts = planPasses([pass]).map((p) => describeAlgorithm(this.plan.algorithm(p)));
    return parts.every((p) => p === undefined) ? undefined : parts.map((p) => p ?? '?').join(' + ');
  }

  /** Enqueue one call of `pass` on rotation set `index`. */
  enqueue(pass: BenchPass, index: number): void {
    const set = this.group.sets[index % this.group.sets.length]!;
    const stream = this.group.backend.stream;
    const workspace = this.workspace;
    if (pass === 'fw') this.plan.runFw({ x: set.x!, w: set.w!, y: set.y!, workspace, stream });
    else if (pass === 'bwData')
      this.plan.runBwData({ w: set.w!, dy: set.dy!, dx: set.dx!, workspace, stream });
    else if (pass === 'bwFilter')
      this.plan.runDw({ x: set.x!, dy: set.dy!, dw: set.dw!, workspace, stream });
    else {
      // The backward of a training step as our API asks for it: two calls, dX then dW.
      this.plan.runBwData({ w: set.w!, dy: set.dy!, dx: set.dx!, workspace, stream });
      this.plan.runDw({ x: set.x!, dy: set.dy!, dw: set.dw!, workspace, stream });
    }
  }

  async time(pass: BenchPass, warmup: number, reps: number): Promise<number[]> {
    if (this.unsupported.has(pass)) throw this.unsupported.get(pass);
    const backend = this.group.backend;
    const events = backend.eventPool(2 * reps);
    let call = 0;
    for (let i = 0; i < warmup; i++) this.enqueue(pass, call++);
    for (let i = 0; i < reps; i++) {
      events[2 * i]!.record(backend.stream);
      this.enqueue(pass, call++);
      events[2 * i + 1]!.record(backend.stream);
    }
    await backend.stream.synchronize();
    const times: number[] = [];
    for (let i = 0; i < reps; i++) times.push(Event.elapsedMs(events[2 * i]!, events[2 * i + 1]!));
    return times;
  }

  async hostOverhead(pass: BenchPass, calls: number, trials: number): Promise<number[]> {
    if (this.unsupported.has(pass)) throw this.unsupported.get(pass);
    const stream = this.group.backend.stream;
    for (let i = 0; i < 50; i++) this.enqueue(pass, 0);
    await stream.synchronize();
    const perCall: number[] = [];
    for (let t = 0; t < trials; t++) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) this.enqueue(pass, 0);
      const end = process.hrtime.bigint();
      await stream.synchronize();
      perCall.push(Number(end - start) / 1e3 / calls);
    }
    return perCall;
  }

  dispose(): void {
    this.workspace?.dispose();
    this.plan.dispose();
  }
}

/**
 * Open the first GPU for benchmarking, or say why not (no driver, no device, no cuDNN).
 * Never throws.
 */
export function createCudaBackend(
  options: { maxWorkspaceBytes?: number | undefined; outputs?: BenchOutputs } = {},
): BackendFactoryResult {
  try {
    const driver = probeDriver();
    if (!driver.available || driver.deviceCount < 1) {
      const reason = driver.reason ?? 'no device';
      const searched = (driver.searched ?? []).map((entry: unknown) =>
        typeof entry === 'object' && entry !== null && 'path' in entry
          ? String(entry.path)
          : String(entry),
      );
      // The driver's reason usually lists what it searched already; add the list only if not.
      const suffix =
        searched.length > 0 && !reason.includes('Searched')
          ? ` Searched: ${searched.join(', ')}.`
          : '';
      return { unavailable: `No CUDA GPU: ${reason}${suffix}` };
    }
    const cudnn = probeCudnn();
    if (!cudnn.available) {
      const tried = cudnn.tried?.map((t) => `${t.path} (${t.error})`).join(', ');
      return {
        unavailable: `cuDNN could not be loaded: ${cudnn.reason ?? 'unknown reason'}.${tried ? ` Tried: ${tried}.` : ''} Set BARACUDA_CUDNN_LIBRARY to a libcudnn.so.9.`,
      };
    }
    return {
      backend: new CudaBenchBackend(options.maxWorkspaceBytes, options.outputs ?? 'shared'),
    };
  } catch (error) {
    return { unavailable: error instanceof Error ? error.message : String(error) };
  }
}
