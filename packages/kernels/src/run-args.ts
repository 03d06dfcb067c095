/**
 * The arguments of a plan's run calls (`runFw`, `runBwData`, `runDw`), checked once, here, before
 * any path (graph, legacy/pinned, our depthwise kernels, the layout detour, backward-data as
 * forward) sees them. Each property of the caller's objects is read once, nothing recurses into
 * them, and every refusal is a typed error naming what was expected and what was received.
 * @internal
 */
import {
  BufferTooSmallError,
  type DeviceSlice,
  describeValue,
  ElementKind,
  InvalidArgumentError,
  InvalidProblemError,
} from '@baracuda/types';
import type { Conv3dDescriptor } from './descriptor.js';
import type { DeviceLike, StreamLike } from './sys.js';

/** A run's common arguments, checked (`userWs` null: the plan's own workspace). */
export interface RunScalars {
  alpha: number;
  beta: number;
  stream: StreamLike;
  userWs: DeviceSlice | null;
}

/** A run's arguments, checked: the operands' pointers in cuDNN's uid order (x-like, w-like, y-like). */
export interface CheckedRun {
  readonly px: bigint;
  readonly pw: bigint;
  readonly py: bigint;
  readonly scalars: RunScalars;
}

/** What the checks need of the plan. */
export interface RunTarget {
  readonly descriptor: Conv3dDescriptor;
  /** The plan's device: every stream and buffer that tells its device must be on it. */
  readonly device: DeviceLike;
  /** The stream given to `select`, used when a run names none. */
  readonly stream: StreamLike;
}

type Pass = 'fw' | 'bwData' | 'bwFilter';
type Operand = 'x' | 'w' | 'y';

/** A run method's name and its arguments in checking order, each with the operand it is. */
export interface RunArgsSpec {
  readonly method: string;
  readonly args: readonly (readonly [string, Operand])[];
}

/** Per pass: the method, its argument names in checking order, and the operand each one is. */
const OPERANDS: Record<Pass, RunArgsSpec> = {
  fw: {
    method: 'runFw',
    args: [
      ['x', 'x'],
      ['w', 'w'],
      ['y', 'y'],
    ],
  },
  bwData: {
    method: 'runBwData',
    args: [
      ['w', 'w'],
      ['dy', 'y'],
      ['dx', 'x'],
    ],
  },
  bwFilter: {
    method: 'runDw',
    args: [
      ['x', 'x'],
      ['dy', 'y'],
      ['dw', 'w'],
    ],
  },
};

const ADDRESS_END = 1n << 64n;
/** Addresses below this end more than 2^53 bytes before 2^64. */
const NEAR_END = ADDRESS_END - (1n << 53n);
const DEVICE_ADDRESS = 'a bigint from 1 to 2^64 - 1 (a device address)';
const BYTE_LENGTH = 'a non-negative safe integer';

/**
 * Check every argument of one run call. Operand errors come in the method's argument order, then
 * the stream, alpha, beta and the workspace. `spec` names the method and its arguments when they
 * are not the pass's own (a transposed convolution's runs are its convolution's passes).
 */
export function checkRunArgs(
  pass: Pass,
  args: unknown,
  target: RunTarget,
  spec: RunArgsSpec = OPERANDS[pass],
): CheckedRun {
  const { method, args: names } = spec;
  if (typeof args !== 'object' || args === null) {
    const list = names.map(([name]) => name).join(', ');
    throw new InvalidArgumentError(`${method} arguments`, `an object {${list}}`, args);
  }
  const given = args as Record<string, unknown>;
  const d = target.descriptor;
  const layout = operandLayout(d);
  const ptr: Record<Operand, bigint> = { x: 0n, w: 0n, y: 0n };
  for (const [name, operand] of names) {
    ptr[operand] = tensorPointer(name, given[name], layout[operand], layout, target);
  }
  const stream = given.stream;
  const alpha = given.alpha;
  const beta = given.beta;
  const workspace = given.workspace;
  const f64 = d.element === ElementKind.F64;
  return {
    px: ptr.x,
    pw: ptr.w,
    py: ptr.y,
    scalars: {
      stream: stream === undefined ? target.stream : runStream(stream, target.device),
      alpha: scale('alpha', alpha, 1, f64),
      beta: scale('beta', beta, 0, f64),
      userWs: workspaceSlice(workspace, target.device),
    },
  };
}

