/**
 * What cuda/space-to-depth.cu computes, on the host: bit for bit (elements are moved, and an
 * uncovered position scaled by beta rounds as the kernel does), for tests and the device check's
 * references.
 */
import {
  bf16BitsToF32,
  ElementKind,
  f16BitsToF32,
  f32ToBf16Bits,
  f32ToF16Bits,
} from '@baracuda/types';
import type { VectorGather } from './gather-vector.js';
import { type GatherMap, type InverseMap, InverseMode } from './space-to-depth.js';

type Elements = { length: number; [i: number]: number };

/** out = gather(src) (see {@link GatherMap}); an element out of range is 0 (all bits zero). */
export function gatherHost<T extends Elements>(src: T, out: T, map: GatherMap): T {
  const { dims, strides, axis, mul, pad, extent } = map;
  const coord = [0, 0, 0];
  for (let o = 0; o < map.total; o++) {
    let rem = o;
    let offset = map.base;
    coord[0] = -pad[0];
    coord[1] = -pad[1];
    coord[2] = -pad[2];
    for (let k = dims.length - 1; k >= 0; k--) {
      const i = rem % dims[k]!;
      rem = (rem - i) / dims[k]!;
      offset += i * strides[k]!;
      const a = axis[k]!;
      if (a >= 0) coord[a]! += i * mul[k]!;
    }
    const inside = coord.every((c, a) => c >= 0 && c < extent[a]!);
    out[o] = inside ? src[offset]! : 0;
  }
  return out;
}

/**
 * beta·v as the kernel rounds it: f32 arithmetic for f32, f16 and bf16 (elements as their bit
 * patterns for the 2-byte kinds), f64 for f64.
 */
export function scaledHost(v: number, beta: number, element: ElementKind): number {
  const b = Math.fround(beta);
  switch (element) {
    case ElementKind.F64:
      return beta * v;
    case ElementKind.F16:
      return f32ToF16Bits(Math.fround(b * f16BitsToF32(v)));
    case ElementKind.Bf16:
      return f32ToBf16Bits(Math.fround(b * bf16BitsToF32(v)));
    default:
      return Math.fround(b * v);
  }
}

/**
 * out = inverse(src) (see {@link InverseMap}), with an uncovered position of out zeroed, kept,
 * or scaled by `beta` (`mode`).
 */
export function inverseHost<T extends Elements>(
  src: T,
  out: T,
  map: InverseMap,
  mode: InverseMode,
  beta = 0,
  element: ElementKind = ElementKind.F64,
): T {
  const { dims, strides, axis, pad, block, count, blockStride, phaseStride } = map;
  for (let o = 0; o < map.total; o++) {
    let rem = o;
    let offset = 0;
    let covered = true;
    for (let k = dims.length - 1; k >= 0; k--) {
      const i = rem % dims[k]!;
      rem = (rem - i) / dims[k]!;
      const a = axis[k]!;
      if (a < 0) {
        offset += i * strides[k]!;
        continue;
      }
      const t = i + pad[a]!;
      const j = Math.floor(t / block[a]!);
      if (j >= count[a]!) covered = false;
      offset += j * blockStride[a]! + (t - j * block[a]!) * phaseStride[a]!;
    }
    if (covered) out[o] = src[offset]!;
    else if (mode === InverseMode.Zero) out[o] = 0;
    else if (mode === InverseMode.Scale) out[o] = scaledHost(out[o]!, beta, element);
  }
  return out;
}

/**
 * out = the vector gather `plan` of src (see gather-vector.ts): each vector's V elements read
 * consecutively and written `vstride` apart, as cuda/space-to-depth.cu's gatherVector moves them.
 */
export function gatherVectorHost<T extends Elements>(
  src: T,
  out: T,
  plan: VectorGather,
  elementBytes: number,
): T {
  const v = plan.vectorBytes / elementBytes;
  const { dims, strides, outStrides } = plan;
  for (let o = 0; o < plan.total; o++) {
    let rem = o;
    let from = plan.base;
    let to = 0;
    for (let k = dims.length - 1; k >= 0; k--) {
      const i = rem % dims[k]!;
      rem = (rem - i) / dims[k]!;
      from += i * strides[k]!;
      to += i * outStrides[k]!;
    }
    for (let u = 0; u < v; u++) out[to + u * plan.vstride] = src[from + u]!;
  }
  return out;
}
