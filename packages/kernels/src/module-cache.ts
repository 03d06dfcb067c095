/**
 * Our PTX modules, loaded once per device and process (the layout transposes, the depthwise
 * kernels).
 * @internal
 */
import { type DeviceLike, driver, type KernelFunctionLike } from './sys.js';

/** Loads a PTX image on a device and looks kernels up by name. */
export type ModuleLoader = (
  ptx: string,
  device: DeviceLike,
) => { getFunction(name: string): KernelFunctionLike };

function loadWithDriver(ptx: string, device: DeviceLike) {
  return driver.Module.load(ptx, device);
}

/**
 * What `make` builds from `ptx` loaded on `device`, remembered in `cache` (per device ordinal),
 * including the Error when it cannot load there (for example a CUDA driver too old to compile
 * the PTX), so a failure is not retried on every call.
 */
export function perDevice<T>(
  cache: Map<number, T | Error>,
  device: DeviceLike,
  ptx: string,
  load: ModuleLoader = loadWithDriver,
  make: (module: ReturnType<ModuleLoader>) => T,
): T | Error {
  const known = cache.get(device.ordinal);
  if (known !== undefined) return known;
  let result: T | Error;
  try {
    result = make(load(ptx, device));
  } catch (error) {
    result = error instanceof Error ? error : new Error(String(error));
  }
  cache.set(device.ordinal, result);
  return result;
}
