/**
 * The one file that touches the real GPU packages. It adapts driver + cudnn-sys + kernels to
 * the runner's `GpuApi`; TypeScript checks here that the contract in docs/ARCHITECTURE.md and
 * the runner agree. The packages are imported lazily so that `--help`, the CPU demo and a
 * machine without a GPU never load a native addon they do not need.
 */
import type { Stream } from '@baracuda/driver';
import type {
  GpuApi,
  GpuOpenResult,
  GpuPlan,
  GpuStream,
  Pass,
  PlanRequest,
  TransposePlanRequest,
} from './gpu-api.js';
import { storageElement } from './tolerances.js';

/** Options of {@link openGpu}. */
export interface OpenGpuOptions {
  /** CUDA device ordinal. Defaults to `0`. */
  ordinal?: number;
  /**
   * Receives autotune's progress lines (Conv3dPlan's `onProgress`). Defaults to `undefined`:
   * the plan's own default (lines on stderr after 1 s of tuning).
   */
  onProgress?: (message: string) => void;
}

/** @internal The "Possible solutions" lines of a LibraryNotFoundError's message, or []. */
export function solutionsOf(message: string | null | undefined): string[] {
  const at = message?.indexOf('\nPossible solutions:\n') ?? -1;
  if (!message || at < 0) return [];
  return message
    .slice(at + '\nPossible solutions:\n'.length)
    .split('\n')
    .filter((line) => line.startsWith('  - '))
    .map((line) => line.slice(4));
}

/** @internal Format a CUDA driver version number (12040 → "12.4"). */
export function formatDriverVersion(version: number | null | undefined): string {
  if (typeof version !== 'number' || !Number.isFinite(version)) return 'unknown';
  return `${Math.floor(version / 1000)}.${(version % 1000) / 10}`;
}

/** @internal One line per search attempt, whatever shape the probe reports it in. */
export function formatSearched(searched: unknown): string[] {
  if (!Array.isArray(searched)) return [];
  return searched.map((entry) => {
    if (typeof entry === 'string') return `    ${entry}`;
    if (entry && typeof entry === 'object') {
      const { path, error } = entry as { path?: unknown; error?: unknown };
      return `    ${String(path)}${error ? `: ${String(error)}` : ''}`;
    }
    return `    ${String(entry)}`;
  });
}

/** @internal A readable name for whatever `Conv3dPlan.algorithm(pass)` returns. */
export function describeAlgorithm(info: unknown): string {
  if (info === null || info === undefined) return '?';
  if (typeof info === 'string') return info;
  if (typeof info === 'object') {
    const record = info as Record<string, unknown>;
    const path = typeof record.path === 'string' ? `${record.path}: ` : '';
    for (const key of ['name', 'label', 'engine', 'algo']) {
      const value = record[key];
      if (typeof value === 'string' && value.length > 0) return `${path}${value}`;
    }
    return JSON.stringify(info, (_k, v) => (typeof v === 'bigint' ? `${v}` : v));
  }
  return String(info);
}

