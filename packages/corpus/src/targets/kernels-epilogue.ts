/**
 * @baracuda/kernels' fused epilogue: the Epilogue value (factory, constant and members) and
 * Conv3dPlan#runBwEpilogue on a plan whose descriptor has bias + ReLU.
 */
import * as kernels from '@baracuda/kernels';
import type { Prepared } from '../model.js';
import { track } from '../track.js';
import { arg, member, prop, self, type TargetSpec } from './build.js';
import { newStream } from './driver-values.js';
import { operand, smallDescriptor } from './kernels-values.js';

const { Conv3dPlan, Epilogue } = kernels;

/** The epilogue options' slots (the activation relu, so slope, min and max are refused whatever they are). */
export const EPILOGUE_SLOTS = (i: number) => [
  arg(i, 'epilogueOptions'),
  prop(i, 'bias', 'optionalBool'),
  prop(i, 'residual', 'optionalBool'),
  prop(i, 'activation', 'activation'),
];

/** A method or getter of an epilogue. */
function epilogueMember(name: string): TargetSpec {
  return {
    id: `Epilogue#${name}`,
    slots: [self('selfNoDispose')],
    prepare: () => ({
      self: Epilogue.create({ bias: true, activation: 'relu' }),
      args: [],
      call: member(Epilogue.prototype, name),
    }),
  };
}

/** runBwEpilogue on a plan whose descriptor has bias + ReLU: dy, y, dyPre and dBias swept. */
function runBwEpilogue(): TargetSpec {
  return {
    id: 'Conv3dPlan#runBwEpilogue',
    hasVictim: true,
    slots: [
      self('self'),
      arg(0, 'runArgs'),
      ...['dy', 'y', 'dyPre', 'dBias'].map((field) => prop(0, field, 'tensorArg')),
      prop(0, 'dy.devicePtr', 'tensorPtr'),
      prop(0, 'stream', 'runStream'),
    ],
    prepare: (f): Prepared => {
      const d = smallDescriptor().withEpilogue({ bias: true, activation: 'relu' });
      const plan = track(f, Conv3dPlan.selectSync(newStream(f), d), (p) => p.dispose());
      const y = d.yElements * 4;
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
        call: member(Conv3dPlan.prototype, 'runBwEpilogue'),
        victim: () => plan.dispose(),
      };
    },
  };
}

/** The Epilogue value's targets and runBwEpilogue. */
export const EPILOGUE_SPECS: TargetSpec[] = [
  {
    id: 'Epilogue()',
    slots: [arg(0, 'ctorArgument')],
    baselineAcceptable: false,
    prepare: () => ({
      self: undefined,
      args: [],
      call: (_s, a) => Reflect.construct(Epilogue as unknown as new () => unknown, a),
    }),
  },
  {
    id: 'Epilogue.create',
    slots: EPILOGUE_SLOTS(0),
    prepare: () => ({
      self: Epilogue,
      args: [{ bias: true, activation: 'relu' }],
      call: (_s, a) => Epilogue.create(a[0] as kernels.EpilogueOptions),
    }),
  },
  {
    id: 'Epilogue.createInputActivation',
    slots: [arg(0, 'epilogueOptions'), prop(0, 'activation', 'activation')],
    prepare: () => ({
      self: Epilogue,
      args: [{ activation: 'relu' }],
      call: (_s, a) => Epilogue.createInputActivation(a[0] as kernels.InputActivationOptions),
    }),
  },
  {
    id: 'Epilogue.NONE',
    slots: [],
    prepare: () => ({ self: Epilogue, args: [], call: () => Epilogue.NONE }),
  },
  ...['isNone', 'backwardInput', 'describe', 'toString'].map(epilogueMember),
  runBwEpilogue(),
];
