/**
 * Our kernel modules, loaded once per device and process (the layout transposes, the depthwise
 * kernels, ...), from the SASS cubin of the device's architecture when we ship one, else from
 * the PTX.
 * @internal
 */
import { brotliDecompressSync } from 'node:zlib';
import { type DeviceLike, driver, type KernelFunctionLike } from './sys.js';

/** Loads a PTX image (text) or a cubin (bytes) on a device and looks kernels up by name. */
export type ModuleLoader = (
  image: string | Uint8Array,
  device: DeviceLike,
) => { getFunction(name: string): KernelFunctionLike; dispose?(): void };

/** One generated unit (src/<unit>-ptx.ts): its PTX and its packed cubins per architecture. */
export interface KernelImages {
  /** Its name in {@link moduleSources} ('depthwise'). */
  readonly unit: string;
  readonly ptx: string;
  /** scripts/gen-sass.mjs's map: 'sm_90' to the cubin, brotli-compressed, as base64. */
  readonly sass: Readonly<Record<string, string>>;
}

function loadWithDriver(image: string | Uint8Array, device: DeviceLike) {
  return driver.Module.load(image, device);
}

/** Where each unit's last load came from: 'sass sm_90', 'ptx', or 'failed'. */
const sources = new Map<string, string>();

/** @internal Each unit's last module load's image ('sass sm_90', 'ptx' or 'failed'), by unit. */
export function moduleSources(): Record<string, string> {
  return Object.fromEntries(sources);
}

/** The cubin of `sass` for `device`'s exact architecture, unpacked; null when we ship none. */
export function cubinFor(
  sass: Readonly<Record<string, string>>,
  device: DeviceLike,
): { arch: string; image: Uint8Array } | null {
  const { major, minor } = device.computeCapability;
  const arch = `sm_${major}${minor}`;
  const packed = Object.hasOwn(sass, arch) ? sass[arch] : undefined;
  if (packed === undefined) return null;
  return { arch, image: brotliDecompressSync(Buffer.from(packed, 'base64')) };
}

/**
 * What `make` builds from `images` loaded on `device`, remembered in `cache` (per device
 * ordinal). The cubin of the device's architecture is tried first: it needs no JIT (the driver
 * compiling our PTX took 6.2 s per fresh process on the H200, run 73). When there is none, or
 * it does not load or build (a driver older than the nvcc that made it rejects it), the PTX is
 * loaded instead, and nothing of the cubin's failure is kept. When the PTX fails too (for
 * example a CUDA driver too old to compile it), its Error is remembered, so a failure is not
 * retried on every call.
 */
export function perDevice<T>(
  cache: Map<number, T | Error>,
  device: DeviceLike,
  images: KernelImages,
  load: ModuleLoader = loadWithDriver,
  make: (module: ReturnType<ModuleLoader>) => T,
): T | Error {
  const known = cache.get(device.ordinal);
  if (known !== undefined) return known;
  let result: T | Error | undefined;
  let cubin: ReturnType<typeof cubinFor> = null;
  try {
    cubin = cubinFor(images.sass, device);
  } catch {
    // A corrupt map entry: the PTX below still serves.
  }
  if (cubin !== null) {
    result = tryLoad(cubin.image, device, load, make);
    if (result instanceof Error) result = undefined;
    else sources.set(images.unit, `sass ${cubin.arch}`);
  }
  if (result === undefined) {
    result = tryLoad(images.ptx, device, load, make);
    sources.set(images.unit, result instanceof Error ? 'failed' : 'ptx');
  }
  cache.set(device.ordinal, result);
  return result;
}

/** `make` of `image` loaded; the Error when either throws (a module made but not built is unloaded). */
function tryLoad<T>(
  image: string | Uint8Array,
  device: DeviceLike,
  load: ModuleLoader,
  make: (module: ReturnType<ModuleLoader>) => T,
): T | Error {
  let module: ReturnType<ModuleLoader> | undefined;
  try {
    module = load(image, device);
    return make(module);
  } catch (error) {
    try {
      module?.dispose?.();
    } catch {
      // Unloading is best effort: the error that matters is the one being returned.
    }
    return error instanceof Error ? error : new Error(String(error));
  }
}