/** A stream of the plan's device: an object whose `raw` is a bigint in [0, 2^64). */
export function runStream(value: unknown, device: DeviceLike): StreamLike {
  if (typeof value !== 'object' || value === null) {
    throw new InvalidArgumentError('stream', 'a Stream from @baracuda/driver', value);
  }
  const { raw, device: own } = value as { raw?: unknown; device?: unknown };
  if (typeof raw !== 'bigint') {
    throw new InvalidArgumentError('stream', 'a Stream from @baracuda/driver', value);
  }
  if (raw < 0n || raw >= ADDRESS_END) {
    throw new InvalidArgumentError('stream.raw', 'a bigint from 0 to 2^64 - 1 (a CUstream)', raw);
  }
  checkDevice('stream', own, device);
  // The caller's object itself: the driver allocates and launches on it (it checks its class).
  return value as StreamLike;
}

/** alpha or beta: a finite number, finite in f32 too unless the plan scales in f64. */
function scale(name: string, value: unknown, fallback: number, f64: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidArgumentError(name, 'a finite number', value);
  }
  if (!f64 && !Number.isFinite(Math.fround(value))) {
    throw new InvalidArgumentError(
      name,
      "a finite number within the f32 range (the plan's alpha and beta are f32)",
      value,
    );
  }
  return value;
}

const NO_WORKSPACE: DeviceSlice = Object.freeze({ devicePtr: 0n, byteLength: 0 });
const WORKSPACE_EXPECTED = 'a DeviceSlice, a Workspace or undefined';

/**
 * The caller's workspace as a slice (null: the plan's own). A Workspace's slice must be a
 * DeviceSlice itself (it is not unwrapped again, so a workspace that contains itself is refused,
 * not followed). An empty slice may have address 0.
 */
export function workspaceSlice(value: unknown, device: DeviceLike): DeviceSlice | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object') {
    throw new InvalidArgumentError('workspace', WORKSPACE_EXPECTED, value);
  }
  const kind = (value as { kind?: unknown }).kind;
  if (kind === 'none') return NO_WORKSPACE;
  if (kind === 'borrowed') {
    const slice = (value as { slice?: unknown }).slice;
    // Not another Workspace (a workspace that is its own slice, say): one level only.
    if (
      typeof slice !== 'object' ||
      slice === null ||
      (slice as { kind?: unknown }).kind !== undefined
    ) {
      throw new InvalidArgumentError('workspace.slice', 'a DeviceSlice', slice);
    }
    return deviceSlice('workspace.slice', slice, 'a DeviceSlice', device, true);
  }
  return deviceSlice('workspace', value, WORKSPACE_EXPECTED, device, true);
}

function isTensorRef(value: object): boolean {
  return 'shape' in value && 'data' in value;
}

/** What the checks need of one operand of a descriptor, and of its element. */
interface OperandShape {
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  /** Bytes the operand's dense tensor takes. */
  readonly needed: number;
}
interface OperandLayout extends Record<Operand, OperandShape> {
  readonly elementBytes: number;
  readonly elementBytesBig: bigint;
}

/**
 * Per descriptor (immutable), computed on its first run: a run reads each shape, stride and size
 * from here instead of through the descriptor's getters and element table on every call.
 */
const LAYOUTS = new WeakMap<Conv3dDescriptor, OperandLayout>();

function operandLayout(d: Conv3dDescriptor): OperandLayout {
  let layout = LAYOUTS.get(d);
  if (layout === undefined) {
    const elementBytes = d.elementBytes;
    layout = {
      elementBytes,
      elementBytesBig: BigInt(elementBytes),
      x: { shape: d.xShape, strides: d.xStrides, needed: d.xElements * elementBytes },
      w: { shape: d.wShape, strides: d.wStrides, needed: d.wElements * elementBytes },
      y: { shape: d.yShape, strides: d.yStrides, needed: d.yElements * elementBytes },
    };
    LAYOUTS.set(d, layout);
  }
  return layout;
}

