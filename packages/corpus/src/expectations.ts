/**
 * What each kind of slot accepts, as data. A slot is swept with the universal values
 * (values.ts) unless `universal: false`, plus its `extras`; a value in `accepts` may be accepted
 * (or refused with a typed error), every other value MUST be refused with a typed error. No
 * value may crash, hang, or escape as an untyped error. `reentrant` (a proxy whose first read
 * disposes the call's object) is added to slots marked `reentrant` when the target has one.
 *
 * When unsure whether the library may accept a value, it goes in `accepts`: that weakens the
 * check to "no crash, no hang, no untyped error" and never reports a false silent acceptance.
 */
import { CUBLASLT_SLOT_KINDS } from './expectations-cublaslt.js';
import { NCCL_SLOT_KINDS } from './expectations-nccl.js';
import { UNIVERSAL_VALUES as UNIVERSAL } from './values.js';

export interface SlotKind {
  readonly extras: readonly string[];
  readonly accepts: readonly string[];
  /** Sweep the universal values too. Defaults to true. */
  readonly universal?: boolean;
  /** Sweep a proxy of the valid value that disposes the call's object on first read. */
  readonly reentrant?: boolean;
}

const OPTIONS_BAG: SlotKind = {
  extras: ['selfReferential'],
  accepts: ['undefined', 'object', 'cyclic', 'selfReferential'],
  reentrant: true,
};
const SIZE_OK = ['one', 'pow31', 'pow32', 'pow32plus1', 'pow40'];
const BAD_SLICES = [
  'sliceZeroPtr',
  'sliceNegPtr',
  'slicePtr2pow64',
  'sliceNumberPtr',
  'sliceNaNLength',
  'sliceHugeLength',
  'sliceNegLength',
  'bufferDisposed',
];
const ALL_NUMBERS = [
  'zero',
  'one',
  'negative',
  'fraction',
  'nan',
  'infinity',
  'negInfinity',
  'pow31',
  'pow32',
  'pow53',
];
const BROKEN_ARRAY = [
  'firstNaN',
  'firstFraction',
  'firstString',
  'firstNegative',
  'firstPow31',
  'firstBigint',
  'firstUndefined',
  'shortArray',
  'holeyArray',
  'selfReferential',
];

/** `this` of an instance method: the object disposed first, a plain object, a look-alike, another class. */
const THIS_VALUES = ['disposedSelf', 'object', 'mimicSelf', 'protoMimic', 'otherClass'];

