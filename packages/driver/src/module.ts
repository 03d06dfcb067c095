/**
 * Kernels of our own: CUDA modules (PTX, cubin, fatbin), their functions, and
 * launches with a packed parameter buffer.
 */
import { DisposedError, InvalidArgumentError } from '@baracuda/types';
import { type Device, resolveDevice } from './device.js';
import { callNative, requireDriver, translateNativeError } from './driver.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import type { FunctionHandle, ModuleHandle, NativeBinding } from './native.js';
import { guardReceivers } from './receivers.js';
import { isStream } from './stream.js';
import { requireArrayBufferView } from './validate.js';

const MAX_GRID_X = 2 ** 31 - 1;
const MAX_GRID_YZ = 65535;
const MAX_BLOCK_XY = 1024;
const MAX_BLOCK_Z = 64;
const MAX_BLOCK_THREADS = 1024;
const MAX_U32 = 2 ** 32 - 1;
const MAX_U64 = 2n ** 64n - 1n;

/** A loaded CUDA module (PTX or cubin) on one device. */
export class Module {
  /** The device whose primary context holds the module. */
  readonly device: Device;
  #handle: ModuleHandle | null;
  readonly #functions = new Map<string, KernelFunction>();

  static {
    guardReceivers(Module, 'Module', (o) => typeof o === 'object' && o !== null && #functions in o);
  }

  private constructor(token: FactoryToken, device: Device, handle: ModuleHandle) {
    requireFactoryToken(token, 'Module', 'Module.load(image, device)');
    this.device = device;
    this.#handle = handle;
    // Frozen: no own property can shadow a getter this package reads (handle, disposed, ...).
    Object.freeze(this);
  }

  /**
   * Loads `image` (PTX text as a string, or cubin/fatbin/PTX bytes) into
   * `device`'s primary context (cuModuleLoadData). PTX is compiled for the
   * device here, by the driver's JIT. `device` defaults to device 0.
   */
  static load(image: string | Uint8Array, device?: Device): Module {
    const bytes = imageBytes(image);
    const target = resolveDevice('device', device);
    const handle = callNative((binding) => binding.moduleLoadData(target.ordinal, bytes));
    return new Module(FACTORY_TOKEN, target, handle);
  }

  /** True once `dispose()` has been called. */
  get disposed(): boolean {
    return this.#handle === null;
  }

  /** The live native handle; throws DisposedError after dispose. @internal */
  get handle(): ModuleHandle {
    if (this.#handle === null) throw new DisposedError('Module');
    return this.#handle;
  }

  /**
   * The kernel named `name` (its mangled name unless declared extern "C").
   * The same object is returned for the same name.
   */
  getFunction(name: string): KernelFunction {
    const handle = this.handle;
    if (typeof name !== 'string' || name.length === 0) {
      throw new InvalidArgumentError('name', 'a non-empty string', name);
    }
    if (name.includes('\0')) {
      throw new InvalidArgumentError('name', 'a kernel name without NUL characters', name);
    }
    const cached = this.#functions.get(name);
    if (cached) return cached;
    const { binding } = requireDriver();
    const fn = callNative((native) => native.moduleGetFunction(handle, name));
    const kernel = new KernelFunction(FACTORY_TOKEN, this, name, fn, binding);
    this.#functions.set(name, kernel);
    return kernel;
  }

  /**
   * Unloads the module (cuModuleUnload); idempotent. Its functions throw
   * DisposedError afterwards. When one of its kernels was launched, this first
   * waits for the device (cuCtxSynchronize): unloading a module while its
   * kernels may still run is undefined behaviour in CUDA.
   */
  dispose(): void {
    const handle = this.#handle;
    if (handle === null) return;
    this.#handle = null;
    this.#functions.clear();
    callNative((binding) => binding.moduleUnload(handle));
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** A kernel of a loaded {@link Module}. */
export class KernelFunction {
  /** The name it was looked up by. */
  readonly name: string;
  /** The module it belongs to (kept alive by this function). */
  readonly module: Module;
  readonly #handle: FunctionHandle;
  readonly #binding: NativeBinding;

  static {
    guardReceivers(
      KernelFunction,
      'KernelFunction',
      (o) => typeof o === 'object' && o !== null && #binding in o,
    );
  }

  /** @internal */
  constructor(
    token: FactoryToken,
    module: Module,
    name: string,
    handle: FunctionHandle,
    binding: NativeBinding,
  ) {
    requireFactoryToken(token, 'KernelFunction', 'module.getFunction(name)');
    this.module = module;
    this.name = name;
    this.#handle = handle;
    this.#binding = binding;
    Object.freeze(this);
  }

  /**
   * Enqueues the kernel on `stream` (a Stream, or any object with a `raw: bigint` CUstream such as cudnn-sys takes).
   * `params` holds the kernel's parameters packed as in memory, each at its natural alignment (cuLaunchKernel's
   * CU_LAUNCH_PARAM_BUFFER_POINTER); see `KernelParams`. The driver copies `params` before this returns, so the
   * buffer may be reused at once. Returns as soon as the launch is queued.
   */
  launch(
    stream: { readonly raw: bigint },
    grid: readonly [number, number, number],
    block: readonly [number, number, number],
    sharedBytes: number,
    params: Uint8Array,
  ): void {
    if (this.module.disposed) throw new DisposedError(`Module of KernelFunction ${this.name}`);
    if (typeof stream !== 'object' || stream === null) {
      throw new InvalidArgumentError(
        'stream',
        'a Stream or an object with a raw CUstream (bigint)',
        stream,
      );
    }
    const raw = stream.raw; // a disposed Stream throws DisposedError here
    if (typeof raw !== 'bigint' || raw < 0n || raw > MAX_U64) {
      throw new InvalidArgumentError('stream.raw', 'a CUstream as a 64-bit unsigned bigint', raw);
    }
    if (isStream(stream) && stream.device.ordinal !== this.module.device.ordinal) {
      throw new InvalidArgumentError(
        'stream',
        `a Stream on device ${this.module.device.ordinal}`,
        stream,
      );
    }
    if (!Array.isArray(grid) || grid.length !== 3) {
      throw new InvalidArgumentError('grid', 'an array of three positive integers', grid);
    }
    if (!Array.isArray(block) || block.length !== 3) {
      throw new InvalidArgumentError('block', 'an array of three positive integers', block);
    }
    const gridX = grid[0];
    const gridY = grid[1];
    const gridZ = grid[2];
    const blockX = block[0];
    const blockY = block[1];
    const blockZ = block[2];
    checkDimension('grid[0]', gridX, MAX_GRID_X);
    checkDimension('grid[1]', gridY, MAX_GRID_YZ);
    checkDimension('grid[2]', gridZ, MAX_GRID_YZ);
    checkDimension('block[0]', blockX, MAX_BLOCK_XY);
    checkDimension('block[1]', blockY, MAX_BLOCK_XY);
    checkDimension('block[2]', blockZ, MAX_BLOCK_Z);
    const threads = blockX * blockY * blockZ;
    if (threads > MAX_BLOCK_THREADS) {
      throw new InvalidArgumentError(
        'block[0] × block[1] × block[2]',
        `at most ${MAX_BLOCK_THREADS} threads`,
        threads,
      );
    }
    if (
      typeof sharedBytes !== 'number' ||
      !Number.isInteger(sharedBytes) ||
      sharedBytes < 0 ||
      sharedBytes > MAX_U32
    ) {
      throw new InvalidArgumentError('sharedBytes', `an integer from 0 to ${MAX_U32}`, sharedBytes);
    }
    if (!(params instanceof Uint8Array)) {
      throw new InvalidArgumentError('params', 'a Uint8Array (see KernelParams)', params);
    }
    requireArrayBufferView('params', params);
    // Reading stream.raw and the grid/block elements may have run user code that disposed the
    // module: checked again right before the native call.
    if (this.module.disposed) throw new DisposedError(`Module of KernelFunction ${this.name}`);
    try {
      this.#binding.launchKernel(
        this.#handle,
        gridX,
        gridY,
        gridZ,
        blockX,
        blockY,
        blockZ,
        sharedBytes,
        raw,
        params,
      );
    } catch (error) {
      throw translateNativeError(error);
    }
  }
}

function checkDimension(name: string, value: unknown, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new InvalidArgumentError(name, `an integer from 1 to ${max}`, value);
  }
}

function imageBytes(image: unknown): Uint8Array {
  const expected = 'PTX text (a non-empty string) or a non-empty Uint8Array (PTX, cubin or fatbin)';
  if (typeof image === 'string') {
    if (image.length === 0) throw new InvalidArgumentError('image', expected, image);
    // The driver reads PTX up to the first NUL: text after one would be dropped silently.
    if (image.includes('\0')) {
      throw new InvalidArgumentError('image', 'PTX text without NUL characters', image);
    }
    return new TextEncoder().encode(image);
  }
  if (!(image instanceof Uint8Array) || image.byteLength === 0) {
    throw new InvalidArgumentError('image', expected, image);
  }
  return image;
}

const KERNEL_PARAMS_DEFAULT_CAPACITY = 256;
/** CUDA takes at most 32764 bytes of kernel parameters (4096 before CUDA 12.1). */
const KERNEL_PARAMS_MAX_CAPACITY = 32768;

/**
 * Packs kernel parameters at their natural alignment, as a C compiler lays out
 * the kernel's parameter list: `new KernelParams().ptr(x).u32(n)` is 12 bytes
 * (`ptr` at 0, `u32` at 8), `u32(n).u64(m)` is 16 (4 bytes of padding).
 * Reuse one instance with `reset()` on hot paths: nothing is allocated unless
 * the buffer has to grow.
 */
export class KernelParams {
  #buffer: ArrayBuffer;
  #view: DataView;
  #length = 0;
  #bytes: Uint8Array | null = null;

  static {
    guardReceivers(
      KernelParams,
      'KernelParams',
      (o) => typeof o === 'object' && o !== null && #view in o,
    );
  }

  /**
   * `capacityBytes` is a first size, from 1 to 32768; the buffer grows as needed. Defaults to
   * `256`.
   */
  constructor(capacityBytes: number = KERNEL_PARAMS_DEFAULT_CAPACITY) {
    if (
      typeof capacityBytes !== 'number' ||
      !Number.isSafeInteger(capacityBytes) ||
      capacityBytes <= 0 ||
      capacityBytes > KERNEL_PARAMS_MAX_CAPACITY
    ) {
      throw new InvalidArgumentError(
        'capacityBytes',
        `an integer from 1 to ${KERNEL_PARAMS_MAX_CAPACITY} (CUDA takes at most 32764 bytes of kernel parameters)`,
        capacityBytes,
      );
    }
    this.#buffer = new ArrayBuffer(capacityBytes);
    this.#view = new DataView(this.#buffer);
  }

  /** Bytes packed so far. */
  get byteLength(): number {
    return this.#length;
  }

  /** An unsigned 32-bit integer (`unsigned int`), 4-byte aligned. */
  u32(v: number): this {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_U32) {
      throw new InvalidArgumentError('u32', `an integer from 0 to ${MAX_U32}`, v);
    }
    const offset = this.#reserve(4);
    this.#view.setUint32(offset, v, true);
    return this;
  }

  /** A signed 32-bit integer (`int`), 4-byte aligned. */
  i32(v: number): this {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v > 2 ** 31 - 1) {
      throw new InvalidArgumentError('i32', 'an integer from -2147483648 to 2147483647', v);
    }
    const offset = this.#reserve(4);
    this.#view.setInt32(offset, v, true);
    return this;
  }

