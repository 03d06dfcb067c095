import { InvalidArgumentError, InvalidProblemError } from '@baracuda/types';
import { type ConvProblem, denseStrides, type Layout, outputDims } from './problem.js';

/** Which tensor of a problem: x/dx, w/dw or y/dy. */
export type TensorRole = 'x' | 'w' | 'y';

function logicalShape(p: ConvProblem, role: TensorRole): [number, number, number, number, number] {
  switch (role) {
    case 'x':
      return [p.n, p.cIn, p.in[0], p.in[1], p.in[2]];
    case 'w':
      return [p.cOut, p.cIn / p.groups, p.k[0], p.k[1], p.k[2]];
    case 'y': {
      const [d, h, w] = outputDims(p);
      return [p.n, p.cOut, d, h, w];
    }
    default:
      throw new InvalidArgumentError('role', "'x', 'w' or 'y'", role);
  }
}

/**
 * Copy one of a problem's tensors from one layout to the other (the problem's own `layout`
 * field is ignored): `ncdhw` ↔ `ndhwc` for x and y, KCDHW ↔ KDHWC for w.
 */
export function convertLayout(
  p: ConvProblem,
  role: TensorRole,
  data: Float64Array,
  from: Layout,
  to: Layout,
): Float64Array {
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (value !== 'ncdhw' && value !== 'ndhwc') {
      throw new InvalidArgumentError(name, "'ncdhw' or 'ndhwc'", value);
    }
  }
  outputDims({ ...p, layout: from });
  const [outer, channels, d, h, w] = logicalShape(p, role);
  const count = outer * channels * d * h * w;
  if (!(data instanceof Float64Array)) {
    throw new InvalidArgumentError('data', 'a Float64Array', data);
  }
  if (data.length !== count) {
    throw new InvalidProblemError(
      `${role} holds ${data.length} elements but the problem needs ${count}`,
      role,
    );
  }
  if (from === to) return data.slice();
  const src = denseStrides(from, channels, d, h, w);
  const dst = denseStrides(to, channels, d, h, w);
  const result = new Float64Array(count);
  for (let o = 0; o < outer; o++) {
    for (let c = 0; c < channels; c++) {
      for (let i = 0; i < d; i++) {
        for (let j = 0; j < h; j++) {
          const s = o * src.outer + c * src.channel + i * src.d + j * src.h;
          const t = o * dst.outer + c * dst.channel + i * dst.d + j * dst.h;
          for (let k = 0; k < w; k++) result[t + k * dst.w] = data[s + k * src.w]!;
        }
      }
    }
  }
  return result;
}
