/**
 * @baracuda/cudnn-sys: every raw function, against the fake libcudnn.so.9. Each function is a row:
 * its arguments as [slot kind, valid value]; a value given by name is made by VALUES below (a
 * fresh descriptor per case). Re-entrant values destroy the call's first argument mid-call.
 */
import * as sys from '@baracuda/cudnn-sys';
import type { Fixtures, PackageCorpus } from '../model.js';
import { track } from '../track.js';
import type { ValueMaker } from '../values.js';
import { arg, fixture, type TargetSpec, targetsOf } from './build.js';
import { DRIVER_VALUES } from './driver-values.js';

type Raw = (...args: unknown[]) => unknown;
const raw = sys as unknown as Record<string, Raw>;

/** Each descriptor kind: how to create, make valid, and destroy one. */
const KINDS: Record<
  string,
  { create: () => unknown; set?: (d: unknown) => void; destroy: string }
> = {
  handle: {
    create: () => (sys.cudnnCreate() as { handle: unknown }).handle,
    destroy: 'cudnnDestroy',
  },
  tensorDesc: {
    create: () => (sys.cudnnCreateTensorDescriptor() as { tensorDesc: unknown }).tensorDesc,
    set: (d) => raw.cudnnSetTensorNdDescriptor!(d, 0, 5, [1, 4, 4, 4, 4], [256, 64, 16, 4, 1]),
    destroy: 'cudnnDestroyTensorDescriptor',
  },
  filterDesc: {
    create: () => (sys.cudnnCreateFilterDescriptor() as { filterDesc: unknown }).filterDesc,
    set: (d) => raw.cudnnSetFilterNdDescriptor!(d, 0, 0, 5, [4, 4, 1, 3, 3]),
    destroy: 'cudnnDestroyFilterDescriptor',
  },
  convDesc: {
    create: () => (sys.cudnnCreateConvolutionDescriptor() as { convDesc: unknown }).convDesc,
    set: (d) => raw.cudnnSetConvolutionNdDescriptor!(d, 3, [0, 0, 0], [1, 1, 1], [1, 1, 1], 1, 0),
    destroy: 'cudnnDestroyConvolutionDescriptor',
  },
  activationDesc: {
    create: () =>
      (sys.cudnnCreateActivationDescriptor() as { activationDesc: unknown }).activationDesc,
    destroy: 'cudnnDestroyActivationDescriptor',
  },
  backendDesc: {
    create: () =>
      (
        sys.cudnnBackendCreateDescriptor(sys.CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR) as {
          descriptor: unknown;
        }
      ).descriptor,
    destroy: 'cudnnBackendDestroyDescriptor',
  },
};

const live = new WeakSet<object>();

function destroy(kind: string, object: unknown): void {
  if (object === null || typeof object !== 'object' || !live.has(object)) return;
  live.delete(object);
  raw[KINDS[kind]!.destroy]!(object);
}

function make(f: Fixtures, kind: string): unknown {
  const spec = KINDS[kind]!;
  const object = spec.create();
  if (object === null || typeof object !== 'object') {
    throw new Error(`corpus: creating a ${kind} on the fake cuDNN returned ${String(object)}`);
  }
  live.add(object);
  track(f, object, (o) => destroy(kind, o));
  spec.set?.(object);
  return object;
}

function destroyed(f: Fixtures, kind: string): unknown {
  const object = make(f, kind);
  destroy(kind, object);
  return object;
}

const VALUES: Record<string, ValueMaker> = {
  ...DRIVER_VALUES,
  bigint64Array: () => new BigInt64Array(1),
  int32Array: () => new Int32Array(1),
  sharedBigInt64: () => new BigInt64Array(new SharedArrayBuffer(8)),
  backendDescArrayDestroyed: (ctx) => [destroyed(ctx.fixtures, 'backendDesc')],
  backendDescArrayMixed: (ctx) => [make(ctx.fixtures, 'backendDesc'), {}],
};
for (const kind of Object.keys(KINDS)) {
  VALUES[kind] = (ctx) => make(ctx.fixtures, kind);
  VALUES[`${kind}Destroyed`] = (ctx) => destroyed(ctx.fixtures, kind);
}

type Row = [kind: string, valid: unknown];
const H: Row = ['handle', 'handle'];
const T: Row = ['tensorDesc', 'tensorDesc'];
const F: Row = ['filterDesc', 'filterDesc'];
const C: Row = ['convDesc', 'convDesc'];
const A: Row = ['activationDesc', 'activationDesc'];
const B: Row = ['backendDesc', 'backendDesc'];
const P: Row = ['voidPtr', 0x1000n];
const S: Row = ['scale', () => new Float32Array([1])];
const I = (value: number): Row => ['i32', value];
const N = (value: number): Row => ['nbDims', value];
const R = (value: number): Row => ['requested', value];
const Z: Row = ['sizeT', 0];
const ints = (...values: number[]): Row => ['intArray', () => [...values]];