export const SLOT_KINDS: Record<string, SlotKind> = {
  // ---- `this`
  self: { universal: false, extras: THIS_VALUES, accepts: [] },
  /** Methods still meaningful after dispose: dispose() itself, `disposed`, toString(). */
  selfDisposeOk: { universal: false, extras: THIS_VALUES, accepts: ['disposedSelf'] },
  /** Objects with no dispose (Device, Conv3dDescriptor, KernelParams). */
  selfNoDispose: {
    universal: false,
    extras: ['object', 'mimicSelf', 'protoMimic', 'otherClass'],
    accepts: [],
  },
  /** Arguments to `new` on a class built by its factories only: every one must be refused. */
  ctorArgument: { extras: [], accepts: [] },

  // ---- driver
  ordinal: { extras: ['two'], accepts: ['undefined', 'zero', 'one'] },
  device: {
    extras: ['device0', 'device1', 'deviceMimic', 'stream0'],
    accepts: ['undefined', 'device0', 'device1'],
  },
  /** The device of an object that already lives on device 0 (a stream given with it). */
  deviceOf0: {
    extras: ['device0', 'device1', 'deviceMimic', 'stream0'],
    accepts: ['undefined', 'device0'],
  },
  options: OPTIONS_BAG,
  flag: { extras: ['false'], accepts: ['undefined', 'true', 'false'] },
  stream: {
    extras: ['stream0', 'stream1', 'streamDisposed', 'streamMimic', 'streamProtoMimic', 'event0'],
    accepts: ['stream0'],
  },
  optionalStream: {
    extras: ['stream0', 'stream1', 'streamDisposed', 'streamMimic', 'streamProtoMimic', 'event0'],
    accepts: ['undefined', 'stream0'],
  },
  /** KernelFunction.launch: a Stream of the module's device, or any {raw: CUstream}. */
  launchStream: {
    extras: ['stream0', 'stream1', 'streamDisposed', 'streamMimic', 'streamRawNeg', 'event0'],
    accepts: ['stream0', 'streamMimic'],
    reentrant: true,
  },
  event: {
    extras: ['event0', 'event1', 'eventDisposed', 'eventNoTiming', 'stream0'],
    accepts: ['event0', 'eventNoTiming'],
  },
  timingEvent: {
    extras: ['event0', 'event1', 'eventDisposed', 'eventNoTiming', 'stream0'],
    accepts: ['event0'],
  },
  byteLength: { extras: ['pow32plus1', 'pow40'], accepts: SIZE_OK },
  elementKind: { extras: ['kindF32', 'kindBogus'], accepts: ['kindF32'] },
  byteOffset: { extras: [], accepts: ['undefined', 'zero', 'one'] },
  hostView: {
    extras: [
      'u8',
      'u8Empty',
      'f32View',
      'nodeBuffer',
      'dataView',
      'sharedU8',
      'sharedDataView',
      'detachedU8',
      'detachedDataView',
      'arrayBuffer',
      'sharedArrayBuffer',
      'pinnedBytes',
    ],
    accepts: [
      'u8',
      'u8Empty',
      'f32View',
      'nodeBuffer',
      'dataView',
      'sharedU8',
      'sharedDataView',
      'pinnedBytes',
    ],
  },
  byte: { extras: ['n256'], accepts: ['zero', 'one'] },
  u16: { extras: ['n65536'], accepts: ['zero', 'one'] },
  u32: { extras: ['pow32minus1'], accepts: ['zero', 'one', 'pow31', 'pow32minus1'] },
  /** copyFrom's source: a DeviceBuffer or a plain DeviceSlice on the same device. */
  deviceSlice: {
    extras: ['buffer0', 'buffer1', 'sliceWildPtr', ...BAD_SLICES, 'selfReferential'],
    accepts: ['buffer0', 'selfReferential'],
    reentrant: true,
  },
  sliceOffset: { extras: [], accepts: ['zero', 'one'] },
  sliceLength: { extras: [], accepts: ['one'] },
  moduleImage: {
    extras: ['ptxText', 'ptxWithNul', 'invalidPtx', 'u8', 'u8Empty', 'sharedU8', 'detachedU8'],
    accepts: ['ptxText', 'invalidPtx', 'u8', 'sharedU8', 'string'],
  },
  kernelName: {
    extras: ['kernelName', 'nameWithNul', 'unknownKernel', 'longName'],
    accepts: ['kernelName', 'unknownKernel', 'longName', 'string'],
  },
  dim3: { extras: BROKEN_ARRAY, accepts: [], reentrant: true },
  sharedBytes: { extras: ['pow32minus1'], accepts: ['zero', 'one', 'pow31', 'pow32minus1'] },
  params: {
    extras: ['u8', 'u8Empty', 'nodeBuffer', 'sharedU8', 'detachedU8', 'dataView', 'f32View'],
    accepts: ['u8', 'u8Empty', 'nodeBuffer', 'sharedU8'],
  },
  capacity: {
    extras: ['two', 'n256', 'pow40'],
    accepts: ['undefined', 'one', 'two', 'n256', 'pow31', 'pow32'],
  },
  u32Param: { extras: ['pow32minus1'], accepts: ['zero', 'one', 'pow31', 'pow32minus1'] },
  i32Param: { extras: ['pow31minus1'], accepts: ['zero', 'one', 'negative', 'pow31minus1'] },
  u64Param: {
    extras: ['bigint2pow63', 'bigint2pow64minus1'],
    accepts: [
      'zero',
      'one',
      'pow31',
      'pow32',
      'bigint0',
      'bigint1',
      'bigint2pow63',
      'bigint2pow64minus1',
    ],
  },
  floatParam: { extras: [], accepts: ALL_NUMBERS },
  ptrParam: {
    extras: ['bigint2pow63', 'bigint2pow64minus1'],
    accepts: ['bigint0', 'bigint1', 'bigint2pow63', 'bigint2pow64minus1'],
  },

  // ---- cudnn-sys (TypeError / RangeError / a non-zero status count as refusals)
  handle: { extras: ['handleDestroyed', 'tensorDesc', 'stream0'], accepts: [] },
  tensorDesc: { extras: ['tensorDescDestroyed', 'filterDesc', 'handle'], accepts: [] },
  filterDesc: { extras: ['filterDescDestroyed', 'tensorDesc'], accepts: [] },
  convDesc: { extras: ['convDescDestroyed', 'tensorDesc'], accepts: [] },
  activationDesc: { extras: ['activationDescDestroyed', 'convDesc'], accepts: [] },
  backendDesc: { extras: ['backendDescDestroyed', 'tensorDesc', 'handle'], accepts: [] },
  i32: { extras: ['pow31minus1'], accepts: ['zero', 'one', 'negative', 'pow31minus1'] },
  /** Counts that size arrays the binding reads or allocates. */
  nbDims: { extras: ['two'], accepts: ['zero', 'one', 'two'] },
  requested: { extras: ['two', 'pow31minus1'], accepts: ['zero', 'one', 'two', 'pow31minus1'] },
  sizeT: {
    extras: ['pow31minus1'],
    accepts: ['zero', 'one', 'pow31', 'pow31minus1', 'pow32'],
  },
  voidPtr: {
    extras: ['bigint2pow63', 'bigint2pow64minus1'],
    accepts: ['bigint0', 'bigint1', 'bigint2pow63', 'bigint2pow64minus1'],
  },
  scale: {
    extras: ['f32One', 'f64One', 'f32Empty', 'u8One', 'sharedF32', 'detachedF32', 'dataView'],
    accepts: ['f32One', 'f64One', 'sharedF32'],
  },
  intArray: {
    extras: [...BROKEN_ARRAY, 'hugeArray', 'int32ArrayShort'],
    accepts: ['firstNegative', 'hugeArray'],
    reentrant: true,
  },
  /** cudnnBackendSetAttribute's values for a BACKEND_DESCRIPTOR attribute. */
  descriptorValues: {
    extras: ['backendDescArrayDestroyed', 'backendDescArrayMixed', 'bigint64Array', 'int32Array'],
    accepts: ['array'],
    reentrant: true,
  },
  int64Values: {
    extras: ['bigint64Array', 'int32Array', 'sharedBigInt64', 'detachedU8', 'u8'],
    accepts: ['bigint64Array', 'sharedBigInt64'],
  },
  optionalDescriptors: {
    extras: ['backendDescArrayDestroyed', 'backendDescArrayMixed'],
    accepts: ['undefined'],
    reentrant: true,
  },

  ...NCCL_SLOT_KINDS,
  ...CUBLASLT_SLOT_KINDS,

  // ---- kernels
  extent: { extras: ['pow31minus1'], accepts: ['one'] },
  padding: { extras: [], accepts: ['zero', 'one'] },
  /** ConvTranspose3dDescriptor#withOutputPadding on a stride-1, dilation-1 problem: only 0 fits (< max(stride, dilation)). */
  outputPadding: { extras: [], accepts: ['zero'] },
  positive: { extras: [], accepts: ['one'] },
  groups: { extras: ['two'], accepts: ['one', 'two'] },
  convElement: { extras: ['kindF32', 'kindBogus', 'kindI8'], accepts: ['kindF32'] },
  optionalElement: { extras: ['kindF32', 'kindBogus'], accepts: ['undefined', 'kindF32'] },
  layout: {
    extras: ['layoutNcdhw', 'layoutNdhwc', 'layoutBogus'],
    accepts: ['layoutNcdhw', 'layoutNdhwc'],
  },
  /** convOutputExtent is documented to return 0 or less for an impossible window. */
  extentInput: { extras: ['n256'], accepts: ['zero', 'one', 'n256', 'pow31', 'pow32'] },
  shape5: { extras: BROKEN_ARRAY, accepts: [] },
  /** Conv3dPlan.select's stream: a driver Stream or any {raw, device?}. */
  planStream: {
    extras: ['stream0', 'stream1', 'streamDisposed', 'streamMimic', 'streamRawNeg', 'event0'],
    accepts: ['stream0', 'stream1', 'streamMimic'],
  },
  descriptor: { extras: ['descriptorMimic', 'stream0'], accepts: [] },
  algorithm: {
    extras: ['algoHeuristic', 'algoPinned', 'algoBogus'],
    accepts: ['undefined', 'algoHeuristic', 'algoPinned'],
  },
  workspaceLimit: {
    extras: ['pow31minus1'],
    accepts: ['undefined', 'zero', 'one', 'pow31', 'pow31minus1', 'pow32'],
  },
  optionalBool: { extras: ['false'], accepts: ['undefined', 'true', 'false'] },
  bool: { extras: ['false'], accepts: ['true', 'false'] },
  tristate: {
    extras: ['tuned', 'always', 'never'],
    accepts: ['undefined', 'tuned', 'always', 'never'],
  },
  passList: {
    extras: ['passesAll', 'passesBogus', 'passesSparse'],
    accepts: ['undefined', 'array', 'passesAll'],
  },
  stringList: { extras: ['stringArray'], accepts: ['undefined', 'array', 'stringArray'] },
  optionalFunction: { extras: [], accepts: ['undefined', 'function'] },
  optionalPath: { extras: ['tmpPath'], accepts: ['undefined', 'tmpPath', 'string'] },
  runArgs: { extras: ['selfReferential'], accepts: ['selfReferential'], reentrant: true },
  tensorArg: {
    extras: [...BAD_SLICES, 'sliceMisaligned', 'sliceWildPtr', 'tensorOtherDevice'],
    accepts: ['sliceWildPtr', 'selfReferential'],
    reentrant: true,
  },
  tensorPtr: { extras: ['bigint2pow64minus1'], accepts: [] },
  tensorBytes: { extras: [], accepts: ['pow31', 'pow32'] },
  workspace: {
    extras: [...BAD_SLICES, 'workspaceCyclic', 'workspaceNone', 'workspaceBorrowed'],
    accepts: ['undefined', 'null', 'workspaceNone', 'workspaceBorrowed'],
    reentrant: true,
  },
  scalar: {
    extras: [],
    accepts: ['undefined', 'zero', 'one', 'negative', 'fraction', 'pow31', 'pow32', 'pow53'],
  },
  runStream: {
    extras: ['stream0', 'stream1', 'streamDisposed', 'streamMimic', 'streamRawNeg'],
    accepts: ['undefined', 'stream0', 'streamMimic'],
  },
  pass: { extras: ['passFw', 'passBogus'], accepts: ['passFw'] },
  cachePath: {
    extras: [
      'cacheMissing',
      'cacheValid',
      'cacheCorrupt',
      'cacheDirectory',
      'cacheFifo',
      'cacheDevZero',
      'cacheSymlink',
    ],
    accepts: [
      'cacheMissing',
      'cacheValid',
      'cacheCorrupt',
      'cacheDirectory',
      'cacheFifo',
      'cacheDevZero',
      'cacheSymlink',
      'string',
      'emptyString',
    ],
  },
  env: {
    extras: ['envWithPath', 'selfReferential'],
    accepts: ['undefined', 'object', 'cyclic', 'envWithPath', 'selfReferential'],
  },
  plainObject: { extras: ['selfReferential'], accepts: ['selfReferential'] },
  /** withEpilogue's options: `{}` (no epilogue) is valid; a key of another name is refused. */
  epilogueOptions: {
    extras: ['selfReferential'],
    accepts: ['object', 'cyclic', 'selfReferential'],
    reentrant: true,
  },
  /** An epilogue's activation: undefined is identity; no universal string names one. */
  activation: { extras: [], accepts: ['undefined'] },
  versionCode: { extras: [], accepts: ['zero', 'one', 'pow31', 'pow32'] },
  erratum: { extras: ['erratumMimic'], accepts: [] },
  errataTable: { extras: [], accepts: ['undefined', 'array'] },
  optionalString: { extras: [], accepts: ['undefined', 'string', 'emptyString'] },
  noteIndex: { extras: [], accepts: ['zero', 'one', 'negative', 'pow31', 'pow32', 'pow53'] },
  /** Numerical-note names, any number of them: a shorter list is still a list of notes. */
  stringArray: {
    extras: ['stringArray', ...BROKEN_ARRAY],
    accepts: ['array', 'stringArray', 'shortArray'],
  },
  /** Timings for median(): any non-empty list of finite numbers, so one element is valid too. */
  numberArray: {
    extras: BROKEN_ARRAY,
    accepts: ['firstNegative', 'firstFraction', 'firstPow31', 'shortArray'],
  },
  objectArray: { extras: ['selfReferential'], accepts: ['array', 'selfReferential'] },
  bytes: { extras: [], accepts: ['zero', 'one', 'fraction', 'pow31', 'pow32'] },
  optionalBytes: {
    extras: [],
    accepts: ['undefined', 'zero', 'one', 'fraction', 'pow31', 'pow32'],
  },
  positiveBytes: { extras: [], accepts: ['undefined', 'one', 'fraction', 'pow31', 'pow32'] },
};

/** The value names a slot of `kind` is swept with, in order, without duplicates. */
export function valuesOf(kind: SlotKind, withReentrant: boolean): string[] {
  const names = [...(kind.universal === false ? [] : UNIVERSAL), ...kind.extras];
  if (kind.reentrant && withReentrant) names.push('reentrant');
  return [...new Set(names)];
}
