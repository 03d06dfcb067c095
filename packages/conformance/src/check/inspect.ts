/**
 * `baracuda doctor`'s look at the GPU stack: the driver, the GPUs, cuDNN and the errata in force,
 * as this process finds them. Never throws; what is missing comes with the libraries' solutions.
 */
import {
  cudnnSolutions,
  errorText,
  firstLine,
  formatDriverVersion,
  solutionsOf,
} from './stack-text.js';

/** What `baracuda doctor` reports: the GPU stack as this process finds it. */
export interface StackReport {
  readonly driver: {
    readonly available: boolean;
    /** e.g. "13.0", or null when no driver loaded. */
    readonly version: string | null;
    readonly libraryPath: string | null;
    /** The first line of why it is unavailable, or null. */
    readonly reason: string | null;
  };
  readonly devices: ReadonlyArray<{
    readonly ordinal: number;
    readonly name: string;
    readonly computeCapability: string;
    readonly totalMemory: number;
  }>;
  readonly cudnn: {
    readonly available: boolean;
    /** e.g. "9.14.0", or null. */
    readonly version: string | null;
    readonly libraryPath: string | null;
    readonly reason: string | null;
  };
  /** Known cuDNN defects whose version range holds the loaded cuDNN (kernels' CONV3D_ERRATA). */
  readonly errata: ReadonlyArray<{ readonly id: string; readonly description: string }>;
  /** What to do, in the libraries' own words; empty when nothing is missing. */
  readonly solutions: readonly string[];
}

/** Inspect the driver, the GPUs, cuDNN and the errata in force. Never throws. */
export async function inspectStack(): Promise<StackReport> {
  let driver: typeof import('@baracuda/driver');
  let cudnn: typeof import('@baracuda/cudnn-sys');
  let kernels: typeof import('@baracuda/kernels');
  try {
    driver = await import('@baracuda/driver');
    cudnn = await import('@baracuda/cudnn-sys');
    kernels = await import('@baracuda/kernels');
  } catch (error) {
    const reason = firstLine(errorText(error));
    const missing = { available: false, version: null, libraryPath: null, reason };
    return {
      driver: missing,
      devices: [],
      cudnn: missing,
      errata: [],
      solutions: solutionsOf(errorText(error)),
    };
  }
  const solutions: string[] = [];
  const gpu = driver.probe();
  if (!gpu.available) solutions.push(...solutionsOf(gpu.reason));
  const devices: StackReport['devices'][number][] = [];
  for (let ordinal = 0; gpu.available && ordinal < gpu.deviceCount; ordinal++) {
    try {
      const device = driver.Device.get(ordinal);
      const { major, minor } = device.computeCapability;
      devices.push({
        ordinal,
        name: device.name,
        computeCapability: `${major}.${minor}`,
        totalMemory: device.totalMemory,
      });
    } catch (error) {
      devices.push({
        ordinal,
        name: `(${firstLine(errorText(error))})`,
        computeCapability: '?',
        totalMemory: 0,
      });
    }
  }
  const dnn = cudnn.probe();
  if (!dnn.available) solutions.push(...cudnnSolutions(cudnn));
  const raw = dnn.version?.raw;
  const errata =
    raw === undefined
      ? []
      : kernels.CONV3D_ERRATA.filter((e) => raw >= e.fromVersion && raw < e.toVersion).map((e) => ({
          id: e.id,
          description: e.description,
        }));
  return {
    driver: {
      available: gpu.available,
      version: gpu.driverVersion === null ? null : formatDriverVersion(gpu.driverVersion),
      libraryPath: gpu.libraryPath,
      reason: gpu.available ? null : firstLine(gpu.reason),
    },
    devices,
    cudnn: {
      available: dnn.available,
      version: dnn.version
        ? `${dnn.version.major}.${dnn.version.minor}.${dnn.version.patch}`
        : null,
      libraryPath: dnn.libraryPath,
      reason: dnn.available ? null : firstLine(dnn.reason),
    },
    errata,
    solutions: [...new Set(solutions)],
  };
}
