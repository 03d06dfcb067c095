// For depthwise-device-check.mjs: a depthwise problem from a few numbers, and random operands as
// an element's bytes with their values as rounded.
import { Conv3dDescriptor } from '../src/descriptor.ts';
import { elementArray, storeElement } from './device-helpers.mjs';

/** The depthwise problem of shape `t` ({c, n, in, k, pad, stride, dil}) in `element`, `layout`. */
export function desc(t, element, layout = 'ncdhw') {
  const [pd, ph, pw] = t.pad ?? [0, 0, 0];
  const [sd, sh, sw] = t.stride ?? [1, 1, 1];
  const [dd, dh, dw] = t.dil ?? [1, 1, 1];
  return Conv3dDescriptor.create({
    batch: t.n ?? 1,
    cIn: t.c,
    cOut: t.c,
    dIn: t.in[0],
    hIn: t.in[1],
    wIn: t.in[2],
    dFilt: t.k[0],
    hFilt: t.k[1],
    wFilt: t.k[2],
    element,
  })
    .withPadding(pd, ph, pw)
    .withStride(sd, sh, sw)
    .withDilation(dd, dh, dw)
    .withGroups(t.c)
    .withLayout(layout);
}

/** Random values in [-1, 1) as the element's bytes, and their values as rounded (f64). */
export function operand(element, count) {
  const host = elementArray(element, count);
  const values = Float64Array.from({ length: count }, (_, i) =>
    storeElement(element, host, i, Math.random() * 2 - 1),
  );
  return { host, values };
}

/** `count` random elements for timing: 2^16 random values repeated (cheap at X3D's size). */
export function filler(name, count) {
  const block = operand(name, Math.min(count, 1 << 16)).host;
  const host = elementArray(name, count);
  for (let i = 0; i < count; i += block.length) host.set(block.subarray(0, count - i), i);
  return host;
}
