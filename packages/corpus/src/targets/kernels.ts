/**
 * @baracuda/kernels: the descriptor, the plan (select and run, on the fake libcuda's device 0 and
 * the fake cuDNN), the autotune cache and the exported pure helpers.
 */
import * as kernels from '@baracuda/kernels';
import type { Fixtures, PackageCorpus, Prepared } from '../model.js';
import { track } from '../track.js';
import { arg, member, memberLabel, prop, self, type TargetSpec, targetsOf } from './build.js';
import { newStream } from './driver-values.js';
import { EPILOGUE_SLOTS, EPILOGUE_SPECS } from './kernels-epilogue.js';
import { TRANSPOSE_SPECS } from './kernels-transpose.js';
import { KERNELS_VALUES, operand, smallDescriptor } from './kernels-values.js';

const { Conv3dDescriptor, Conv3dPlan } = kernels;
const api = kernels as unknown as Record<string, (...args: unknown[]) => unknown>;

/** A plain function of the package, called with `args`. */
function pure(id: string, args: (f: Fixtures) => unknown[], kinds: string[]): TargetSpec {
  return {
    id,
    slots: kinds.map((kind, i) => arg(i, kind)),
    prepare: (f) => ({ self: undefined, args: args(f), call: (_s, a) => api[id]!(...a) }),
  };
}

function newPlan(f: Fixtures): kernels.Conv3dPlan {
  return track(f, Conv3dPlan.selectSync(newStream(f), smallDescriptor()), (p) => p.dispose());
}

function planMethod(
  name: string | symbol,
  args: (f: Fixtures, plan: kernels.Conv3dPlan) => unknown[],
  slots: TargetSpec['slots'],
): TargetSpec {
  return {
    id: `Conv3dPlan#${memberLabel(name)}`,
    slots,
    hasVictim: true,
    prepare: (f): Prepared => {
      const plan = newPlan(f);
      return {
        self: plan,
        args: args(f, plan),
        call: member(Conv3dPlan.prototype, name),
        victim: () => plan.dispose(),
      };
    },
  };
}

/**
 * A descriptor method. create() and the with*() copies check only the argument's shape and leave
 * the values to validate() (documented), so their cases call validate() on the copy: a bad value
 * must be refused there at the latest.
 */
function descriptorMethod(name: string, args: unknown[], kinds: string[]): TargetSpec {
  const call = member(Conv3dDescriptor.prototype, name);
  const copies = name.startsWith('with');
  return {
    id: `Conv3dDescriptor#${name}`,
    slots: [self('selfNoDispose'), ...kinds.map((kind, i) => arg(i, kind))],
    prepare: () => ({
      self: smallDescriptor(),
      args: [...args],
      call: copies ? (s, a) => (call(s, a) as kernels.Conv3dDescriptor).validate() : call,
    }),
  };
}

const PROBLEM_FIELDS = ['batch', 'cIn', 'dIn', 'hIn', 'wIn', 'cOut', 'dFilt', 'hFilt', 'wFilt'];
const PREFERENCE = { algorithm: 'heuristic', maxWorkspaceBytes: 2 ** 20, deterministic: false };
const PLAN_OPTIONS = (f: Fixtures) => ({
  autotuneCachePath: KERNELS_VALUES.tmpPath!({ fixtures: f, valid: undefined, victim: undefined }),
  passes: ['fw'],
  onProgress: () => {},
  ignoreErrata: [],
  bwDataAsForward: 'never',
  layoutDetour: 'never',
});

function select(id: 'select' | 'selectSync'): TargetSpec {
  return {
    id: `Conv3dPlan.${id}`,
    slots: [
      arg(0, 'planStream'),
      arg(1, 'descriptor'),
      arg(2, 'options'),
      prop(2, 'algorithm', 'algorithm'),
      prop(2, 'maxWorkspaceBytes', 'workspaceLimit'),
      prop(2, 'deterministic', 'optionalBool'),
      prop(2, 'allowTf32', 'optionalBool'),
      arg(3, 'options'),
      prop(3, 'autotuneCachePath', 'optionalPath'),
      prop(3, 'passes', 'passList'),
      prop(3, 'onProgress', 'optionalFunction'),
      prop(3, 'ignoreErrata', 'stringList'),
      prop(3, 'bwDataAsForward', 'tristate'),
      prop(3, 'layoutDetour', 'tristate'),
    ],
    prepare: (f) => ({
      self: Conv3dPlan,
      args: [newStream(f), smallDescriptor(), { ...PREFERENCE }, PLAN_OPTIONS(f)],
      call: async (s, a) => {
        const run = Conv3dPlan[id] as (...args: unknown[]) => unknown;
        const plan = (await run.apply(s, a)) as kernels.Conv3dPlan;
        track(f, plan, (p) => p.dispose());
        return plan;
      },
    }),
  };
}