/** Check one tensor argument (a TensorRef or a DeviceSlice); returns its device pointer. */
function tensorPointer(
  name: string,
  arg: unknown,
  { shape, strides, needed }: OperandShape,
  { elementBytes, elementBytesBig }: OperandLayout,
  target: RunTarget,
): bigint {
  if (typeof arg !== 'object' || arg === null) {
    throw new InvalidArgumentError(name, 'a TensorRef or a DeviceSlice', arg);
  }
  const d = target.descriptor;
  let slice: unknown = arg;
  if (isTensorRef(arg)) {
    const ref = arg as { element?: unknown; shape?: unknown; strides?: unknown; data?: unknown };
    const element = ref.element;
    if (element !== d.element) {
      throw new InvalidArgumentError(`${name}.element`, `element ${d.element}`, element);
    }
    const given = ref.shape;
    if (!Array.isArray(given) || !sameArray(given, shape)) {
      throw new InvalidProblemError(
        `Expected ${name} of shape [${shape.join(', ')}] but received shape ${listed(given)}`,
        name,
      );
    }
    const steps = ref.strides;
    if (!Array.isArray(steps) || !sameArray(steps, strides)) {
      throw new InvalidProblemError(
        `Expected ${name} with the dense ${d.layout} strides [${strides.join(', ')}] but received strides ${listed(steps)}`,
        name,
      );
    }
    slice = ref.data;
    if (typeof slice !== 'object' || slice === null) {
      throw new InvalidArgumentError(`${name}.data`, 'a DeviceSlice', slice);
    }
  }
  const expected = slice === arg ? 'a TensorRef or a DeviceSlice' : 'a DeviceSlice';
  const where = slice === arg ? name : `${name}.data`;
  const { devicePtr, byteLength } = deviceSlice(
    where,
    slice as object,
    expected,
    target.device,
    false,
  );
  if (byteLength < needed) throw new BufferTooSmallError(name, needed, byteLength);
  if (devicePtr % elementBytesBig !== 0n) {
    // A kernel would fault on it (misaligned address), poisoning the CUDA context.
    throw new InvalidArgumentError(
      `${name} device address`,
      `a multiple of ${elementBytes} bytes (one ${d.element} element)`,
      `0x${devicePtr.toString(16)}`,
    );
  }
  return devicePtr;
}

/**
 * A device range: `devicePtr` a bigint in [1, 2^64) (0 too for an empty range where `empty` is
 * allowed), `byteLength` a safe non-negative integer, the range ending by 2^64, and the buffer's
 * device (where it tells one) the plan's. Each property is read once.
 */
function deviceSlice(
  name: string,
  slice: object,
  expected: string,
  device: DeviceLike,
  emptyAtZero: boolean,
): DeviceSlice {
  const { devicePtr, byteLength, device: own } = slice as Record<string, unknown>;
  if (typeof devicePtr !== 'bigint' && typeof byteLength !== 'number') {
    throw new InvalidArgumentError(name, expected, slice);
  }
  if (typeof byteLength !== 'number' || !Number.isSafeInteger(byteLength) || byteLength < 0) {
    throw new InvalidArgumentError(`${name}.byteLength`, BYTE_LENGTH, byteLength);
  }
  const zeroOk = emptyAtZero && byteLength === 0;
  if (typeof devicePtr !== 'bigint' || devicePtr < (zeroOk ? 0n : 1n) || devicePtr >= ADDRESS_END) {
    throw new InvalidArgumentError(
      `${name}.devicePtr`,
      zeroOk ? 'a bigint from 0 to 2^64 - 1 (a device address)' : DEVICE_ADDRESS,
      devicePtr,
    );
  }
  // byteLength is a safe integer (< 2^53): only an address within 2^53 of the end can overflow,
  // and the common case compares with a constant instead of allocating two bigints.
  const room = devicePtr < NEAR_END ? ADDRESS_END : ADDRESS_END - devicePtr;
  if (devicePtr >= NEAR_END && BigInt(byteLength) > room) {
    throw new InvalidArgumentError(
      `${name}.byteLength`,
      `at most ${room} bytes (a range from 0x${devicePtr.toString(16)} ends by 2^64)`,
      byteLength,
    );
  }
  checkDevice(name, own, device);
  return { devicePtr, byteLength };
}

/** Where a stream or buffer tells its device (a driver object does), it must be the plan's. */
function checkDevice(name: string, own: unknown, device: DeviceLike): void {
  if (typeof own !== 'object' || own === null) return;
  const ordinal = (own as { ordinal?: unknown }).ordinal;
  if (typeof ordinal === 'number' && ordinal !== device.ordinal) {
    throw new InvalidArgumentError(
      `${name}.device.ordinal`,
      `device ${device.ordinal} (the plan's device)`,
      ordinal,
    );
  }
}

function sameArray(a: readonly unknown[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** An array as `[1, 2, 3]` (at most 16 entries, anything but a number described), else described. */
function listed(value: unknown): string {
  if (!Array.isArray(value)) return describeValue(value);
  const shown = value
    .slice(0, 16)
    .map((v) => (typeof v === 'number' ? String(v) : describeValue(v)));
  return `[${shown.join(', ')}${value.length > 16 ? ', …' : ''}]`;
}

/**
 * Check one tensor argument of any dense shape in the descriptor's element (the epilogue's bias,
 * residual and gradients: epilogue/run-args.ts) exactly as the pass operands are checked; returns
 * its device pointer.
 */
export function checkTensorArg(
  name: string,
  arg: unknown,
  shape: readonly number[],
  strides: readonly number[],
  target: RunTarget,
): bigint {
  const layout = operandLayout(target.descriptor);
  const needed = shape.reduce((a, b) => a * b, 1) * layout.elementBytes;
  return tensorPointer(name, arg, { shape, strides, needed }, layout, target);
}