/** A raw function and its arguments, each [slot kind, valid value or a fixture name]. */
const ROWS: [name: string, args: Row[]][] = [
  ['cudnnGetVersion', []],
  ['cudnnGetMaxDeviceVersion', []],
  ['cudnnGetCudartVersion', []],
  ['cudnnGetProperty', [I(0)]],
  ['cudnnGetErrorString', [I(2000)]],
  ['cudnnGetLastErrorString', []],
  ['cudnnCreate', []],
  ['cudnnDestroy', [H]],
  ['cudnnSetStream', [H, P]],
  ['cudnnGetStream', [H]],
  ['cudnnCreateTensorDescriptor', []],
  ['cudnnSetTensorNdDescriptor', [T, I(0), N(5), ints(1, 4, 4, 4, 4), ints(256, 64, 16, 4, 1)]],
  ['cudnnSetTensorNdDescriptorEx', [T, I(0), I(0), N(5), ints(1, 4, 4, 4, 4)]],
  ['cudnnGetTensorNdDescriptor', [T, R(5)]],
  ['cudnnGetTensorSizeInBytes', [T]],
  ['cudnnDestroyTensorDescriptor', [T]],
  ['cudnnTransformTensor', [H, S, T, P, S, T, P]],
  ['cudnnCreateFilterDescriptor', []],
  ['cudnnSetFilterNdDescriptor', [F, I(0), I(0), N(5), ints(4, 4, 1, 3, 3)]],
  ['cudnnGetFilterNdDescriptor', [F, R(5)]],
  ['cudnnDestroyFilterDescriptor', [F]],
  ['cudnnCreateActivationDescriptor', []],
  ['cudnnSetActivationDescriptor', [A, I(1), I(0), ['floatParam', 0]]],
  ['cudnnGetActivationDescriptor', [A]],
  ['cudnnDestroyActivationDescriptor', [A]],
  ['cudnnCreateConvolutionDescriptor', []],
  ['cudnnDestroyConvolutionDescriptor', [C]],
  [
    'cudnnSetConvolutionNdDescriptor',
    [C, N(3), ints(0, 0, 0), ints(1, 1, 1), ints(1, 1, 1), I(1), I(0)],
  ],
  ['cudnnGetConvolutionNdDescriptor', [C, R(3)]],
  ['cudnnGetConvolutionNdForwardOutputDim', [C, T, F, N(5)]],
  ['cudnnSetConvolutionMathType', [C, I(0)]],
  ['cudnnGetConvolutionMathType', [C]],
  ['cudnnSetConvolutionGroupCount', [C, I(1)]],
  ['cudnnGetConvolutionGroupCount', [C]],
  ['cudnnSetConvolutionReorderType', [C, I(0)]],
  ['cudnnGetConvolutionReorderType', [C]],
  ['cudnnGetConvolutionForwardAlgorithmMaxCount', [H]],
  ['cudnnGetConvolutionForwardAlgorithm_v7', [H, T, F, C, T, R(1)]],
  ['cudnnFindConvolutionForwardAlgorithmEx', [H, T, P, F, P, C, T, P, R(1), P, Z]],
  ['cudnnGetConvolutionForwardWorkspaceSize', [H, T, F, C, T, I(0)]],
  ['cudnnConvolutionForward', [H, S, T, P, F, P, C, I(0), P, Z, S, T, P]],
  [
    'cudnnConvolutionBiasActivationForward',
    [H, S, T, P, F, P, C, I(0), P, Z, S, T, P, T, P, A, T, P],
  ],
  ['cudnnGetConvolutionBackwardDataAlgorithmMaxCount', [H]],
  ['cudnnGetConvolutionBackwardDataAlgorithm_v7', [H, F, T, C, T, R(1)]],
  ['cudnnFindConvolutionBackwardDataAlgorithmEx', [H, F, P, T, P, C, T, P, R(1), P, Z]],
  ['cudnnGetConvolutionBackwardDataWorkspaceSize', [H, F, T, C, T, I(0)]],
  ['cudnnConvolutionBackwardData', [H, S, F, P, T, P, C, I(0), P, Z, S, T, P]],
  ['cudnnGetConvolutionBackwardFilterAlgorithmMaxCount', [H]],
  ['cudnnGetConvolutionBackwardFilterAlgorithm_v7', [H, T, T, C, F, R(1)]],
  ['cudnnFindConvolutionBackwardFilterAlgorithmEx', [H, T, P, T, P, C, F, P, R(1), P, Z]],
  ['cudnnGetConvolutionBackwardFilterWorkspaceSize', [H, T, T, C, F, I(0)]],
  ['cudnnConvolutionBackwardFilter', [H, S, T, P, T, P, C, I(0), P, Z, S, F, P]],
  ['cudnnBackendCreateDescriptor', [I(sys.CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR)]],
  ['cudnnBackendDestroyDescriptor', [B]],
  ['cudnnBackendFinalize', [B]],
  [
    'cudnnBackendSetAttribute',
    [
      B,
      I(sys.CUDNN_ATTR_OPERATIONGRAPH_OPS),
      I(sys.CUDNN_TYPE_BACKEND_DESCRIPTOR),
      ['descriptorValues', 'backendDescList'],
    ],
  ],
  [
    'cudnnBackendSetAttribute~int64',
    [
      B,
      I(sys.CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE),
      I(sys.CUDNN_TYPE_INT64),
      ['int64Values', () => new BigInt64Array(1)],
    ],
  ],
  [
    'cudnnBackendGetAttribute',
    [B, I(sys.CUDNN_ATTR_OPERATIONGRAPH_OPS), I(sys.CUDNN_TYPE_INT64), R(1)],
  ],
  [
    'cudnnBackendGetAttribute~descriptors',
    [
      B,
      I(sys.CUDNN_ATTR_OPERATIONGRAPH_OPS),
      I(sys.CUDNN_TYPE_BACKEND_DESCRIPTOR),
      R(1),
      ['optionalDescriptors', 'backendDescList'],
    ],
  ],
  ['cudnnBackendExecute', [H, B, B]],
];
VALUES.backendDescList = (ctx) => [make(ctx.fixtures, 'backendDesc')];

