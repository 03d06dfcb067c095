/**
 * The fakes for tests without GPUs: the fake libnccl.so.2 of @baracuda/nccl-sys and the driver's
 * fake libcuda.so.1 (device memory is host memory), built through scripts/testing/build-fake.mjs,
 * and host-side helpers to fill and read device buffers of any collective kind.
 */
import { Device, DeviceBuffer } from '@baracuda/driver';
import { bf16ArrayToF32, f16ArrayToF32, f32ArrayToBf16, f32ArrayToF16 } from '@baracuda/types';
import {
  buildFakeLibcudaLibrary,
  buildFakeNcclLibrary,
  fakeLiveCounts,
} from '../../../scripts/testing/build-fake.mjs';
import type { CollectiveKind } from './kinds.js';

/** Points the loaders at the fakes (before anything loads them); returns the fake NCCL's path. */
export function useFakes(devices = 4): string {
  const nccl = buildFakeNcclLibrary();
  process.env.BARACUDA_NCCL_LIBRARY = nccl;
  process.env.BARACUDA_CUDA_DRIVER_LIBRARY = buildFakeLibcudaLibrary();
  process.env.FAKE_CUDA_DEVICE_COUNT = String(devices);
  return nccl;
}

/** {comms, cliques, pending} of the fake NCCL loaded in this process. */
export function ncclLive(library: string): Record<string, number> {
  const counts = fakeLiveCounts(library);
  if (counts === null) throw new Error(`${library} is not loaded`);
  return counts;
}

export const FLOAT_KINDS = ['f32', 'f64', 'f16', 'bf16'] as const;
export type FloatKind = (typeof FLOAT_KINDS)[number];

/** Relative L2 tolerance per kind (one rounding of an exact f64 result). */
export const TOLERANCE: Record<FloatKind, number> = {
  f32: 1e-6,
  f64: 1e-13,
  f16: 1e-3,
  bf16: 8e-3,
};

export function byteSize(kind: FloatKind): number {
  return kind === 'f64' ? 8 : kind === 'f32' ? 4 : 2;
}

/** `values` rounded to `kind` (what the buffer will hold), as f64. */
export function roundTo(kind: FloatKind, values: readonly number[]): number[] {
  const f32 = Float32Array.from(values);
  if (kind === 'f64') return [...values];
  if (kind === 'f32') return [...f32];
  if (kind === 'f16') return [...f16ArrayToF32(f32ArrayToF16(f32))];
  return [...bf16ArrayToF32(f32ArrayToBf16(f32))];
}

function hostArray(kind: FloatKind, values: readonly number[]): ArrayBufferView {
  if (kind === 'f64') return Float64Array.from(values);
  const f32 = Float32Array.from(values);
  if (kind === 'f32') return f32;
  return kind === 'f16' ? f32ArrayToF16(f32) : f32ArrayToBf16(f32);
}

/** A buffer of `values` in `kind` on `device`. */
export function upload(
  kind: CollectiveKind,
  values: readonly number[],
  device: number,
): DeviceBuffer {
  const host = hostArray(kind as FloatKind, values);
  const buffer = DeviceBuffer.alloc(host.byteLength, { device: deviceOf(device) });
  buffer.uploadSync(host);
  return buffer;
}

/** A buffer of `count` elements poisoned with NaN (never zeros). */
export function poisoned(kind: FloatKind, count: number, device: number): DeviceBuffer {
  return upload(kind, Array(count).fill(Number.NaN), device);
}

export function download(kind: FloatKind, buffer: DeviceBuffer): number[] {
  const count = buffer.byteLength / byteSize(kind);
  if (kind === 'f64') {
    const host = new Float64Array(count);
    buffer.downloadSync(host);
    return [...host];
  }
  if (kind === 'f32') {
    const host = new Float32Array(count);
    buffer.downloadSync(host);
    return [...host];
  }
  const bits = new Uint16Array(count);
  buffer.downloadSync(bits);
  return [...(kind === 'f16' ? f16ArrayToF32(bits) : bf16ArrayToF32(bits))];
}

/** Relative L2 error of `got` against `expected` (NaN in `got` makes it NaN: a failure). */
export function relativeL2(got: readonly number[], expected: readonly number[]): number {
  if (got.length !== expected.length) return Number.POSITIVE_INFINITY;
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < got.length; ++i) {
    diff += ((got[i] as number) - (expected[i] as number)) ** 2;
    norm += (expected[i] as number) ** 2;
  }
  return Math.sqrt(diff) / Math.max(Math.sqrt(norm), 1e-30);
}

/** Random values in [-2, 2) from a seeded generator (fresh per case, reproducible). */
export function randomValues(count: number, seed: number): number[] {
  let state = seed >>> 0 || 1;
  return Array.from({ length: count }, () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) / 2 ** 32) * 4 - 2;
  });
}

function deviceOf(ordinal: number): Device {
  return Device.get(ordinal);
}
