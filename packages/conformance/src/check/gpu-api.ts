/**
 * The narrow view of the GPU stack (driver + cudnn-sys + kernels) that the runner and the demo
 * use. `stack.ts` builds it from the real packages; the unit tests build it from a CPU fake, so
 * every runner rule (poison, unwritten elements, unsupported rows, error rows) is tested in CI.
 */
import type { DeviceSlice } from '@baracuda/types';
import type { ConvProblem, TransposeProblem } from '../reference/index.js';
import type { StageShape, StageTensor } from '../stage/shape.js';
import type { StageAlgorithm, StageDtype } from '../stage/unet-stage.js';
import type { CheckDtype } from './tolerances.js';

/** A convolution pass. `bwFilter` is the plan's `runDw`. */
export type Pass = 'fw' | 'bwData' | 'bwFilter';
/** Every Pass, in table order. */
export const PASSES: readonly Pass[] = ['fw', 'bwData', 'bwFilter'];

/** `PlanPreference.algorithm`. */
export type AlgoMode = 'pinned' | 'heuristic' | 'autotune';
/** Every AlgoMode, in table order. */
export const ALGO_MODES: readonly AlgoMode[] = ['pinned', 'heuristic', 'autotune'];

/** Device memory the runner allocates. */
export interface GpuBuffer extends DeviceSlice {
  uploadSync(src: ArrayBufferView): void;
  downloadSync(dst: ArrayBufferView): void;
  fillSync16(pattern: number): void;
  fillSync32(pattern: number): void;
  /** A view that keeps this buffer alive. */
  slice(byteOffset: number, byteLength: number): GpuBuffer;
  dispose(): void;
}

export interface GpuStream {
  readonly raw: bigint;
  synchronize(): Promise<void>;
  synchronizeSync(): void;
  dispose(): void;
}

export interface GpuTimer {
  /** Record the start event on a stream. */
  start(stream: GpuStream): void;
  /** Record the stop event, wait for it, and return the milliseconds since start. */
  stop(stream: GpuStream): number;
  dispose(): void;
}

/** Operands of one run call, named by role. */
export interface PassOperands {
  /** fw: x, bwData: dy, bwFilter: x. */
  readonly a: DeviceSlice;
  /** fw: w, bwData: w, bwFilter: dy. */
  readonly b: DeviceSlice;
  /** fw: y, bwData: dx, bwFilter: dw. */
  readonly out: DeviceSlice;
  readonly workspace?: DeviceSlice | undefined;
  readonly alpha?: number | undefined;
  readonly beta?: number | undefined;
  readonly stream: GpuStream;
}

/** A selected Conv3dPlan, seen through the runner's eyes. */
export interface GpuPlan {
  workspaceSize(pass: Pass): number;
  /** Enqueue one pass. Throws the kernels' typed errors. */
  run(pass: Pass, operands: PassOperands): void;
  /** The algorithm chosen for a pass, for humans. */
  algorithmName(pass: Pass): string;
  /** Whether the plan promises bit-identical results across runs. */
  deterministic(): boolean;
  dispose(): void;
}

/** How to select a plan. */
export interface PlanRequest {
  readonly problem: ConvProblem;
  readonly dtype: CheckDtype;
  readonly algorithm: AlgoMode;
  /** Defaults to `false`. */
  readonly deterministic?: boolean;
}

/** How to select a transposed-convolution plan (ConvTranspose3dPlan). */
export interface TransposePlanRequest {
  readonly problem: TransposeProblem;
  readonly dtype: CheckDtype;
  readonly algorithm: AlgoMode;
}

/** How to set up a U-Net stage training step (stage/shape.ts): heuristic plans. */
export interface StageRequest {
  readonly shape: StageShape;
  readonly dtype: StageDtype;
}

/** A U-Net stage on the GPU (stage/unet-stage.ts), seen through the demo's eyes. */
export interface GpuStage {
  /** Every tensor of the step, dense in the shape's layout. */
  readonly tensors: Readonly<Record<StageTensor, GpuBuffer>>;
  /** Enqueue the forward pass. */
  forward(stream: GpuStream): void;
  /** Enqueue the backward pass of ⟨y, dy⟩. */
  backward(stream: GpuStream): void;
  algorithms(): readonly StageAlgorithm[];
  dispose(): void;
}

/** What the top of every report prints. */
export interface GpuInfo {
  readonly deviceName: string;
  readonly ordinal: number;
  readonly computeCapability: string;
  readonly totalMemory: number;
  readonly driverVersion: string;
  readonly cudnnVersion: string;
  readonly cudnnPath: string;
}

/** The GPU, open and ready. */
export interface GpuApi {
  readonly info: GpuInfo;
  createStream(): GpuStream;
  alloc(byteLength: number): GpuBuffer;
  createTimer(): GpuTimer;
  selectPlan(stream: GpuStream, request: PlanRequest): Promise<GpuPlan>;
  /**
   * A ConvTranspose3dPlan seen through the same GpuPlan: run(pass) takes (a, b, out) = (x, w, y)
   * forward, (dy, w, dx) backward-data, (x, dy, dw) backward-filter. Absent on a stack without
   * one (its rows are unsupported).
   */
  selectTransposePlan?(stream: GpuStream, request: TransposePlanRequest): Promise<GpuPlan>;
  /** A U-Net stage step's plans and tensors. Absent on a stack without one. */
  selectStage?(stream: GpuStream, request: StageRequest): Promise<GpuStage>;
  /** Free and total device memory in bytes. */
  memoryInfo(): { free: number; total: number };
}

/** Why no GPU could be opened, and where we looked. */
export interface GpuUnavailable {
  readonly available: false;
  /** One line. */
  readonly reason: string;
  /** Human-readable lines: the driver probe, the cuDNN probe, every path searched. */
  readonly details: readonly string[];
  /**
   * What to do, in the libraries' own words (the "Possible solutions" of their
   * LibraryNotFoundError: the apt command, BARACUDA_CUDA_DRIVER_LIBRARY, `--gpus all`, …).
   */
  readonly solutions?: readonly string[];
}

export type GpuOpenResult = { readonly available: true; readonly api: GpuApi } | GpuUnavailable;
