/**
 * What a space-to-depth route does for one pass, as data: the transforms and the inner pass, in
 * order, on the caller's operands and two plan-owned scratch tensors. exec/space-to-depth.ts runs
 * these steps on our kernels; the tests run the same steps on the host emulation.
 *
 * The inner pass takes the caller's alpha and beta. Where its output is a scratch tensor, beta
 * needs the caller's old output in the inner layout first (a gather into the scratch), and the
 * inverse moves the result back; an output position the inverse does not cover (trailing input
 * positions no patch reaches: zero gradient) gets beta·old there (zeroed for beta 0, kept for 1).
 */
import type { Conv3dPass } from '../core/pass.js';
import {
  type GatherMap,
  type InverseMap,
  InverseMode,
  type SpaceToDepthRoute,
} from '../space-to-depth.js';

/** The caller's operands and the scratch: xs (the transformed x or dx), ws (filter or dw). */
export type StepTensor = 'x' | 'w' | 'y' | 'xs' | 'ws';

export type Step =
  | {
      readonly op: 'gather';
      readonly map: GatherMap;
      readonly from: StepTensor;
      readonly to: StepTensor;
    }
  | {
      readonly op: 'inverse';
      readonly map: InverseMap;
      readonly from: StepTensor;
      readonly to: StepTensor;
      readonly mode: InverseMode;
    }
  | {
      /** The inner problem's pass on these tensors, with the caller's alpha and beta. */
      readonly op: 'inner';
      readonly pass: Conv3dPass;
      readonly x: StepTensor;
      readonly w: StepTensor;
      readonly y: StepTensor;
    };

/** The steps of `pass` for a call with this beta. */
export function routeSteps(route: SpaceToDepthRoute, pass: Conv3dPass, beta: number): Step[] {
  const { x, w } = route;
  const wIn: StepTensor = w === null ? 'w' : 'ws';
  const steps: Step[] = [];
  if (pass === 'fw') {
    steps.push({ op: 'gather', map: x.gather, from: 'x', to: 'xs' });
    if (w !== null) steps.push({ op: 'gather', map: w.gather, from: 'w', to: 'ws' });
    steps.push({ op: 'inner', pass, x: 'xs', w: wIn, y: 'y' });
  } else if (pass === 'bwFilter') {
    steps.push({ op: 'gather', map: x.gather, from: 'x', to: 'xs' });
    if (w === null) {
      steps.push({ op: 'inner', pass, x: 'xs', w: 'w', y: 'y' });
    } else {
      if (beta !== 0) steps.push({ op: 'gather', map: w.gather, from: 'w', to: 'ws' });
      steps.push({ op: 'inner', pass, x: 'xs', w: 'ws', y: 'y' });
      // Every tap of the filter is some (block, phase) of the folded one: nothing uncovered.
      steps.push({ op: 'inverse', map: w.inverse, from: 'ws', to: 'w', mode: InverseMode.Zero });
    }
  } else {
    if (w !== null) steps.push({ op: 'gather', map: w.gather, from: 'w', to: 'ws' });
    if (beta !== 0) steps.push({ op: 'gather', map: x.gather, from: 'x', to: 'xs' });
    steps.push({ op: 'inner', pass, x: 'xs', w: wIn, y: 'y' });
    const mode = beta === 0 ? InverseMode.Zero : beta === 1 ? InverseMode.Keep : InverseMode.Scale;
    steps.push({ op: 'inverse', map: x.inverse, from: 'xs', to: 'x', mode });
  }
  return steps;
}
