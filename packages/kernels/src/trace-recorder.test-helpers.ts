/**
 * The characterization recorder: every call kernels makes into @baracuda/cudnn-sys and
 * @baracuda/driver, one line each, with the arguments that matter and what came back. Pointers
 * and native objects vary between runs, so they are named by first appearance (`@1`, `#1`); the
 * random bytes autotune uploads are recorded by length. Live native objects (cuDNN descriptors and
 * handles, device buffers, events) are counted, so a test can assert that dispose frees them all.
 *
 * cudnn-sys is wrapped by `vi.mock` in the trace tests (its module namespace is read-only); the
 * driver's classes are patched in place by {@link recordDriver}.
 */

type Fn = (...args: unknown[]) => unknown;

interface State {
  on: boolean;
  lines: string[];
  ids: WeakMap<object, string>;
  next: number;
  ptrs: Map<bigint, string>;
  nextPtr: number;
  live: Map<object, string>;
  /** Kernel parameters packed since the last launch. */
  params: string[];
}

const state: State = {
  on: false,
  lines: [],
  ids: new WeakMap(),
  next: 0,
  ptrs: new Map(),
  nextPtr: 0,
  live: new Map(),
  params: [],
};

/** Start a new trace: names and pointers counted from 1 again. */
export function startTrace(): string[] {
  state.on = true;
  state.lines = [];
  state.ids = new WeakMap();
  state.next = 0;
  state.ptrs = new Map();
  state.nextPtr = 0;
  state.live = new Map();
  state.params = [];
  return state.lines;
}

/** Stop recording; returns the live objects left (kind and name), which should be none. */
export function stopTrace(): string[] {
  state.on = false;
  return [...state.live.entries()].map(([o, kind]) => `${kind} ${name(o)}`);
}

/** A line of the test's own (a marker, a result) in the current trace. */
export function note(line: string): void {
  if (state.on) state.lines.push(untemp(line));
}

/** Paths in temporary folders (the fakes', the cache's) and a kept-aside cache's time vary between runs. */
function untemp(s: string): string {
  return (
    s
      .replace(/\/tmp\/[^/\s]+\//g, '<tmp>/')
      .replace(/\.corrupt-\d{4}-\d\d-\d\dT[\d-]+Z/g, '.corrupt-<time>')
      // JSON.parse's message names the line and column on Node 24, not on Node 20.
      .replace(/ \(line \d+ column \d+\)/g, '')
  );
}

function name(o: object, prefix = '#'): string {
  let id = state.ids.get(o);
  if (id === undefined) {
    id = `${prefix}${++state.next}`;
    state.ids.set(o, id);
  }
  return id;
}

function ptr(v: bigint): string {
  if (v === 0n) return '0';
  let id = state.ptrs.get(v);
  if (id === undefined) {
    id = `@${++state.nextPtr}`;
    state.ptrs.set(v, id);
  }
  return id;
}

/** Names written as ranges where they run on: `#3,#4,#5` as `#3..#5`. */
function ranges(items: readonly string[]): string {
  const out: string[] = [];
  for (let i = 0; i < items.length; ) {
    const m = /^#(\d+)$/.exec(items[i]!);
    let j = i;
    if (m) {
      while (j + 1 < items.length && items[j + 1] === `#${Number(m[1]) + (j + 1 - i)}`) j++;
    }
    out.push(j - i >= 2 ? `${items[i]}..${items[j]}` : items.slice(i, j + 1).join(','));
    i = j + 1;
  }
  return out.join(',');
}

/** An argument or result as one short, run-independent string. */
export function norm(v: unknown, depth = 0): string {
  if (v === undefined) return 'undef';
  if (v === null) return 'null';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'bigint') return ptr(v);
  if (typeof v === 'string')
    return JSON.stringify(untemp(v.length > 120 ? `${v.slice(0, 120)}…` : v));
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'function') return 'fn';
  if (v instanceof BigUint64Array) return `p[${Array.from(v, ptr).join(',')}]`;
  if (v instanceof BigInt64Array) return `i64[${Array.from(v, String).join(',')}]`;
  if (v instanceof Int32Array) return `i32[${v.join(',')}]`;
  if (v instanceof Float32Array) return `f32[${v.join(',')}]`;
  if (v instanceof Float64Array) return `f64[${v.join(',')}]`;
  if (ArrayBuffer.isView(v)) return `bytes(${v.byteLength})`;
  if (Array.isArray(v)) return `[${ranges(v.map((e) => norm(e, depth + 1)))}]`;
  if (typeof v === 'object') {
    const proto = Object.getPrototypeOf(v);
    if ((proto === Object.prototype || proto === null) && depth < 3) {
      const o = v as Record<string, unknown>;
      // A stream- or slice-shaped plain object: its pointer says which.
      if (typeof o.raw === 'bigint') return `stream(${ptr(o.raw)})`;
      return `{${Object.entries(o)
        .map(([k, e]) => `${k}:${norm(e, depth + 1)}`)
        .join(',')}}`;
    }
    return name(v);
  }
  return String(v);
}

