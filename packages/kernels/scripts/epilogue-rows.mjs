// What the epilogue checks share (epilogue-device-check.mjs and family-device-check.mjs, both run
// on the GPU machine): the element kinds with their tolerances against f64, the activations with
// their parameters, and the host <-> device helpers of a row (fresh random values, NaN-poisoned
// outputs, values read back as f64).
import { DeviceBuffer } from '../../driver/dist/index.js';
import { elementArray, loadElement, storeElement } from './device-helpers.mjs';

/** Bytes and relative-L2 tolerance against the f64 reference, per element kind. */
export const ELEMENTS = {
  f32: { bytes: 4, tol: 1e-5 },
  f64: { bytes: 8, tol: 1e-12 },
  f16: { bytes: 2, tol: 5e-3 },
  bf16: { bytes: 2, tol: 3e-2 },
};

/** Every activation of the epilogue, with the parameters the checks give it. */
export const ACTIVATIONS = [
  { activation: 'identity' },
  { activation: 'relu' },
  { activation: 'leakyRelu', slope: 0.2 },
  { activation: 'gelu' },
  { activation: 'geluTanh' },
  { activation: 'silu' },
  { activation: 'sigmoid' },
  { activation: 'tanh' },
  { activation: 'clamp', min: -0.5, max: 0.5 },
];

/** `count` random values in [-1, 1) (times `scale`) as `element` bytes, and their values as rounded (f64). */
export function random(element, count, scale = 1) {
  const host = elementArray(element, count);
  const values = new Float64Array(count);
  for (let i = 0; i < count; i++)
    values[i] = storeElement(element, host, i, (Math.random() * 2 - 1) * scale);
  return { host, values };
}

/** A device buffer holding `t.host` (at least one element). */
export function upload(element, t) {
  const b = DeviceBuffer.alloc(Math.max(1, t.host.length) * ELEMENTS[element].bytes);
  b.uploadSync(t.host);
  return b;
}

/** A device buffer of `count` elements, every byte 0xff (NaN in every float kind). */
export function poisoned(element, count) {
  const b = DeviceBuffer.alloc(Math.max(1, count) * ELEMENTS[element].bytes);
  b.memsetSync(0xff);
  return b;
}

/** `count` elements of `buffer` read back as f64. */
export function download(element, buffer, count) {
  const host = elementArray(element, count);
  buffer.downloadSync(host);
  return Float64Array.from(host, (_, i) => loadElement(element, host, i));
}