  /** An unsigned 64-bit integer (`unsigned long long`, `size_t`), 8-byte aligned. */
  u64(v: bigint | number): this {
    let value: bigint;
    if (typeof v === 'bigint' && v >= 0n && v <= MAX_U64) value = v;
    else if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) value = BigInt(v);
    else {
      throw new InvalidArgumentError(
        'u64',
        'a bigint from 0n to 2n ** 64n - 1n, or a non-negative safe integer',
        v,
      );
    }
    const offset = this.#reserve(8);
    this.#view.setBigUint64(offset, value, true);
    return this;
  }

  /** A 32-bit float (`float`), 4-byte aligned. */
  f32(v: number): this {
    if (typeof v !== 'number') throw new InvalidArgumentError('f32', 'a number', v);
    const offset = this.#reserve(4);
    this.#view.setFloat32(offset, v, true);
    return this;
  }

  /** A 64-bit float (`double`), 8-byte aligned. */
  f64(v: number): this {
    if (typeof v !== 'number') throw new InvalidArgumentError('f64', 'a number', v);
    const offset = this.#reserve(8);
    this.#view.setFloat64(offset, v, true);
    return this;
  }

  /** A device pointer (`T*`, e.g. `DeviceBuffer.devicePtr`), 8-byte aligned. */
  ptr(v: bigint): this {
    if (typeof v !== 'bigint' || v < 0n || v > MAX_U64) {
      throw new InvalidArgumentError('ptr', 'a device pointer as a 64-bit unsigned bigint', v);
    }
    const offset = this.#reserve(8);
    this.#view.setBigUint64(offset, v, true);
    return this;
  }

  /** The packed bytes (a view; valid until the next reset). */
  bytes(): Uint8Array {
    if (this.#bytes === null || this.#bytes.byteLength !== this.#length) {
      this.#bytes = new Uint8Array(this.#buffer, 0, this.#length);
    }
    return this.#bytes;
  }

  /** Empties the buffer to pack the next launch's parameters. */
  reset(): this {
    this.#length = 0;
    return this;
  }

  /**
   * Pads to `size` (the value's natural alignment), grows if needed, returns the
   * value's offset. Call it before reading `#view`: growing replaces the view.
   */
  #reserve(size: number): number {
    const offset = (this.#length + size - 1) & ~(size - 1);
    const end = offset + size;
    if (end > this.#buffer.byteLength) {
      const grown = new ArrayBuffer(Math.max(end, this.#buffer.byteLength * 2));
      new Uint8Array(grown).set(new Uint8Array(this.#buffer, 0, this.#length));
      this.#buffer = grown;
      this.#view = new DataView(grown);
      this.#bytes = null;
    }
    // Padding is zeroed so equal parameters always pack to equal bytes.
    for (let i = this.#length; i < offset; i++) this.#view.setUint8(i, 0);
    this.#length = end;
    return offset;
  }
}
