/**
 * The ONLY module of @baracuda/kernels that touches @baracuda/cudnn-sys and @baracuda/driver.
 * It states, as interfaces, exactly what kernels calls, and adapts the raw results (`{status,
 * ...outputs}`) so that integration fixes stay in this one file.
 * @internal
 */
import * as cudnnModule from '@baracuda/cudnn-sys';
import * as driverModule from '@baracuda/driver';
import type { DeviceSlice, ElementKind } from '@baracuda/types';

/** Opaque cuDNN objects (type-tagged native objects in cudnn-sys). */
export type CudnnHandle = object;
export type BackendDescriptor = object;
export type LegacyDescriptor = object;

type Status = number;
type Result = { status: Status } & Record<string, unknown>;

/** What kernels calls in cudnn-sys (C names, C argument order, outputs returned). */
interface CudnnSys {
  probe(): { available: boolean; version: { raw: number } | null; reason?: string | null };
  load(): unknown;
  cudnnStatusName?(status: number): string;
  cudnnGetErrorString?(status: number): string;
  cudnnGetLastErrorString?(): unknown;
  cudnnGetVersion(): number | bigint;
  cudnnCreate(): Result;
  cudnnDestroy(handle: CudnnHandle): Status;
  cudnnSetStream(handle: CudnnHandle, stream: bigint): Status;
  cudnnBackendCreateDescriptor(type: number): Result;
  cudnnBackendDestroyDescriptor(desc: BackendDescriptor): Status;
  cudnnBackendFinalize(desc: BackendDescriptor): Status;
  cudnnBackendSetAttribute(
    desc: BackendDescriptor,
    name: number,
    type: number,
    values: unknown,
  ): Status;
  cudnnBackendGetAttribute(
    desc: BackendDescriptor,
    name: number,
    type: number,
    requestedElementCount: number,
    outDescriptors?: BackendDescriptor[],
  ): { status: Status; elementCount: number | bigint; values: unknown };
  cudnnBackendExecute(
    handle: CudnnHandle,
    plan: BackendDescriptor,
    variantPack: BackendDescriptor,
  ): Status;
  cudnnCreateTensorDescriptor(): Result;
  cudnnDestroyTensorDescriptor(desc: LegacyDescriptor): Status;
  cudnnSetTensorNdDescriptor(
    desc: LegacyDescriptor,
    dataType: number,
    nbDims: number,
    dimA: Int32Array | number[],
    strideA: Int32Array | number[],
  ): Status;
  cudnnTransformTensor(
    handle: CudnnHandle,
    alpha: Float32Array | Float64Array,
    xDesc: LegacyDescriptor,
    x: bigint,
    beta: Float32Array | Float64Array,
    yDesc: LegacyDescriptor,
    y: bigint,
  ): Status;
  cudnnCreateFilterDescriptor(): Result;
  cudnnDestroyFilterDescriptor(desc: LegacyDescriptor): Status;
  cudnnSetFilterNdDescriptor(
    desc: LegacyDescriptor,
    dataType: number,
    format: number,
    nbDims: number,
    filterDimA: Int32Array | number[],
  ): Status;
  cudnnCreateConvolutionDescriptor(): Result;
  cudnnDestroyConvolutionDescriptor(desc: LegacyDescriptor): Status;
  cudnnSetConvolutionNdDescriptor(
    desc: LegacyDescriptor,
    arrayLength: number,
    padA: Int32Array | number[],
    filterStrideA: Int32Array | number[],
    dilationA: Int32Array | number[],
    mode: number,
    computeType: number,
  ): Status;
  cudnnSetConvolutionGroupCount(desc: LegacyDescriptor, groupCount: number): Status;
  cudnnSetConvolutionMathType(desc: LegacyDescriptor, mathType: number): Status;
  cudnnGetConvolutionForwardWorkspaceSize(...args: unknown[]): Result;
  cudnnGetConvolutionBackwardDataWorkspaceSize(...args: unknown[]): Result;
  cudnnGetConvolutionBackwardFilterWorkspaceSize(...args: unknown[]): Result;
  cudnnGetConvolutionForwardAlgorithm_v7(...args: unknown[]): Result;
  cudnnGetConvolutionBackwardDataAlgorithm_v7(...args: unknown[]): Result;
  cudnnGetConvolutionBackwardFilterAlgorithm_v7(...args: unknown[]): Result;
  cudnnConvolutionForward(...args: unknown[]): Status;
  cudnnConvolutionBackwardData(...args: unknown[]): Status;
  cudnnConvolutionBackwardFilter(...args: unknown[]): Status;
}