function firstLine(text: string | null | undefined): string {
  return text ? (text.split('\n')[0] ?? text) : 'no reason given';
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function unavailable(reason: string, details: string[], solutions: string[] = []): GpuOpenResult {
  return { available: false, reason, details, solutions };
}

/** cuDNN's own "Possible solutions": `load()` throws them when the probe found no cuDNN. */
export function cudnnSolutions(
  cudnn: Pick<typeof import('@baracuda/cudnn-sys'), 'load'>,
): string[] {
  try {
    cudnn.load();
    return [];
  } catch (error) {
    return solutionsOf(errorText(error));
  }
}

/**
 * Open the first (or the given) GPU through the real packages. Never throws: a missing driver,
 * cuDNN, addon or device comes back as `{available: false, reason, details}` where `details`
 * lists what each probe searched.
 */
export async function openGpu(options: OpenGpuOptions = {}): Promise<GpuOpenResult> {
  const ordinal = options.ordinal ?? 0;
  let driver: typeof import('@baracuda/driver');
  let cudnn: typeof import('@baracuda/cudnn-sys');
  let kernels: typeof import('@baracuda/kernels');
  try {
    driver = await import('@baracuda/driver');
    cudnn = await import('@baracuda/cudnn-sys');
    kernels = await import('@baracuda/kernels');
  } catch (error) {
    return unavailable(
      'the baracuda GPU packages could not be loaded',
      errorText(error).split('\n'),
      solutionsOf(errorText(error)),
    );
  }

  const details: string[] = [];
  const solutions: string[] = [];
  let driverOk = false;
  let cudnnOk = false;
  let driverVersion = 'unknown';
  try {
    const probe = driver.probe();
    driverVersion = formatDriverVersion(probe.driverVersion);
    driverOk = probe.available && probe.deviceCount > ordinal;
    details.push(
      `CUDA driver: ${probe.available ? `available, version ${driverVersion}, ${probe.deviceCount} device(s), ${probe.libraryPath ?? ''}` : `unavailable: ${firstLine(probe.reason)}`}`,
    );
    if (!probe.available) {
      const searched = formatSearched(probe.searched);
      if (searched.length > 0) details.push('  searched:', ...searched);
      solutions.push(...solutionsOf(probe.reason));
    } else if (!driverOk) {
      details.push(`  device ordinal ${ordinal} does not exist (${probe.deviceCount} device(s))`);
    }
  } catch (error) {
    details.push(`CUDA driver: probe failed: ${errorText(error)}`);
  }
  let cudnnVersion = 'unknown';
  let cudnnPath = '';
  try {
    const probe = cudnn.probe();
    if (probe.available && probe.version) {
      cudnnVersion = `${probe.version.major}.${probe.version.minor}.${probe.version.patch}`;
    }
    cudnnPath = probe.libraryPath ?? '';
    cudnnOk = probe.available;
    details.push(
      `cuDNN: ${probe.available ? `available, version ${cudnnVersion}, ${cudnnPath}` : `unavailable: ${firstLine(probe.reason)}`}`,
    );
    if (!probe.available) {
      const tried = formatSearched(probe.tried);
      if (tried.length > 0) details.push('  searched:', ...tried);
      solutions.push(...cudnnSolutions(cudnn));
    }
  } catch (error) {
    details.push(`cuDNN: probe failed: ${errorText(error)}`);
  }
  if (!driverOk || !cudnnOk) {
    const missing = [!driverOk ? 'no usable CUDA GPU' : '', !cudnnOk ? 'no cuDNN 9' : '']
      .filter(Boolean)
      .join(' and ');
    return unavailable(`${missing} found`, details, [...new Set(solutions)]);
  }

  try {
    const device = driver.Device.get(ordinal);
    const api: GpuApi = {
      info: {
        deviceName: device.name,
        ordinal: device.ordinal,
        computeCapability: `${device.computeCapability.major}.${device.computeCapability.minor}`,
        totalMemory: device.totalMemory,
        driverVersion,
        cudnnVersion,
        cudnnPath,
      },
      createStream: () => device.createStream({ nonBlocking: true }),
      alloc: (byteLength) => driver.DeviceBuffer.alloc(byteLength, { device }),
      createTimer: () => {
        const begin = driver.Event.create(device, { timing: true });
        const end = driver.Event.create(device, { timing: true });
        return {
          start: (stream) => begin.record(stream as Stream),
          stop: (stream) => {
            end.record(stream as Stream);
            end.synchronizeSync();
            return driver.Event.elapsedMs(begin, end);
          },
          dispose: () => {
            begin.dispose();
            end.dispose();
          },
        };
      },
      memoryInfo: () => device.memoryInfo(),
      selectPlan: async (stream: GpuStream, request: PlanRequest): Promise<GpuPlan> => {
        const p = request.problem;
        const descriptor = kernels.Conv3dDescriptor.create({
          batch: p.n,
          cIn: p.cIn,
          dIn: p.in[0],
          hIn: p.in[1],
          wIn: p.in[2],
          cOut: p.cOut,
          dFilt: p.k[0],
          hFilt: p.k[1],
          wFilt: p.k[2],
          element: storageElement(request.dtype),
        })
          .withPadding({ before: p.pad, after: p.padAfter ?? p.pad })
          .withStride(p.stride[0], p.stride[1], p.stride[2])
          .withDilation(p.dil[0], p.dil[1], p.dil[2])
          .withGroups(p.groups)
          .withLayout(p.layout);
        const plan = await kernels.Conv3dPlan.select(
          stream as Stream,
          descriptor,
          {
            algorithm: request.algorithm,
            allowTf32: request.dtype === 'tf32',
            math: request.dtype === '3xtf32' ? '3xtf32' : 'default',
            deterministic: request.deterministic ?? false,
          },
          options.onProgress ? { onProgress: options.onProgress } : undefined,
        );
        return gpuPlan(plan);
      },
      selectTransposePlan: async (
        stream: GpuStream,
        request: TransposePlanRequest,
      ): Promise<GpuPlan> => {
        const p = request.problem;
        const op = p.outputPadding ?? [0, 0, 0];
        const descriptor = kernels.ConvTranspose3dDescriptor.create({
          batch: p.n,
          cIn: p.cIn,
          dIn: p.in[0],
          hIn: p.in[1],
          wIn: p.in[2],
          cOut: p.cOut,
          dFilt: p.k[0],
          hFilt: p.k[1],
          wFilt: p.k[2],
          element: storageElement(request.dtype),
        })
          .withPadding({ before: p.pad, after: p.padAfter ?? p.pad })
          .withOutputPadding(op[0], op[1], op[2])
          .withStride(p.stride[0], p.stride[1], p.stride[2])
          .withDilation(p.dil[0], p.dil[1], p.dil[2])
          .withGroups(p.groups)
          .withLayout(p.layout);
        const plan = await kernels.ConvTranspose3dPlan.select(
          stream as Stream,
          descriptor,
          {
            algorithm: request.algorithm,
            allowTf32: request.dtype === 'tf32',
            deterministic: false,
          },
          options.onProgress ? { onProgress: options.onProgress } : undefined,
        );
        return gpuPlan(plan);
      },
    };
    return { available: true, api };
  } catch (error) {
    details.push(`opening device ${ordinal} failed: ${errorText(error)}`);
    return unavailable(`device ${ordinal} could not be opened`, details);
  }
}

/** A Conv3dPlan or a ConvTranspose3dPlan: the same method names and argument shapes. */
type KernelsPlan =
  | import('@baracuda/kernels').Conv3dPlan
  | import('@baracuda/kernels').ConvTranspose3dPlan;

/** A kernels plan seen through the runner's GpuPlan. */
function gpuPlan(plan: KernelsPlan): GpuPlan {
  return {
    workspaceSize: (pass: Pass) =>
      pass === 'fw'
        ? plan.queryFwWorkspaceSize()
        : pass === 'bwData'
          ? plan.queryBwDataWorkspaceSize()
          : plan.queryBwFilterWorkspaceSize(),
    run: (pass, { a, b, out, workspace, alpha, beta, stream: runStream }) => {
      const common = { workspace, alpha, beta, stream: runStream as Stream };
      if (pass === 'fw') plan.runFw({ x: a, w: b, y: out, ...common });
      else if (pass === 'bwData') plan.runBwData({ dy: a, w: b, dx: out, ...common });
      else plan.runDw({ x: a, dy: b, dw: out, ...common });
    },
    algorithmName: (pass) => describeAlgorithm(plan.algorithm(pass)),
    deterministic: () => plan.precisionGuarantee().deterministic,
    dispose: () => plan.dispose(),
  };
}

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
