import { ElementKind } from '@baracuda/types';
import { beforeEach, describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from './descriptor.js';
import {
  filterFlip,
  flipFilterHost,
  LayoutKernels,
  layoutTransposes,
  narrowTranspose,
  type TransposeShape,
  transposeGrid,
  transposeHost,
  vectorTranspose,
} from './layout.js';
import { LAYOUT_PTX, LAYOUT_SASS } from './layout-ptx.js';
import { cubinFor } from './module-cache.js';
import { imageIds, ptxEntryParams, recordingLoader } from './ptx.test-helpers.js';

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

  it("loads the device's cubin once per device and packs the launch as cuda/layout.cu declares it", () => {
    const { loader, loads, launches } = recordingLoader();
    const k = LayoutKernels.forDevice(device, loader);
    expect(LayoutKernels.forDevice(device, loader)).toBe(k);
    // The device's own cubin (sm_90), so no JIT.
    expect(imageIds(loads)).toEqual(imageIds([cubinFor(LAYOUT_SASS, device)!.image]));
    if (k instanceof Error) throw k;
    const shape: TransposeShape = { batch: 3, rows: 40, cols: 70 };
    const stream = { raw: 0x77n };
    // 8-byte aligned: not the 16-byte vector kernels.
    for (const bytes of [2, 4, 8]) {
      expect(k.transpose(stream, 0x1008n, 0x2000n, shape, bytes)).toBe(true);
    }
    expect(k.transpose(stream, 0x1008n, 0x2000n, shape, 1)).toBe(false);
    // 2-byte elements go in pairs only with even extents and 4-byte aligned pointers.
    expect(k.transpose(stream, 0x1002n, 0x2000n, shape, 2)).toBe(true);
    expect(k.transpose(stream, 0x1008n, 0x2000n, { ...shape, rows: 41 }, 2)).toBe(true);
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
    expect(v.getBigUint64(0, true)).toBe(0x1008n);
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
    for (const name of [
      ...['b16', 'b32', 'b64', 'b16x2'],
      ...['v16_b16', 'v16_b32', 'v16_b64', 'narrow_b16', 'narrow_b32', 'narrow_b64'],
    ]) {
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

describe('vectorTranspose', () => {
  /**
   * cuda/layout.cu's transposeVec run on the CPU, block by block and thread by thread, with the
   * launch `vectorTranspose` gives: a wrong tile count, block shape or swizzle loses or misplaces
   * elements here as on the GPU. Elements are numbers; a "vector" is `ve` of them.
   */
  function emulate(src: Float64Array, shape: TransposeShape, bytes: number): Float64Array {
    const launch = vectorTranspose(0n, 0n, shape, bytes);
    if (launch === null) throw new Error('no vector launch');
    const ve = 16 / bytes;
    const [cg, rg] = launch.block;
    const rowVecs = shape.rows / ve;
    const colVecs = shape.cols / ve;
    const out = new Float64Array(src.length).fill(Number.NaN);
    const slots: Float64Array[] = new Array(launch.sharedBytes / 16);
    const matrix = shape.rows * shape.cols;
    for (let bx = 0; bx < launch.grid[0]; bx++) {
      const tileRow = Math.floor(bx / launch.tilesCols);
      const tileCol = bx - tileRow * launch.tilesCols;
      const vr0 = tileRow * rg;
      const vc0 = tileCol * cg;
      for (let by = 0; by < launch.grid[1]; by++) {
        for (let b = by; b < shape.batch; b += launch.grid[1]) {
          slots.fill(new Float64Array(ve).fill(Number.NaN));
          for (let ty = 0; ty < rg; ty++) {
            for (let tx = 0; tx < cg; tx++) {
              const vr = vr0 + ty;
              const vc = vc0 + tx;
              if (vr >= rowVecs || vc >= colVecs) continue;
              for (let i = 0; i < ve; i++) {
                const t = new Float64Array(ve);
                for (let j = 0; j < ve; j++) {
                  t[j] = src[b * matrix + (vr * ve + j) * shape.cols + vc * ve + i]!;
                }
                slots[(tx * ve + i) * rg + (ty ^ (tx & (rg - 1)))] = t;
              }
            }
          }
          const threads = cg * rg;
          for (let linear = 0; linear < threads; linear++) {
            const wv = linear % rg;
            for (let row = Math.floor(linear / rg); row < cg * ve; row += threads / rg) {
              const c = vc0 * ve + row;
              const v = vr0 + wv;
              if (c >= shape.cols || v >= rowVecs) continue;
              const t = slots[row * rg + (wv ^ (Math.floor(row / ve) & (rg - 1)))]!;
              for (let j = 0; j < ve; j++) out[b * matrix + c * shape.rows + v * ve + j] = t[j]!;
            }
          }
        }
      }
    }
    return out;
  }

  const cases: [number, TransposeShape][] = [
    [2, { batch: 2, rows: 64, cols: 784 }], // x of c3d-conv2, one depth slice: a 32 × 8 block
    [2, { batch: 2, rows: 784, cols: 128 }], // y back: 16 × 16
    [2, { batch: 3, rows: 8, cols: 8 }],
    [2, { batch: 1, rows: 32, cols: 4096 }],
    [2, { batch: 1, rows: 4096, cols: 32 }],
    [2, { batch: 2, rows: 136, cols: 264 }], // tiles cut at both edges
    [4, { batch: 2, rows: 12, cols: 1000 }],
    [4, { batch: 3, rows: 1000, cols: 12 }],
    [8, { batch: 5, rows: 6, cols: 514 }],
    [8, { batch: 1, rows: 2, cols: 2 }],
  ];
  for (const [bytes, shape] of cases) {
    it(`moves every element (${bytes}-byte, ${shape.batch}×${shape.rows}×${shape.cols})`, () => {
      const count = shape.batch * shape.rows * shape.cols;
      const src = Float64Array.from({ length: count }, (_, i) => i + 1);
      expect(Array.from(emulate(src, shape, bytes))).toEqual(
        Array.from(transposeHost(src, new Float64Array(count), shape)),
      );
    });
  }

  it('applies to multiples of 16 bytes at 16-byte aligned pointers only', () => {
    const shape = { batch: 1, rows: 64, cols: 64 };
    expect(vectorTranspose(0x1000n, 0x2000n, shape, 2)).not.toBeNull();
    expect(vectorTranspose(0x1008n, 0x2000n, shape, 2)).toBeNull();
    expect(vectorTranspose(0x1000n, 0x2004n, shape, 4)).toBeNull();
    expect(vectorTranspose(0x1000n, 0x2000n, { ...shape, rows: 60 }, 2)).toBeNull();
    expect(vectorTranspose(0x1000n, 0x2000n, { ...shape, cols: 62 }, 4)).toBeNull();
    expect(vectorTranspose(0x1000n, 0x2000n, { ...shape, cols: 66 }, 8)).not.toBeNull();
    expect(vectorTranspose(0x1000n, 0x2000n, shape, 1)).toBeNull();
  });

  it('shapes the block to the matrix: 16-byte runs both ways, at most 256 threads', () => {
    // c3d-conv2's x (64 channels) and y (128) in 2-byte elements.
    expect(vectorTranspose(0n, 0n, { batch: 8, rows: 64, cols: 50176 }, 2)).toEqual({
      grid: [196, 8, 1],
      block: [32, 8, 1],
      sharedBytes: 32 * 8 * 8 * 16,
      tilesCols: 196,
    });
    expect(vectorTranspose(0n, 0n, { batch: 8, rows: 50176, cols: 128 }, 2)).toEqual({
      grid: [392, 8, 1],
      block: [16, 16, 1],
      sharedBytes: 16 * 16 * 8 * 16,
      tilesCols: 1,
    });
    expect(vectorTranspose(0n, 0n, { batch: 70000, rows: 2, cols: 2 }, 8)).toEqual({
      grid: [1, 65535, 1],
      block: [1, 1, 1],
      sharedBytes: 32,
      tilesCols: 1,
    });
  });

  it('LayoutKernels takes it where it applies, with its block and shared memory', () => {
    LayoutKernels.resetForTests();
    const { loader, launches } = recordingLoader();
    const k = LayoutKernels.forDevice(
      { ordinal: 5, name: 'fake', computeCapability: { major: 9, minor: 0 } },
      loader,
    );
    if (k instanceof Error) throw k;
    const shape = { batch: 8, rows: 64, cols: 50176 };
    for (const bytes of [2, 4, 8]) {
      expect(k.transpose({ raw: 1n }, 0x1000n, 0x2000n, shape, bytes)).toBe(true);
    }
    expect(launches.map((l) => [l.name, l.block, l.shared])).toEqual([
      ['baracuda_transpose_v16_b16', [32, 8, 1], 32768],
      ['baracuda_transpose_v16_b32', [16, 16, 1], 16384],
      ['baracuda_transpose_v16_b64', [16, 16, 1], 8192],
    ]);
    const v = new DataView(launches[0]!.params.buffer);
    expect(v.getBigUint64(32, true)).toBe(196n);
  });
});

describe('narrowTranspose', () => {
  /**
   * cuda/layout.cu's transposeNarrow run on the CPU, thread by thread over the grid it is given
   * (grid-stride): a wrong side or grid loses or misplaces elements here as on the GPU.
   */
  function emulate(src: Float64Array, shape: TransposeShape): Float64Array {
    const launch = narrowTranspose(shape);
    if (launch === null) throw new Error('no narrow launch');
    const { rows, cols, batch } = shape;
    const out = new Float64Array(src.length).fill(Number.NaN);
    const longSide = launch.narrowCols ? rows : cols;
    const shortSide = launch.narrowCols ? cols : rows;
    const step = launch.grid[0] * 256;
    for (let first = 0; first < step; first++) {
      for (let t = first; t < batch * longSide; t += step) {
        const b = Math.floor(t / longSide);
        const l = t - b * longSide;
        const base = b * rows * cols;
        for (let k = 0; k < shortSide; k++) {
          if (launch.narrowCols) out[base + k * rows + l] = src[base + l * cols + k]!;
          else out[base + l * rows + k] = src[base + k * cols + l]!;
        }
      }
    }
    return out;
  }

  for (const shape of [
    { batch: 2, rows: 3, cols: 1000 }, // a 3-channel NCDHW input into NDHWC
    { batch: 2, rows: 1000, cols: 3 }, // and back
    { batch: 1, rows: 16, cols: 17 },
    { batch: 3, rows: 1, cols: 1 },
  ]) {
    it(`moves every element (${shape.batch}×${shape.rows}×${shape.cols})`, () => {
      const count = shape.batch * shape.rows * shape.cols;
      const src = Float64Array.from({ length: count }, (_, i) => i + 1);
      expect(Array.from(emulate(src, shape))).toEqual(
        Array.from(transposeHost(src, new Float64Array(count), shape)),
      );
    });
  }

  it('applies to a short side of at most 16, one thread per element of the long side', () => {
    expect(narrowTranspose({ batch: 8, rows: 17, cols: 17 })).toBeNull();
    // i3d-stem's x (8 × 3 × 32 × 224 × 224) into NDHWC: 3 rows.
    expect(narrowTranspose({ batch: 8, rows: 3, cols: 32 * 224 * 224 })).toEqual({
      grid: [(8 * 32 * 224 * 224) / 256, 1, 1],
      narrowCols: false,
    });
    // Past 2^20 blocks the grid stops there and the threads loop.
    expect(narrowTranspose({ batch: 200, rows: 3, cols: 32 * 224 * 224 })!.grid).toEqual([
      2 ** 20,
      1,
      1,
    ]);
    expect(narrowTranspose({ batch: 2, rows: 1000, cols: 3 })).toEqual({
      grid: [8, 1, 1],
      narrowCols: true,
    });
  });

  it('LayoutKernels takes it before the tiled kernels, packing rows, cols, batch and the side', () => {
    LayoutKernels.resetForTests();
    const { loader, launches } = recordingLoader();
    const k = LayoutKernels.forDevice(
      { ordinal: 6, name: 'fake', computeCapability: { major: 9, minor: 0 } },
      loader,
    );
    if (k instanceof Error) throw k;
    // 16-byte aligned, but 3 is no multiple of 8: not the vector kernel.
    expect(k.transpose({ raw: 1n }, 0x1000n, 0x2000n, { batch: 2, rows: 1000, cols: 3 }, 2)).toBe(
      true,
    );
    const l = launches[0]!;
    expect([l.name, l.grid, l.block, l.shared]).toEqual([
      'baracuda_transpose_narrow_b16',
      [8, 1, 1],
      [256, 1, 1],
      0,
    ]);
    const v = new DataView(l.params.buffer, l.params.byteOffset, l.params.byteLength);
    expect([0, 8, 16, 24, 32, 40].map((at) => v.getBigUint64(at, true))).toEqual([
      0x1000n,
      0x2000n,
      1000n,
      3n,
      2n,
      1n,
    ]);
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