/** What kernels uses of the driver. */
export interface StreamLike {
  readonly raw: bigint;
  readonly device?: DeviceLike;
}
export interface DeviceLike {
  readonly ordinal: number;
  readonly name: string;
  readonly computeCapability: { major: number; minor: number };
  readonly arch?: string;
  /** Make the device's primary context current on this thread (cuDNN uses the current context). */
  makeCurrent?(): void;
  /** Free and total device memory now (`cuMemGetInfo`). */
  memoryInfo?(): { readonly free: number; readonly total: number };
}
export interface OwnedBuffer extends DeviceSlice {
  dispose(): void;
  uploadSync(src: ArrayBufferView, byteOffset?: number): void;
  /** Queue a copy of all of `src` (same device) to the start of this buffer. */
  copyFrom(src: DeviceSlice, stream: StreamLike): void;
}
export interface TimingEvent {
  record(stream: StreamLike): void;
  synchronizeSync(): void;
  synchronize(): Promise<void>;
  dispose(): void;
}
/** A kernel of a loaded module (driver's KernelFunction). */
export interface KernelFunctionLike {
  launch(
    stream: StreamLike,
    grid: readonly [number, number, number],
    block: readonly [number, number, number],
    sharedBytes: number,
    params: Uint8Array,
  ): void;
}
/** Kernel parameters packed at their natural alignment (driver's KernelParams). */
export interface KernelParamsLike {
  reset(): this;
  ptr(v: bigint): this;
  u64(v: bigint | number): this;
  i32(v: number): this;
  f32(v: number): this;
  f64(v: number): this;
  bytes(): Uint8Array;
}
interface DriverSys {
  Device: { get(ordinal?: number): DeviceLike };
  KernelParams: new (capacityBytes?: number) => KernelParamsLike;
  Module: {
    load(
      image: string | Uint8Array,
      device?: DeviceLike,
    ): {
      getFunction(name: string): KernelFunctionLike;
    };
  };
  DeviceBuffer: {
    alloc(byteLength: number, opts?: { device?: DeviceLike; stream?: StreamLike }): OwnedBuffer;
  };
  Event: {
    create(device?: DeviceLike, opts?: { timing?: boolean; blockingSync?: boolean }): TimingEvent;
    elapsedMs(start: TimingEvent, end: TimingEvent): number;
  };
}

/** @internal */
export const cudnn = cudnnModule as unknown as CudnnSys;
/** @internal */
export const driver = driverModule as unknown as DriverSys;

/** cuDNN 9 enum values we use. cudnn-sys exports them under the same C names; ours are the fallback. */
const FALLBACK = {
  CUDNN_STATUS_SUCCESS: 0,
  CUDNN_STATUS_NOT_SUPPORTED: 3000,
  CUDNN_DATA_FLOAT: 0,
  CUDNN_DATA_DOUBLE: 1,
  CUDNN_DATA_HALF: 2,
  CUDNN_DATA_BFLOAT16: 9,
  CUDNN_TENSOR_NCHW: 0,
  CUDNN_TENSOR_NHWC: 1,
  CUDNN_CROSS_CORRELATION: 1,
  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: 0,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_1: 1,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1: 1,
  // cudnnBackendAttributeType_t
  CUDNN_TYPE_HANDLE: 0,
  CUDNN_TYPE_DATA_TYPE: 1,
  CUDNN_TYPE_BOOLEAN: 2,
  CUDNN_TYPE_INT64: 3,
  CUDNN_TYPE_FLOAT: 4,
  CUDNN_TYPE_DOUBLE: 5,
  CUDNN_TYPE_VOID_PTR: 6,
  CUDNN_TYPE_CONVOLUTION_MODE: 7,
  CUDNN_TYPE_HEUR_MODE: 8,
  CUDNN_TYPE_KNOB_TYPE: 9,
  CUDNN_TYPE_NUMERICAL_NOTE: 11,
  CUDNN_TYPE_BACKEND_DESCRIPTOR: 15,
  // cudnnBackendDescriptorType_t
  CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: 1,
  CUDNN_BACKEND_ENGINE_DESCRIPTOR: 2,
  CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: 3,
  CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: 4,
  CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: 5,
  CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR: 7,
  CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR: 8,
  CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR: 10,
  CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR: 11,
  CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR: 12,
  CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: 15,
  CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: 16,
  CUDNN_BACKEND_TENSOR_DESCRIPTOR: 17,
  // cudnnBackendHeurMode_t
  CUDNN_HEUR_MODE_INSTANT: 0,
  CUDNN_HEUR_MODE_B: 1,
  CUDNN_HEUR_MODE_FALLBACK: 2,
  CUDNN_HEUR_MODE_A: 3,
  // cudnnBackendAttributeName_t
  CUDNN_ATTR_CONVOLUTION_COMP_TYPE: 100,
  CUDNN_ATTR_CONVOLUTION_CONV_MODE: 101,
  CUDNN_ATTR_CONVOLUTION_DILATIONS: 102,
  CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES: 103,
  CUDNN_ATTR_CONVOLUTION_POST_PADDINGS: 104,
  CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS: 105,
  CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS: 106,
  CUDNN_ATTR_ENGINEHEUR_MODE: 200,
  CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH: 201,
  CUDNN_ATTR_ENGINEHEUR_RESULTS: 202,
  CUDNN_ATTR_ENGINECFG_ENGINE: 300,
  CUDNN_ATTR_ENGINECFG_KNOB_CHOICES: 302,
  CUDNN_ATTR_EXECUTION_PLAN_HANDLE: 400,
  CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG: 401,
  CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE: 402,
  CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE: 600,
  CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE: 601,
  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA: 700,
  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA: 701,
  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC: 702,
  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W: 703,
  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X: 704,
  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y: 705,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA: 706,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA: 707,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC: 708,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W: 709,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX: 710,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY: 711,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA: 712,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA: 713,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC: 714,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW: 715,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X: 716,
  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY: 717,
  CUDNN_ATTR_OPERATIONGRAPH_HANDLE: 800,
  CUDNN_ATTR_OPERATIONGRAPH_OPS: 801,
  CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT: 900,
  CUDNN_ATTR_TENSOR_DATA_TYPE: 901,
  CUDNN_ATTR_TENSOR_DIMENSIONS: 902,
  CUDNN_ATTR_TENSOR_STRIDES: 903,
  CUDNN_ATTR_TENSOR_UNIQUE_ID: 906,
  CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS: 1000,
  CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS: 1001,
  CUDNN_ATTR_VARIANT_PACK_WORKSPACE: 1003,
  CUDNN_ATTR_KNOB_INFO_TYPE: 1200,
  CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE: 1201,
  CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE: 1202,
  CUDNN_ATTR_KNOB_INFO_STRIDE: 1203,
  CUDNN_ATTR_ENGINE_OPERATION_GRAPH: 1300,
  CUDNN_ATTR_ENGINE_GLOBAL_INDEX: 1301,
  CUDNN_ATTR_ENGINE_KNOB_INFO: 1302,
  CUDNN_ATTR_ENGINE_NUMERICAL_NOTE: 1303,
} as const;

