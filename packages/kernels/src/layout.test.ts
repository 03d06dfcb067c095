import { ElementKind } from '@baracuda/types';
import { beforeEach, describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from './descriptor.js';
import {
  filterFlip,
  flipFilterHost,
  LayoutKernels,
  layoutTransposes,
  type TransposeShape,
  transposeGrid,
  transposeHost,
} from './layout.js';
import { LAYOUT_PTX } from './layout-ptx.js';
import { ptxEntryParams, recordingLoader } from './ptx.test-helpers.js';

const ncdhw = Conv3dDescriptor.create({
  batch: 2,
  cIn: 6,
  dIn: 3,
  hIn: 4,
  wIn: 5,
  cOut: 4,
  dFilt: 2,
  hFilt: 3,
  wFilt: 1,
  element: ElementKind.F32,
})
  .withPadding(0, 1, 0)
  .withGroups(2);
const ndhwc = ncdhw.withLayout('ndhwc');

/** Element (indices in NCDHW order) → offset, by a descriptor's strides. */
function offsets(shape: readonly number[], strides: readonly number[]): number[] {
  const out: number[] = [];
  const walk = (dim: number, offset: number) => {
    if (dim === shape.length) {
      out.push(offset);
      return;
    }
    for (let i = 0; i < shape[dim]!; i++) walk(dim + 1, offset + i * strides[dim]!);
  };
  walk(0, 0);
  return out;
}

describe('layoutTransposes', () => {
  for (const role of ['x', 'w', 'y'] as const) {
    it(`moves ${role} between the NCDHW and NDHWC strides of Conv3dDescriptor`, () => {
      const shape = { x: ncdhw.xShape, w: ncdhw.wShape, y: ncdhw.yShape }[role];
      const from = offsets(
        shape,
        { x: ncdhw.xStrides, w: ncdhw.wStrides, y: ncdhw.yStrides }[role],
      );
      const to = offsets(shape, { x: ndhwc.xStrides, w: ndhwc.wStrides, y: ndhwc.yStrides }[role]);
      const count = from.length;
      // Distinct values (never zeros) in NCDHW; the NDHWC array the strides say it must become.
      const src = new Float64Array(count);
      const expected = new Float64Array(count);
      for (let i = 0; i < count; i++) {
        src[from[i]!] = i + 1;
        expected[to[i]!] = i + 1;
      }
      const t = layoutTransposes(ncdhw)[role];
      const there = transposeHost(src, new Float64Array(count).fill(Number.NaN), t.toNdhwc);
      expect(Array.from(there)).toEqual(Array.from(expected));
      const back = transposeHost(there, new Float64Array(count).fill(Number.NaN), t.toNcdhw);
      expect(Array.from(back)).toEqual(Array.from(src));
    });
  }
});

describe('transposeGrid', () => {
  it('tiles 32×32, puts the batch on grid y, capped at 65535', () => {
    expect(transposeGrid({ batch: 8, rows: 64, cols: 50176 })).toEqual({
      grid: [2 * 1568, 8, 1],
      tilesCols: 1568,
    });
    expect(transposeGrid({ batch: 100000, rows: 33, cols: 1 })).toEqual({
      grid: [2, 65535, 1],
      tilesCols: 1,
    });
    // PyTorch 163539's reproducer: 16 channels × 124·1282·722 voxels.
    expect(transposeGrid({ batch: 1, rows: 16, cols: 124 * 1282 * 722 })?.grid[0]).toBe(
      Math.ceil((124 * 1282 * 722) / 32),
    );
  });
  it('refuses a grid beyond 2^31 − 1 blocks', () => {
    expect(transposeGrid({ batch: 1, rows: 2 ** 20, cols: 2 ** 32 })).toBeNull();
  });
});

describe('LayoutKernels', () => {
  beforeEach(() => LayoutKernels.resetForTests());
  const device = {
    ordinal: 3,
    name: 'fake',
    computeCapability: { major: 9, minor: 0 },
  };

  it('loads the PTX once per device and packs the launch as cuda/layout.cu declares it', () => {
    const { loader, loads, launches } = recordingLoader();
    const k = LayoutKernels.forDevice(device, loader);
    expect(LayoutKernels.forDevice(device, loader)).toBe(k);
    expect(loads).toEqual([LAYOUT_PTX]);
    if (k instanceof Error) throw k;
    const shape: TransposeShape = { batch: 3, rows: 40, cols: 70 };
    const stream = { raw: 0x77n };
    for (const bytes of [2, 4, 8]) {
      expect(k.transpose(stream, 0x1000n, 0x2000n, shape, bytes)).toBe(true);
    }
    expect(k.transpose(stream, 0x1000n, 0x2000n, shape, 1)).toBe(false);
    // 2-byte elements go in pairs only with even extents and 4-byte aligned pointers.
    expect(k.transpose(stream, 0x1002n, 0x2000n, shape, 2)).toBe(true);
    expect(k.transpose(stream, 0x1000n, 0x2000n, { ...shape, rows: 41 }, 2)).toBe(true);
    expect(launches.map((l) => l.name)).toEqual([
      'baracuda_transpose_b16x2',
      'baracuda_transpose_b32',
      'baracuda_transpose_b64',
      'baracuda_transpose_b16',
      'baracuda_transpose_b16',
    ]);
    expect(launches.every((launch) => launch.shared === 0)).toBe(true);
    const wide = launches[0]!;
    expect(wide.grid).toEqual([1 * 2, 3, 1]);
    expect(new DataView(wide.params.buffer).getBigUint64(32, true)).toBe(2n);
    const l = launches[1]!;
    expect(l.grid).toEqual([2 * 3, 3, 1]);
    expect(l.block).toEqual([32, 8, 1]);
    expect(l.params.length).toBe(48);
    const v = new DataView(l.params.buffer, l.params.byteOffset, l.params.byteLength);
    expect(v.getBigUint64(0, true)).toBe(0x1000n);
    expect(v.getBigUint64(8, true)).toBe(0x2000n);
    expect(v.getBigUint64(16, true)).toBe(40n);
    expect(v.getBigUint64(24, true)).toBe(70n);
    expect(v.getBigUint64(32, true)).toBe(3n);
    expect(v.getBigUint64(40, true)).toBe(3n);
  });

  it('packs a filter flip as cuda/layout.cu declares it, one thread an element', () => {
    const { loader, launches } = recordingLoader();
    const k = LayoutKernels.forDevice({ ...device, ordinal: 4 }, loader);
    if (k instanceof Error) throw k;
    const stream = { raw: 0x77n };
    const flip = { kg: 128, cg: 64, spatial: 27, total: 128 * 64 * 27, layout: 'ndhwc' as const };
    for (const bytes of [2, 4, 8]) {
      expect(k.flipFilter(stream, 0x1000n, 0x2000n, flip, bytes)).toBe(true);
    }
    expect(k.flipFilter(stream, 0x1000n, 0x2000n, flip, 1)).toBe(false);
    expect(k.flipFilter(stream, 0x1000n, 0x2000n, { ...flip, total: 320 * 320 * 175 }, 4)).toBe(
      true,
    );
    expect(launches.map((l) => l.name)).toEqual([
      'baracuda_flip_filter_b16',
      'baracuda_flip_filter_b32',
      'baracuda_flip_filter_b64',
      'baracuda_flip_filter_b32',
    ]);
    const l = launches[0]!;
    expect([l.grid, l.block, l.shared]).toEqual([[864, 1, 1], [256, 1, 1], 0]);
    // Past 65535 blocks, the grid stops there and the threads loop.
    expect(launches[3]!.grid).toEqual([65535, 1, 1]);
    const v = new DataView(l.params.buffer, l.params.byteOffset, l.params.byteLength);
    expect(l.params.length).toBe(56);
    expect([0, 8, 16, 24, 32, 40, 48].map((at) => v.getBigUint64(at, true))).toEqual([
      0x1000n,
      0x2000n,
      128n,
      64n,
      27n,
      BigInt(128 * 64 * 27),
      1n,
    ]);
  });

  it('the PTX declares those kernels with that parameter block', () => {
    for (const name of ['b16', 'b32', 'b64']) {
      expect(ptxEntryParams(LAYOUT_PTX, `baracuda_flip_filter_${name}`), name).toEqual(
        Array(7).fill('.u64'),
      );
    }
    for (const name of ['b16', 'b32', 'b64', 'b16x2']) {
      expect(ptxEntryParams(LAYOUT_PTX, `baracuda_transpose_${name}`), name).toEqual([
        '.u64',
        '.u64',
        '.u64',
        '.u64',
        '.u64',
        '.u64',
      ]);
    }
  });
});

describe('flipFilterHost', () => {
  /** The flip by 5-D coordinates: out[g*cg + c][k][T-1-t][R-1-r][S-1-s] = W[g*kg + k][c][t][r][s]. */
  function byCoordinates(desc: Conv3dDescriptor, w: Float64Array): Float64Array {
    const g = desc.groups;
    const kg = desc.cOut / g;
    const cg = desc.cIn / g;
    const [T, R, S] = [desc.dFilt, desc.hFilt, desc.wFilt];
    const wStrides = desc.wStrides;
    // The flipped filter is the forward problem's: [cIn, kg, T, R, S], in the same layout.
    const flipped = Conv3dDescriptor.create({
      batch: 1,
      cIn: desc.cOut,
      dIn: T,
      hIn: R,
      wIn: S,
      cOut: desc.cIn,
      dFilt: T,
      hFilt: R,
      wFilt: S,
      element: desc.element,
    })
      .withGroups(g)
      .withLayout(desc.layout);
    const oStrides = flipped.wStrides;
    const out = new Float64Array(w.length);
    const at = (strides: readonly number[], i: number[]) =>
      i.reduce((sum, v, d) => sum + v * strides[d]!, 0);
    for (let group = 0; group < g; group++) {
      for (let k = 0; k < kg; k++) {
        for (let c = 0; c < cg; c++) {
          for (let t = 0; t < T; t++) {
            for (let r = 0; r < R; r++) {
              for (let s = 0; s < S; s++) {
                out[at(oStrides, [group * cg + c, k, T - 1 - t, R - 1 - r, S - 1 - s])] =
                  w[at(wStrides, [group * kg + k, c, t, r, s])]!;
              }
            }
          }
        }
      }
    }
    return out;
  }

  for (const desc of [ncdhw, ndhwc]) {
    it(`transposes per group and flips every spatial axis (${desc.layout})`, () => {
      const w = Float64Array.from({ length: desc.wElements }, (_, i) => i + 1);
      const flip = filterFlip(desc);
      expect(flip).toEqual({ kg: 2, cg: 3, spatial: 6, total: 72, layout: desc.layout });
      expect(flipFilterHost(w, new Float64Array(w.length), flip)).toEqual(byCoordinates(desc, w));
    });
  }
});