/** A run pass: its arguments object and each of its fields swept. */
function run(
  name: 'runFw' | 'runBwData' | 'runDw',
  tensors: [string, 'x' | 'w' | 'y'][],
): TargetSpec {
  const fields = tensors.map(([field]) => field);
  return planMethod(
    name,
    (f, plan) => {
      const d = plan.descriptor;
      const bytes = { x: d.xElements * 4, w: d.wElements * 4, y: d.yElements * 4 };
      const args: Record<string, unknown> = {};
      for (const [field, shape] of tensors) args[field] = operand(f, bytes[shape]);
      // A borrowed DeviceSlice, so the re-entrant value has a valid workspace to stand in for.
      args.workspace = operand(f, 4096);
      return [args];
    },
    [
      self('self'),
      arg(0, 'runArgs'),
      ...fields.map((field) => prop(0, field, 'tensorArg')),
      prop(0, `${fields[0]}.devicePtr`, 'tensorPtr'),
      prop(0, `${fields[0]}.byteLength`, 'tensorBytes'),
      prop(0, `${fields[2]}.devicePtr`, 'tensorPtr'),
      prop(0, 'workspace', 'workspace'),
      prop(0, 'alpha', 'scalar'),
      prop(0, 'beta', 'scalar'),
      prop(0, 'stream', 'runStream'),
    ],
  );
}

const FILTER = { deterministic: false, allowTf32: true };
const LEGACY_PREFERENCE = { deterministic: false, allowTf32: true, maxWorkspaceBytes: 2 ** 20 };
const PERF = { algo: 0, status: 0, time: 1, memory: 0, determinism: 1, mathType: 0 };
const none = () => [];
const KEY_PARTS = {
  problem: 'n=1',
  pass: 'fw',
  scalingKind: 'f32',
  deterministic: false,
  allowTf32: true,
  deviceName: 'corpus',
  cudnnVersion: 91400,
};