const CREATES: Record<string, string> = {
  cudnnCreate: 'handle',
  cudnnBackendCreateDescriptor: 'descriptor',
  cudnnCreateTensorDescriptor: 'tensorDesc',
  cudnnCreateFilterDescriptor: 'filterDesc',
  cudnnCreateConvolutionDescriptor: 'convDesc',
};
const DESTROYS = new Set([
  'cudnnDestroy',
  'cudnnBackendDestroyDescriptor',
  'cudnnDestroyTensorDescriptor',
  'cudnnDestroyFilterDescriptor',
  'cudnnDestroyConvolutionDescriptor',
]);
/** Calls whose every repeat is noise (diagnostics asked for while building an error). */
const QUIET = new Set(['cudnnStatusName', 'cudnnGetErrorString']);

/** A cuDNN call's result, short: nothing for success, the outputs of a successful `{status, ...}`. */
function shortResult(result: unknown): string {
  if (result === 0) return '';
  if (typeof result === 'object' && result !== null && !Array.isArray(result)) {
    const { status, ...outputs } = result as Record<string, unknown>;
    const keys = Object.keys(outputs);
    const shown = keys.length === 1 ? norm(outputs[keys[0]!]) : norm(outputs);
    return status === 0 ? ` = ${shown}` : ` = status ${norm(status)} ${shown}`;
  }
  return ` = ${norm(result)}`;
}

/** cudnn-sys's exports with each function recording its calls (for a `vi.mock` factory). */
export function recordCudnn(real: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(real)) {
    if (typeof value !== 'function' || QUIET.has(key) || /^[A-Z]/.test(key)) {
      out[key] = value;
      continue;
    }
    const f = value as Fn;
    out[key] = (...args: unknown[]) => {
      const result = f(...args);
      if (state.on) {
        if (DESTROYS.has(key) && typeof args[0] === 'object' && args[0] !== null) {
          state.live.delete(args[0]);
        }
        const made = CREATES[key];
        if (made !== undefined && typeof result === 'object' && result !== null) {
          const o = (result as Record<string, unknown>)[made];
          if (typeof o === 'object' && o !== null) state.live.set(o, key);
        }
        // The probe's report names the fake's temporary folder: only whether cuDNN loaded matters.
        const shown =
          key === 'load' || key === 'probe'
            ? ` = available=${(result as { available?: unknown })?.available}`
            : shortResult(result);
        const call = key.replace(/^cudnn/, '').replace(/^Backend/, 'B');
        state.lines.push(`${call}(${args.map((a) => norm(a)).join(', ')})${shown}`);
      }
      return result;
    };
  }
  return out;
}

function patch(
  target: Record<string, unknown>,
  key: string,
  label: string,
  after?: (self: unknown, args: unknown[], result: unknown) => void,
): void {
  const f = target[key] as Fn;
  target[key] = function (this: unknown, ...args: unknown[]) {
    const result = f.apply(this, args);
    if (state.on) {
      after?.(this, args, result);
      const self = typeof this === 'function' ? '' : `${norm(this)}.`;
      state.lines.push(`${self}${label}(${args.map((a) => norm(a)).join(', ')}) = ${norm(result)}`);
    }
    return result;
  };
}

