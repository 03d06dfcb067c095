/**
 * The 3xTF32 split on the host (bit for bit what cuda/split-tf32.cu computes), its launch
 * geometry and parameters, and the PTX's entries.
 */
import { describe, expect, it } from 'vitest';
import { cubinFor } from './module-cache.js';
import { imageIds, ptxEntryParams, recordingLoader } from './ptx.test-helpers.js';
import {
  isTf32Bits,
  SPLIT_BLOCK,
  SPLIT_MAX_BLOCKS,
  SplitKernels,
  splitLaunch,
  splitTf32Host,
  tf32RoundBits,
} from './split-tf32.js';
import { SPLIT_TF32_PTX, SPLIT_TF32_SASS } from './split-tf32-ptx.js';

const f32 = (bits: number) => new Float32Array(new Uint32Array([bits]).buffer)[0]!;
const bitsOf = (v: number) => new Uint32Array(Float32Array.of(v).buffer)[0]!;

/** Deterministic f32 values over many binades and both signs (xorshift32). */
function values(n: number, seed = 0x9e3779b9): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    // Exponents 30..229 (2^-97 to 2^102): finite values whose remainders are normal too (a
    // subnormal remainder keeps fewer bits, as docs say; tested below).
    const exponent = 30 + (s % 200);
    const mantissa = (s * 2654435761) >>> 9;
    out[i] = f32(((s & 1) << 31) | (exponent << 23) | mantissa);
  }
  return out;
}

describe('tf32RoundBits', () => {
  it('rounds to nearest, ties away from zero, on the 13 dropped bits', () => {
    // 1 + 2^-11 (exactly half a TF32 ulp) rounds up; just below it rounds down.
    expect(f32(tf32RoundBits(bitsOf(1 + 2 ** -11)))).toBe(1 + 2 ** -10);
    expect(f32(tf32RoundBits(bitsOf(1 + 2 ** -11 - 2 ** -23)))).toBe(1);
    expect(f32(tf32RoundBits(bitsOf(-(1 + 2 ** -11))))).toBe(-(1 + 2 ** -10));
    // A carry into the exponent: just below 2 becomes 2.
    expect(f32(tf32RoundBits(bitsOf(2 - 2 ** -23)))).toBe(2);
  });

  it('keeps Inf, makes NaN a quiet NaN of its sign, and truncates where it would overflow', () => {
    expect(tf32RoundBits(0x7f800000)).toBe(0x7f800000);
    expect(tf32RoundBits(0xff800000)).toBe(0xff800000);
    // A signalling NaN whose payload sits in the dropped bits: masking would make it an Inf.
    expect(tf32RoundBits(0x7f800001)).toBe(0x7fc00000);
    expect(tf32RoundBits(0xff800001)).toBe(0xffc00000);
    // FLT_MAX would round up to Inf: truncated to the largest TF32 value instead.
    expect(tf32RoundBits(0x7f7fffff)).toBe(0x7f7fe000);
    expect(tf32RoundBits(0xff7fffff)).toBe(0xff7fe000);
  });
});