const SPECS: TargetSpec[] = [
  {
    ...pure('autotuneKey', () => [{ ...KEY_PARTS, computeCapability: { major: 9, minor: 0 } }], []),
    slots: [
      arg(0, 'plainObject'),
      prop(0, 'computeCapability', 'plainObject'),
      prop(0, 'cudnnVersion', 'versionCode'),
    ],
  },
  pure('defaultAutotuneCachePath', () => [{}], ['env']),
  pure(
    'readAutotuneCache',
    (f) => [KERNELS_VALUES.cacheMissing!({ fixtures: f, valid: undefined, victim: undefined })],
    ['cachePath'],
  ),
  pure('convOutputExtent', () => [4, 0, 1, 3, 1], [
    'extentInput',
    'padding',
    'positive',
    'positive',
    'positive',
  ]),
  pure('stridesFor', () => [[1, 4, 4, 4, 4], 'ncdhw'], ['shape5', 'layout']),
  pure('errataFor', () => [smallDescriptor(), 91400, { ...PREFERENCE, allowTf32: true }], [
    'descriptor',
    'versionCode',
    'plainObject',
    'errataTable',
  ]),
  pure('erratumRefusal', () => [kernels.CONV3D_ERRATA[0], smallDescriptor(), 91400, 'corpus'], [
    'erratum',
    'descriptor',
    'versionCode',
    'optionalString',
  ]),
  pure('erratumPinnedRefusal', () => [kernels.CONV3D_ERRATA[0], smallDescriptor(), 91400], [
    'erratum',
    'descriptor',
    'versionCode',
  ]),
  pure('formatCudnnVersion', () => [91400], ['versionCode']),
  pure('engineAllowed', () => [['TENSOR_CORE'], { ...FILTER }, 'f32'], [
    'stringArray',
    'plainObject',
    'convElement',
  ]),
  pure('engineRejection', () => [['TENSOR_CORE'], { ...FILTER }, 'f32'], [
    'stringArray',
    'plainObject',
    'convElement',
  ]),
  pure('intendedMathPrecision', () => ['f32', true], ['convElement', 'bool']),
  pure('mathPrecisionOfEngine', () => [['TENSOR_CORE'], 'f32'], ['stringArray', 'convElement']),
  pure('median', () => [[3, 1, 2]], ['numberArray']),
  pure('numericalNoteName', () => [0], ['noteIndex']),
  pure('pickLegacyAlgorithm', () => [[{ ...PERF }], { ...LEGACY_PREFERENCE }, 'f32'], [
    'objectArray',
    'plainObject',
    'convElement',
  ]),
  pure('releaseCudnnHandles', none, []),
  pure('pinnedMathType', () => ['f32', true], ['convElement', 'bool']),
  pure('rotationSets', () => [2 ** 20, 2 ** 27], ['bytes', 'positiveBytes']),
  pure('tuneRotationSets', () => [2 ** 20, 2 ** 30], ['bytes', 'optionalBytes']),

  {
    id: 'Conv3dDescriptor()',
    slots: [arg(0, 'ctorArgument')],
    baselineAcceptable: false,
    prepare: () => ({
      self: undefined,
      args: [],
      call: (_s, a) => Reflect.construct(Conv3dDescriptor as unknown as new () => unknown, a),
    }),
  },
  {
    id: 'Conv3dDescriptor.create',
    slots: [
      arg(0, 'plainObject'),
      ...PROBLEM_FIELDS.map((field) => prop(0, field, 'extent')),
      prop(0, 'element', 'convElement'),
    ],
    prepare: () => ({
      self: Conv3dDescriptor,
      args: [
        {
          batch: 1,
          cIn: 4,
          dIn: 4,
          hIn: 4,
          wIn: 4,
          cOut: 4,
          dFilt: 1,
          hFilt: 3,
          wFilt: 3,
          element: 'f32',
        },
      ],
      call: (_s, a) => Conv3dDescriptor.create(a[0] as kernels.Conv3dProblem).validate(),
    }),
  },
  ...['withPadding', 'withStride', 'withDilation'].map((name) =>
    descriptorMethod(
      name,
      [1, 1, 1],
      Array(3).fill(name === 'withPadding' ? 'padding' : 'positive'),
    ),
  ),
  descriptorMethod('withGroups', [1], ['groups']),
  descriptorMethod('withLayout', ['ndhwc'], ['layout']),
  {
    ...descriptorMethod('withEpilogue', [{ bias: true, activation: 'relu' }], []),
    slots: [self('selfNoDispose'), ...EPILOGUE_SLOTS(0)],
  },
  {
    ...descriptorMethod('withInputActivation', [{ activation: 'relu' }], []),
    slots: [self('selfNoDispose'), arg(0, 'epilogueOptions'), prop(0, 'activation', 'activation')],
  },
  descriptorMethod('validate', ['f32'], ['optionalElement']),
  ...[
    'outputDims',
    'describe',
    'toString',
    'xShape',
    'wShape',
    'yShape',
    'xStrides',
    'wStrides',
    'yStrides',
    'xElements',
    'wElements',
    'yElements',
    'elementBytes',
  ].map((name) => descriptorMethod(name, [], [])),

  {
    id: 'Conv3dPlan()',
    slots: [arg(0, 'ctorArgument')],
    baselineAcceptable: false,
    prepare: (f) => ({
      self: undefined,
      args: [],
      call: (_s, a) =>
        track(f, Reflect.construct(Conv3dPlan as unknown as new () => kernels.Conv3dPlan, a), (p) =>
          p.dispose(),
        ),
    }),
  },
  select('select'),
  select('selectSync'),
  ...[
    'outputDims',
    'queryFwWorkspaceSize',
    'queryBwDataWorkspaceSize',
    'queryBwFilterWorkspaceSize',
    'precisionGuarantee',
    'sku',
    'selectReport',
  ].map((name) => planMethod(name, none, [self('self')])),
  planMethod('algorithm', () => ['fw'], [self('self'), arg(0, 'pass')]),
  run('runFw', [
    ['x', 'x'],
    ['w', 'w'],
    ['y', 'y'],
  ]),
  run('runBwData', [
    ['w', 'w'],
    ['dy', 'y'],
    ['dx', 'x'],
  ]),
  run('runDw', [
    ['x', 'x'],
    ['dy', 'y'],
    ['dw', 'w'],
  ]),
  ...EPILOGUE_SPECS,
  planMethod('dispose', none, [self('selfDisposeOk')]),
  planMethod(Symbol.dispose, none, [self('selfDisposeOk')]),
  planMethod('disposed', none, [self('selfDisposeOk')]),
  ...TRANSPOSE_SPECS,
];

export const KERNELS_CORPUS: PackageCorpus = {
  pkg: 'kernels',
  load: async () => ({ values: KERNELS_VALUES }),
  targets: targetsOf('kernels', SPECS),
  data: [
    'AUTOTUNE_CACHE_VERSION',
    'INT32_MAX',
    'CONV3D_ERRATA',
    'MAX_ROTATION_SETS',
    'ROTATE_BELOW_BYTES',
  ],
};
