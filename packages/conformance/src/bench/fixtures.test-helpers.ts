/** Shared fixtures for the bench unit tests. */
import type { BenchCase, BenchPeaks, BenchRowResult, ModeResult } from './types.js';

export const SMALL: BenchCase = {
  name: 'small',
  n: 2,
  cIn: 16,
  cOut: 32,
  in: [8, 8, 8],
  k: [3, 3, 3],
  pad: [1, 1, 1],
  stride: [1, 1, 1],
  dil: [1, 1, 1],
  groups: 1,
};

export const BIG: BenchCase = {
  name: 'big',
  n: 8,
  cIn: 64,
  cOut: 128,
  in: [16, 56, 56],
  k: [3, 3, 3],
  pad: [1, 1, 1],
  stride: [1, 1, 1],
  dil: [1, 1, 1],
  groups: 1,
};

export const PEAKS: BenchPeaks = {
  copyBytesPerS: 4e12,
  gemmFlopsPerS: { f16: 600e12, bf16: 600e12, f32: 50e12, tf32: 300e12, f64: 50e12 },
  gemmNotes: {},
};

export function ok(mode: ModeResult['mode'], medianMs: number): ModeResult {
  return { mode, status: 'ok', medianMs, reps: 30 };
}

export function row(
  id: string,
  modes: ModeResult[],
  extra: Partial<BenchRowResult> = {},
): BenchRowResult {
  const [caseName, dtype, layout, pass] = id.split('|') as [
    string,
    BenchRowResult['dtype'],
    BenchRowResult['layout'],
    BenchRowResult['pass'],
  ];
  return {
    id,
    case: caseName,
    dtype,
    layout,
    pass,
    macs: 1e9,
    bytes: 1e6,
    sets: 1,
    modes,
    ...extra,
  };
}
