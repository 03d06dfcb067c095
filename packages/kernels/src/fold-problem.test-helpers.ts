/** The small convolutions the space-to-depth tests fold: f32, cOut 4, 7×9×10 unless told. */
import { ElementKind } from '@baracuda/types';
import { Conv3dDescriptor } from './descriptor.js';

export function foldProblem(
  layout: 'ncdhw' | 'ndhwc',
  k: readonly number[],
  stride: readonly number[] = k,
  pad: readonly number[] = [0, 0, 0],
  batch = 2,
  cIn = 3,
  extent: readonly number[] = [7, 9, 10],
): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch,
    cIn,
    dIn: extent[0]!,
    hIn: extent[1]!,
    wIn: extent[2]!,
    cOut: 4,
    dFilt: k[0]!,
    hFilt: k[1]!,
    wFilt: k[2]!,
    element: ElementKind.F32,
  })
    .withStride(stride[0]!, stride[1]!, stride[2]!)
    .withPadding(pad[0]!, pad[1]!, pad[2]!)
    .withLayout(layout);
}