interface DriverClasses {
  DeviceBuffer: unknown;
  Event: unknown;
  Module: unknown;
  KernelFunction: unknown;
  KernelParams: unknown;
  Device: unknown;
}

let driverPatched = false;
const TRACE_FREE_BYTES = 16 * 1024;

/** Patch the driver's classes (once per process) so that what kernels calls on them records. */
export function recordDriver(driver: DriverClasses): void {
  if (driverPatched) return;
  driverPatched = true;
  const cls = (c: unknown) => c as Record<string, unknown>;
  const proto = (c: unknown) => (c as { prototype: Record<string, unknown> }).prototype;
  const alive = (_s: unknown, _a: unknown[], r: unknown) => {
    if (typeof r !== 'object' || r === null) return;
    state.live.set(r, 'DeviceBuffer');
    // The fake allocator reuses freed addresses: a new buffer's pointer gets a new name.
    const p = (r as { devicePtr?: unknown }).devicePtr;
    if (typeof p === 'bigint') state.ptrs.set(p, `@${++state.nextPtr}`);
  };
  patch(cls(driver.DeviceBuffer), 'alloc', 'DeviceBuffer.alloc', alive);
  patch(cls(driver.Event), 'create', 'Event.create', (_s, _a, r) => {
    if (typeof r === 'object' && r !== null) state.live.set(r, 'Event');
  });
  patch(cls(driver.Event), 'elapsedMs', 'Event.elapsedMs');
  patch(cls(driver.Module), 'load', 'Module.load');
  patch(cls(driver.Device), 'get', 'Device.get');
  const gone = (self: unknown) => {
    if (typeof self === 'object' && self !== null) state.live.delete(self);
  };
  const buffer = proto(driver.DeviceBuffer);
  for (const m of ['uploadSync', 'copyFrom', 'copyFromSync', 'downloadSync', 'memsetSync']) {
    patch(buffer, m, m);
  }
  patch(buffer, 'dispose', 'dispose', gone);
  const event = proto(driver.Event);
  for (const m of ['record', 'synchronizeSync', 'synchronize', 'query']) patch(event, m, m);
  patch(event, 'dispose', 'dispose', gone);
  patch(proto(driver.Module), 'getFunction', 'getFunction');
  // The device reports 16 KiB free: autotune then rotates among a few operand sets, not 64, and
  // the traces stay short; the 'auto' workspace limit becomes 8 KiB.
  const device = proto(driver.Device);
  const memoryInfo = device.memoryInfo as Fn;
  device.memoryInfo = function (this: unknown) {
    const real = memoryInfo.call(this) as { free: number; total: number };
    return { free: TRACE_FREE_BYTES, total: real.total };
  };
  patch(device, 'memoryInfo', 'memoryInfo');
  const params = proto(driver.KernelParams);
  for (const m of ['u32', 'i32', 'u64', 'f32', 'f64', 'ptr']) {
    const f = params[m] as Fn;
    params[m] = function (this: unknown, v: unknown) {
      if (state.on) state.params.push(`${m} ${norm(v)}`);
      return f.call(this, v);
    };
  }
  const reset = params.reset as Fn;
  params.reset = function (this: unknown) {
    if (state.on) state.params = [];
    return reset.call(this);
  };
  const launch = proto(driver.KernelFunction).launch as Fn;
  proto(driver.KernelFunction).launch = function (this: unknown, ...args: unknown[]) {
    const result = launch.apply(this, args);
    if (state.on) {
      const [stream, grid, block, shared] = args;
      state.lines.push(
        `${norm(this)}.launch(${norm(stream)}, ${norm(grid)}, ${norm(block)}, ${norm(shared)}, <${state.params.join('; ')}>)`,
      );
      state.params = [];
    }
    return result;
  };
}
