/** Backward-data of a stride-1 layer as a forward problem (the route exec/bwdata-as-fw.ts runs). */
import { Conv3dDescriptor } from './descriptor.js';

/**
 * The forward problem whose result is this problem's backward-data, when there is one: with
 * stride 1 in every dimension, dx is the forward convolution of dy (cOut channels, padded by
 * dilation * (k - 1) - pad) with the filter transposed per group to [cIn, cOut / groups, T, R, S]
 * and flipped in space (see `filterFlip` in layout.ts). Null for a strided layer, or one padded by
 * more than dilation * (k - 1) on some side (before or after) (its dx would need a negative padding).
 */
export function bwDataAsForward(d: Conv3dDescriptor): Conv3dDescriptor | null {
  d.validate();
  if (d.strideD !== 1 || d.strideH !== 1 || d.strideW !== 1) return null;
  // Per side: the flipped problem pads dilation * (k - 1) - pad before and dilation * (k - 1) -
  // padAfter after (the flip moves each side's window onto the same side of dy).
  const reach = [
    d.dilationD * (d.dFilt - 1),
    d.dilationH * (d.hFilt - 1),
    d.dilationW * (d.wFilt - 1),
  ];
  const before = [reach[0]! - d.padD, reach[1]! - d.padH, reach[2]! - d.padW] as const;
  const after = [
    reach[0]! - d.padAfterD,
    reach[1]! - d.padAfterH,
    reach[2]! - d.padAfterW,
  ] as const;
  if (before.some((p) => p < 0) || after.some((p) => p < 0)) return null;
  const [od, oh, ow] = d.outputDims();
  const forward = Conv3dDescriptor.create({
    batch: d.batch,
    cIn: d.cOut,
    dIn: od,
    hIn: oh,
    wIn: ow,
    cOut: d.cIn,
    dFilt: d.dFilt,
    hFilt: d.hFilt,
    wFilt: d.wFilt,
    element: d.element,
  })
    .withPadding({ before, after })
    .withDilation(d.dilationD, d.dilationH, d.dilationW)
    .withGroups(d.groups)
    .withLayout(d.layout)
    .validate();
  const [fd, fh, fw] = forward.outputDims();
  return fd === d.dIn && fh === d.hIn && fw === d.wIn ? forward : null;
}