export type ConstantName = keyof typeof FALLBACK;

/** A cuDNN constant: cudnn-sys's export when it has one, else our cuDNN 9 value. */
export const C: { readonly [K in ConstantName]: number } = (() => {
  const out: Record<string, number> = {};
  const exported = cudnnModule as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(FALLBACK)) {
    const v = exported[name];
    out[name] = typeof v === 'number' ? v : value;
  }
  return Object.freeze(out) as { readonly [K in ConstantName]: number };
})();

/** The one output of a raw call that returns `{status, <output>}`. */
export function outputOf<T>(result: Result, preferred?: string): T {
  if (preferred !== undefined && preferred in result) return result[preferred] as T;
  for (const [key, value] of Object.entries(result)) {
    if (key !== 'status') return value as T;
  }
  return undefined as T;
}

/** The name of a cudnnStatus_t value. */
export function statusName(status: number): string {
  try {
    const name = cudnn.cudnnStatusName?.(status);
    if (typeof name === 'string' && name) return name;
  } catch {
    // fall through
  }
  return `CUDNN_STATUS_${status}`;
}

/** cuDNN's last error string ('' when none or unavailable). */
export function lastErrorString(): string {
  try {
    const r = cudnn.cudnnGetLastErrorString?.();
    if (typeof r === 'string') return r;
    if (r && typeof r === 'object') {
      const v = outputOf<unknown>(r as Result, 'message');
      if (typeof v === 'string') return v;
    }
  } catch {
    // never let diagnostics hide the real error
  }
  return '';
}

/** The cuDNN data type of an element kind. */
export function cudnnDataType(element: ElementKind): number {
  switch (element) {
    case 'f32':
      return C.CUDNN_DATA_FLOAT;
    case 'f64':
      return C.CUDNN_DATA_DOUBLE;
    case 'f16':
      return C.CUDNN_DATA_HALF;
    default:
      return C.CUDNN_DATA_BFLOAT16;
  }
}

/** Loaded cuDNN's version code (major*10000 + minor*100 + patch); loads cuDNN (may throw LibraryNotFoundError). */
export function loadCudnn(): number {
  cudnn.load();
  return Number(cudnn.cudnnGetVersion());
}

/** The device of a stream: its own `device`, else device 0. */
export function deviceOf(stream: StreamLike): DeviceLike {
  return stream.device ?? driver.Device.get(0);
}