/** The first argument, when it is a descriptor or handle: what a re-entrant value destroys. */
function victimOf(rows: Row[], args: unknown[]): (() => void) | undefined {
  const kind = rows[0]?.[0];
  if (kind === undefined || !(kind in KINDS)) return undefined;
  return () => destroy(kind, args[0]);
}

const SPECS: TargetSpec[] = [
  ...ROWS.map(([id, rows]): TargetSpec => {
    const fn = raw[id.replace(/~.*$/, '')]!;
    return {
      id,
      slots: rows.map(([kind], i) => arg(i, kind)),
      hasVictim: rows[0] !== undefined && rows[0][0] in KINDS,
      prepare: (f) => {
        const args = rows.map(([, valid]) =>
          typeof valid === 'function'
            ? valid()
            : typeof valid === 'string'
              ? fixture(f, valid)
              : valid,
        );
        // A get reads what a set stored: with nothing set the fake answers BAD_PARAM, which would
        // pass for a refusal of whatever the case swept.
        if (id.startsWith('cudnnBackendGetAttribute')) {
          const type = args[2] as number;
          const values =
            type === sys.CUDNN_TYPE_BACKEND_DESCRIPTOR
              ? [fixture(f, 'backendDesc')]
              : new BigInt64Array(1);
          sys.cudnnBackendSetAttribute(args[0] as never, args[1] as number, type, values as never);
        }
        return {
          self: undefined,
          args,
          call: (_s, a) => {
            const result = fn(...a);
            freeCreated(f, result);
            return result;
          },
          victim: victimOf(rows, args),
        };
      },
    };
  }),
  { id: 'probe', prepare: () => ({ self: undefined, args: [], call: () => sys.probe() }) },
  { id: 'load', prepare: () => ({ self: undefined, args: [], call: () => sys.load() }) },
  {
    id: 'nativeConstants',
    prepare: () => ({ self: undefined, args: [], call: () => sys.nativeConstants() }),
  },
  {
    id: 'cudnnStatusName',
    slots: [arg(0, 'i32')],
    prepare: () => ({
      self: undefined,
      args: [2000],
      call: (_s, a) => sys.cudnnStatusName(a[0] as number),
    }),
  },
  {
    id: 'decodeCudnnVersion',
    slots: [arg(0, 'versionCode')],
    prepare: () => ({
      self: undefined,
      args: [91400],
      call: (_s, a) => sys.decodeCudnnVersion(a[0] as number),
    }),
  },
];

const CREATED: Record<string, string> = {
  handle: 'handle',
  tensorDesc: 'tensorDesc',
  filterDesc: 'filterDesc',
  convDesc: 'convDesc',
  activationDesc: 'activationDesc',
  descriptor: 'backendDesc',
};

/** Destroys, after the case, what a create call returned. */
function freeCreated(f: Fixtures, result: unknown): void {
  if (typeof result !== 'object' || result === null) return;
  for (const [field, kind] of Object.entries(CREATED)) {
    const object = (result as Record<string, unknown>)[field];
    if (typeof object === 'object' && object !== null) {
      live.add(object);
      track(f, object, (o) => destroy(kind, o));
    }
  }
}

export const CUDNN_SYS_CORPUS: PackageCorpus = {
  pkg: 'cudnn-sys',
  load: async () => ({ values: VALUES }),
  targets: targetsOf('cudnn-sys', SPECS),
  data: [/^CUDNN_[A-Za-z0-9_]+$/, 'MAJOR_VERSION', 'MINOR_VERSION', 'PATCH_LEVEL', 'cudnnEnums'],
};
