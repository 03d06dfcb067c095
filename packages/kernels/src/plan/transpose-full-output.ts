/**
 * The convolution a transposed problem with trailing output planes is checked against: the one
 * over the full transposed output (post-padding 0).
 * @internal
 */
import { UnsupportedError } from '@baracuda/types';
import { Conv3dDescriptor } from '../descriptor.js';
import type { ConvTranspose3dDescriptor } from '../transpose-descriptor.js';

/**
 * The run arguments' shapes of a problem with trailing planes: the convolution over the full
 * transposed output (post-padding 0 on the axes with trailing planes, the reached convolution's
 * elsewhere), whose output is the transposed input when outputPadding −
 * padAfter < stride on every axis. Otherwise (possible only with dilation > stride) refused.
 */
export function fullOutputConv(desc: ConvTranspose3dDescriptor): Conv3dDescriptor {
  const reached = desc.conv();
  const [d, h, w] = desc.outputDims();
  const full = Conv3dDescriptor.create({
    batch: reached.batch,
    cIn: reached.cIn,
    dIn: d,
    hIn: h,
    wIn: w,
    cOut: reached.cOut,
    dFilt: reached.dFilt,
    hFilt: reached.hFilt,
    wFilt: reached.wFilt,
    element: reached.element,
  })
    // An axis with trailing planes has no post-padding (they take its place); the others keep
    // the post-padding the reached convolution has.
    .withPadding({
      before: [reached.padD, reached.padH, reached.padW],
      after: [reached.padAfterD, reached.padAfterH, reached.padAfterW],
    })
    .withStride(reached.strideD, reached.strideH, reached.strideW)
    .withDilation(reached.dilationD, reached.dilationH, reached.dilationW)
    .withGroups(reached.groups)
    .withLayout(reached.layout)
    .validate();
  if (full.yShape.some((e, i) => e !== desc.xShape[i])) {
    throw new UnsupportedError(
      `${desc.describe()} has trailing output planes ([${desc.trailingPlanes().join(', ')}] per axis) ` +
        'at least a stride past the last window (outputPadding − padAfter ≥ stride, possible only with ' +
        'dilation > stride); ConvTranspose3dPlan does not run these: pad the after side by more',
    );
  }
  return full;
}