describe('splitTf32Host', () => {
  it('gives TF32 parts that reconstruct every value within 2^-22 of its size', () => {
    const a = values(20000);
    const { hi, lo } = splitTf32Host(a);
    const hb = new Uint32Array(hi.buffer);
    const lb = new Uint32Array(lo.buffer);
    let worst = 0;
    for (let i = 0; i < a.length; i++) {
      expect(isTf32Bits(hb[i]!) && isTf32Bits(lb[i]!)).toBe(true);
      const rel = Math.abs(a[i]! - hi[i]! - lo[i]!) / Math.abs(a[i]!);
      worst = Math.max(worst, rel);
      // The remainder is at most half a TF32 ulp of the value.
      expect(Math.abs(lo[i]!)).toBeLessThanOrEqual(Math.abs(a[i]!) * 2 ** -11);
    }
    expect(worst).toBeLessThanOrEqual(2 ** -22);
    // The remainder carries information: hi alone is ~2^-12 off.
    expect(worst).toBeGreaterThan(0);
  });

  it('is exact where the value has at most 22 significant bits', () => {
    const a = Float32Array.of(1 + 2 ** -21, 3.25, -(2 ** 100) * (1 + 2 ** -20), 2 ** -126);
    const { hi, lo } = splitTf32Host(a);
    for (let i = 0; i < a.length; i++) expect(hi[i]! + lo[i]!).toBe(a[i]!);
  });

  it('handles zeros, Inf, NaN, FLT_MAX and subnormals', () => {
    const flt = f32(0x7f7fffff);
    const a = Float32Array.of(0, -0, Infinity, -Infinity, Number.NaN, flt, -flt, f32(0x00246000));
    const { hi, lo } = splitTf32Host(a);
    expect(Object.is(hi[1], -0) && lo[1] === 0).toBe(true);
    expect([hi[2], lo[2], hi[3], lo[3]]).toEqual([Infinity, 0, -Infinity, 0]);
    expect(Number.isNaN(hi[4]!) && lo[4] === 0).toBe(true);
    // FLT_MAX: hi truncated, both parts finite, within 2^-22 (in f64; the f32 sum would overflow).
    for (const i of [5, 6]) {
      expect(Number.isFinite(hi[i]!) && Number.isFinite(lo[i]!)).toBe(true);
      expect(Math.abs(a[i]! - hi[i]! - lo[i]!)).toBeLessThanOrEqual(flt * 2 ** -22);
    }
    expect(bitsOf(hi[5]!)).toBe(0x7f7fe000);
    // A subnormal with no bits in the dropped 13 is TF32 already.
    expect([hi[7], lo[7]]).toEqual([a[7], 0]);
    // A value whose remainder is subnormal keeps only what a subnormal TF32 remainder holds.
    const small = Float32Array.of(f32(0x03abcdef));
    const parts = splitTf32Host(small);
    expect(isTf32Bits(bitsOf(parts.lo[0]!))).toBe(true);
    expect(Math.abs(small[0]! - parts.hi[0]! - parts.lo[0]!)).toBeLessThanOrEqual(
      2 ** -149 * 2 ** 12,
    );
  });
});

describe('splitLaunch', () => {
  it('takes float4 steps only for 16-byte aligned pointers and a count that is a multiple of 4', () => {
    expect(splitLaunch(0x1000n, 0x2000n, 0x3000n, 4096)).toEqual({
      vector: true,
      grid: [4, 1, 1],
      block: [SPLIT_BLOCK, 1, 1],
    });
    expect(splitLaunch(0x1004n, 0x2000n, 0x3000n, 4096).vector).toBe(false);
    expect(splitLaunch(0x1000n, 0x2000n, 0x3000n, 4098)).toMatchObject({
      vector: false,
      grid: [17, 1, 1],
    });
    expect(splitLaunch(0x1000n, 0x2000n, 0x3000n, 1).grid).toEqual([1, 1, 1]);
    // Grid-stride: the grid stops at SPLIT_MAX_BLOCKS.
    expect(splitLaunch(0x1000n, 0x2000n, 0x3000n, 2 ** 33).grid).toEqual([SPLIT_MAX_BLOCKS, 1, 1]);
  });
});

describe('SplitKernels', () => {
  it('launches the kernel the geometry names with (src, hi, lo, count) and nothing for 0', () => {
    SplitKernels.resetForTests();
    const { loader, loads, launches } = recordingLoader();
    const device = { ordinal: 7, name: 'recording', computeCapability: { major: 9, minor: 0 } };
    const kernels = SplitKernels.forDevice(device, loader);
    if (kernels instanceof Error) throw kernels;
    // The device's own cubin (sm_90), so no JIT.
    expect(imageIds(loads)).toEqual(imageIds([cubinFor(SPLIT_TF32_SASS, device)!.image]));
    const stream = { raw: 0n };
    kernels.split(stream, 0x1000n, 0x2000n, 0x3000n, 1024);
    kernels.split(stream, 0x1004n, 0x2000n, 0x3000n, 1001);
    kernels.split(stream, 0x1000n, 0x2000n, 0x3000n, 0);
    expect(launches.map((l) => [l.name, l.grid, l.block, l.shared])).toEqual([
      ['baracuda_split_tf32_v4', [1, 1, 1], [256, 1, 1], 0],
      ['baracuda_split_tf32', [4, 1, 1], [256, 1, 1], 0],
    ]);
    const params = new BigUint64Array(launches[1]!.params.slice().buffer);
    expect([...params]).toEqual([0x1004n, 0x2000n, 0x3000n, 1001n]);
    SplitKernels.resetForTests();
  });

  it('declares both entries with four 8-byte parameters', () => {
    for (const name of ['baracuda_split_tf32', 'baracuda_split_tf32_v4']) {
      expect(ptxEntryParams(SPLIT_TF32_PTX, name)).toEqual(['.u64', '.u64', '.u64', '.u64']);
    }
  });
});
