/**
 * @baracuda/kernels' transposed convolution: ConvTranspose3dDescriptor and ConvTranspose3dPlan
 * (select and run on the fake libcuda's device 0 and the fake cuDNN), swept like Conv3dDescriptor
 * and Conv3dPlan.
 */
import * as kernels from '@baracuda/kernels';
import type { Fixtures, Prepared } from '../model.js';
import { track } from '../track.js';
import { arg, member, memberLabel, prop, self, type TargetSpec } from './build.js';
import { newStream } from './driver-values.js';
import { EPILOGUE_SLOTS } from './kernels-epilogue.js';
import { KERNELS_VALUES, operand } from './kernels-values.js';

const { ConvTranspose3dDescriptor, ConvTranspose3dPlan } = kernels;

/** n=1, 4→4 channels, 4×4×4, filter 1×3×3, f32 NCDHW: output 4×6×6. */
export function smallTransposeDescriptor(): kernels.ConvTranspose3dDescriptor {
  return ConvTranspose3dDescriptor.create({
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
  });
}

function newPlan(f: Fixtures): kernels.ConvTranspose3dPlan {
  return track(f, ConvTranspose3dPlan.selectSync(newStream(f), smallTransposeDescriptor()), (p) =>
    p.dispose(),
  );
}

function planMethod(
  name: string | symbol,
  args: (f: Fixtures, plan: kernels.ConvTranspose3dPlan) => unknown[],
  slots: TargetSpec['slots'],
): TargetSpec {
  return {
    id: `ConvTranspose3dPlan#${memberLabel(name)}`,
    slots,
    hasVictim: true,
    prepare: (f): Prepared => {
      const plan = newPlan(f);
      return {
        self: plan,
        args: args(f, plan),
        call: member(ConvTranspose3dPlan.prototype, name),
        victim: () => plan.dispose(),
      };
    },
  };
}

/** A descriptor method; the with*() copies are validated (values are checked there). */
function descriptorMethod(name: string, args: unknown[], kinds: string[]): TargetSpec {
  const call = member(ConvTranspose3dDescriptor.prototype, name);
  const copies = name.startsWith('with');
  return {
    id: `ConvTranspose3dDescriptor#${name}`,
    slots: [self('selfNoDispose'), ...kinds.map((kind, i) => arg(i, kind))],
    prepare: () => ({
      self: smallTransposeDescriptor(),
      args: [...args],
      call: copies ? (s, a) => (call(s, a) as kernels.ConvTranspose3dDescriptor).validate() : call,
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
    id: `ConvTranspose3dPlan.${id}`,
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
      self: ConvTranspose3dPlan,
      args: [newStream(f), smallTransposeDescriptor(), { ...PREFERENCE }, PLAN_OPTIONS(f)],
      call: async (s, a) => {
        const run = ConvTranspose3dPlan[id] as (...args: unknown[]) => unknown;
        const plan = (await run.apply(s, a)) as kernels.ConvTranspose3dPlan;
        track(f, plan, (p) => p.dispose());
        return plan;
      },
    }),
  };
}

/** A run pass: its arguments object and each of its fields swept (sizes of the transposed shapes). */
function run(
  name: 'runFw' | 'runBwData' | 'runDw',
  tensors: [string, 'x' | 'w' | 'y'][],
): TargetSpec {
  const fields = tensors.map(([field]) => field);
  return planMethod(
    name,
    (f, plan) => {
      const d = plan.descriptor;
      const count = (shape: readonly number[]) => shape.reduce((a, e) => a * e, 1) * 4;
      const bytes = { x: count(d.xShape), w: count(d.wShape), y: count(d.yShape) };
      const args: Record<string, unknown> = {};
      for (const [field, shape] of tensors) args[field] = operand(f, bytes[shape]);
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

const none = () => [];

/** runBwEpilogue on a transposed plan whose descriptor has bias + ReLU: dy, y, dyPre and dBias swept. */
function runBwEpilogue(): TargetSpec {
  return {
    id: 'ConvTranspose3dPlan#runBwEpilogue',
    hasVictim: true,
    slots: [
      self('self'),
      arg(0, 'runArgs'),
      ...['dy', 'y', 'dyPre', 'dBias'].map((field) => prop(0, field, 'tensorArg')),
      prop(0, 'dy.devicePtr', 'tensorPtr'),
      prop(0, 'stream', 'runStream'),
    ],
    prepare: (f): Prepared => {
      const d = smallTransposeDescriptor().withEpilogue({ bias: true, activation: 'relu' });
      const plan = track(f, ConvTranspose3dPlan.selectSync(newStream(f), d), (p) => p.dispose());
      const y = d.yShape.reduce((a, e) => a * e, 1) * 4;
      return {
        self: plan,
        args: [
          {
            dy: operand(f, y),
            y: operand(f, y),
            dyPre: operand(f, y),
            dBias: operand(f, d.cOut * 4),
          },
        ],
        call: member(ConvTranspose3dPlan.prototype, 'runBwEpilogue'),
        victim: () => plan.dispose(),
      };
    },
  };
}

export const TRANSPOSE_SPECS: TargetSpec[] = [
  {
    id: 'ConvTranspose3dDescriptor()',
    slots: [arg(0, 'ctorArgument')],
    baselineAcceptable: false,
    prepare: () => ({
      self: undefined,
      args: [],
      call: (_s, a) =>
        Reflect.construct(ConvTranspose3dDescriptor as unknown as new () => unknown, a),
    }),
  },
  {
    id: 'ConvTranspose3dDescriptor.create',
    slots: [
      arg(0, 'plainObject'),
      ...PROBLEM_FIELDS.map((field) => prop(0, field, 'extent')),
      prop(0, 'element', 'convElement'),
    ],
    prepare: () => ({
      self: ConvTranspose3dDescriptor,
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
      call: (_s, a) =>
        ConvTranspose3dDescriptor.create(a[0] as kernels.ConvTranspose3dProblem).validate(),
    }),
  },
  ...['withPadding', 'withStride', 'withDilation'].map((name) =>
    descriptorMethod(
      name,
      [1, 1, 1],
      Array(3).fill(name === 'withPadding' ? 'padding' : 'positive'),
    ),
  ),
  descriptorMethod('withOutputPadding', [0, 0, 0], Array(3).fill('outputPadding')),
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
  ...[
    'validate',
    'outputDims',
    'conv',
    'trailingPlanes',
    'describe',
    'toString',
    'xShape',
    'wShape',
    'yShape',
    'elementBytes',
  ].map((name) => descriptorMethod(name, [], [])),

  {
    id: 'ConvTranspose3dPlan()',
    slots: [arg(0, 'ctorArgument')],
    baselineAcceptable: false,
    prepare: (f) => ({
      self: undefined,
      args: [],
      call: (_s, a) =>
        track(
          f,
          Reflect.construct(
            ConvTranspose3dPlan as unknown as new () => kernels.ConvTranspose3dPlan,
            a,
          ),
          (p) => p.dispose(),
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
  runBwEpilogue(),
  planMethod('dispose', none, [self('selfDisposeOk')]),
  planMethod(Symbol.dispose, none, [self('selfDisposeOk')]),
  planMethod('disposed', none, [self('selfDisposeOk')]),
];
