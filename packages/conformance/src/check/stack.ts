/**
 * The one file that touches the real GPU packages. It adapts driver + cudnn-sys + kernels to
 * the runner's `GpuApi`; TypeScript checks here that the contract in docs/ARCHITECTURE.md and
 * the runner agree. The packages are imported lazily so that `--help`, the CPU demo and a
 * machine without a GPU never load a native addon they do not need.
 */
import type { Stream } from '@baracuda/driver';
import { UnetStage } from '../stage/unet-stage.js';
import type {
  GpuApi,
  GpuOpenResult,
  GpuPlan,
  GpuStream,
  Pass,
  PlanRequest,
  StageRequest,
  TransposePlanRequest,
} from './gpu-api.js';
import {
  cudnnSolutions,
  describeAlgorithm,
  errorText,
  firstLine,
  formatDriverVersion,
  formatSearched,
  solutionsOf,
} from './stack-text.js';
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

function unavailable(reason: string, details: string[], solutions: string[] = []): GpuOpenResult {
  return { available: false, reason, details, solutions };
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
      selectStage: async (stream: GpuStream, request: StageRequest) => {
        return UnetStage.create(kernels, stream as Stream, request.shape, request.dtype, (bytes) =>
          driver.DeviceBuffer.alloc(bytes, { device }),
        );
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
