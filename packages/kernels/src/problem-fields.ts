/**
 * What both descriptors' `create` starts from: the problem object checked to be an object, its
 * ten fields read once each in order, and the default geometry (no padding, stride and dilation
 * 1, one group, NCDHW). The values themselves are checked by each descriptor's `validate()`.
 */
import { InvalidArgumentError } from '@baracuda/types';
import type { Conv3dProblem } from './descriptor.js';

/** The problem's fields and the default geometry, as both descriptors hold them. */
export function problemFields(problem: Conv3dProblem) {
  if (typeof problem !== 'object' || problem === null) {
    throw new InvalidArgumentError(
      'problem',
      'an object {batch, cIn, dIn, hIn, wIn, cOut, dFilt, hFilt, wFilt, element}',
      problem,
    );
  }
  return {
    batch: problem.batch,
    cIn: problem.cIn,
    dIn: problem.dIn,
    hIn: problem.hIn,
    wIn: problem.wIn,
    cOut: problem.cOut,
    dFilt: problem.dFilt,
    hFilt: problem.hFilt,
    wFilt: problem.wFilt,
    element: problem.element,
    padD: 0,
    padH: 0,
    padW: 0,
    padAfterD: 0,
    padAfterH: 0,
    padAfterW: 0,
    paddingMode: 'explicit' as const,
    strideD: 1,
    strideH: 1,
    strideW: 1,
    dilationD: 1,
    dilationH: 1,
    dilationW: 1,
    groups: 1,
    layout: 'ncdhw' as const,
  };
}
