/**
 * The transform kernels' launches (a recording module, no GPU): the parameters packed as
 * cuda/space-to-depth.cu declares them, signed fields in two's complement, the magic numbers of
 * the fast division, the grid.
 */
import { ElementKind } from '@baracuda/types';
import { afterEach, describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from './descriptor.js';
import { fakeDevice, fakeStream } from './fake-cudnn.test-helpers.js';
import { fastDivisor } from './fast-division.js';
import { cubinFor } from './module-cache.js';
import { imageIds, ptxEntryParams, recordingLoader } from './ptx.test-helpers.js';
import { InverseMode, stemRoute } from './space-to-depth.js';
import { SpaceToDepthKernels } from './space-to-depth-kernels.js';
import { SPACE_TO_DEPTH_PTX, SPACE_TO_DEPTH_SASS } from './space-to-depth-ptx.js';

afterEach(() => SpaceToDepthKernels.resetForTests());

/** The struct parameter's size in bytes as the PTX declares it (`.align 8 .b8 name[size]`). */
function structBytes(name: string): number {
  const m = new RegExp(`\\.entry ${name}\\([^)]*\\.b8 ${name}_param_2\\[(\\d+)\\]`).exec(
    SPACE_TO_DEPTH_PTX,
  );
  return Number(m?.[1]);
}

const stem = Conv3dDescriptor.create({
  batch: 2,
  cIn: 3,
  dIn: 9,
  hIn: 10,
  wIn: 11,
  cOut: 4,
  dFilt: 7,
  hFilt: 7,
  wFilt: 7,
  element: ElementKind.Bf16,
})
  .withStride(2, 2, 2)
  .withPadding(3, 3, 3)
  .withLayout('ndhwc');

describe('the space-to-depth kernels', () => {
  it('declares two pointers and a struct per kernel, for 2-, 4- and 8-byte elements', () => {
    for (const bits of [16, 32, 64]) {
      for (const kind of ['gather', 'inverse']) {
        const name = `baracuda_s2d_${kind}_b${bits}`;
        expect(ptxEntryParams(SPACE_TO_DEPTH_PTX, name), name).toEqual(['.u64', '.u64', '.align']);
      }
    }
    expect(structBytes('baracuda_s2d_gather_b16')).toBe(392);
    expect(structBytes('baracuda_s2d_inverse_b64')).toBe(336);
  });

  it('packs the maps field by field, the pad offset as a negative 64-bit base', () => {
    const { loader, launches, loads } = recordingLoader();
    const kernels = SpaceToDepthKernels.forDevice(fakeDevice, loader);
    if (kernels instanceof Error) throw kernels;
    const route = stemRoute(stem)!;
    kernels.gather(fakeStream, 0x1000n, 0x2000n, route.x.gather, 2);
    kernels.inverse(
      fakeStream,
      0x2000n,
      0x1000n,
      route.x.inverse,
      InverseMode.Scale,
      0.25,
      ElementKind.Bf16,
      2,
    );
    // The device's own cubin (sm_90), so no JIT.
    expect(imageIds(loads)).toEqual(imageIds([cubinFor(SPACE_TO_DEPTH_SASS, fakeDevice)!.image]));
    expect(launches.map((l) => l.name)).toEqual([
      'baracuda_s2d_gather_b16',
      'baracuda_s2d_inverse_b16',
    ]);
    const [gather, inverse] = launches.map((l) => {
      const v = new DataView(l.params.buffer, l.params.byteOffset, l.params.byteLength);
      return { v, words: l.params.byteLength / 8, l };
    });
    expect(gather!.words * 8).toBe(16 + structBytes('baracuda_s2d_gather_b16'));
    expect(inverse!.words * 8).toBe(16 + structBytes('baracuda_s2d_inverse_b16'));
    const g = gather!.v;
    expect([g.getBigUint64(0, true), g.getBigUint64(8, true)]).toEqual([0x1000n, 0x2000n]);
    // dims (8), strides (8), axis (8: -1 for n and c), mul (8), pad, extent, base, total.
    const dims = Array.from({ length: 8 }, (_, i) => Number(g.getBigInt64(16 + i * 8, true)));
    expect(dims).toEqual([...route.x.gather.dims]);
    expect(g.getBigInt64(16 + 16 * 8, true)).toBe(-1n);
    const base = g.getBigInt64(16 + 38 * 8, true);
    // -(3·H·W·C + 3·W·C + 3·C) for NDHWC.
    expect(base).toBe(BigInt(-(3 * 10 * 11 * 3 + 3 * 11 * 3 + 3 * 3)));
    expect(Number(g.getBigInt64(16 + 39 * 8, true))).toBe(route.x.elements);
    // Then the dims' magic numbers for the fast division (0 for a dim of 1).
    const div = Array.from({ length: 8 }, (_, i) => g.getBigUint64(16 + (40 + i) * 8, true));
    expect(div).toEqual(route.x.gather.dims.map(fastDivisor));
    expect(div[0]).not.toBe(0n);
    // Then the elements per thread (4 by default), a thread for each 4 of the grid.
    expect(g.getBigUint64(16 + 48 * 8, true)).toBe(4n);
    expect(gather!.l.grid).toEqual([Math.ceil(route.x.elements / 4 / 256), 1, 1]);
    expect(gather!.l.block).toEqual([256, 1, 1]);
    // 3 per thread: a third of the threads.
    kernels.gather(fakeStream, 0x1000n, 0x2000n, route.x.gather, 2, 3);
    const three = launches.at(-1)!;
    const per = new DataView(three.params.buffer, three.params.byteOffset).getBigUint64(
      16 + 48 * 8,
      true,
    );
    expect(per).toBe(3n);
    expect(three.grid).toEqual([Math.ceil(route.x.elements / 3 / 256), 1, 1]);
    // The inverse's tail: total, mode, element kind (3: bf16), beta.
    const t = inverse!.v;
    const tail = 16 + 30 * 8;
    expect(Number(t.getBigInt64(tail, true))).toBe(stem.xElements);
    expect([t.getBigInt64(tail + 8, true), t.getBigInt64(tail + 16, true)]).toEqual([2n, 3n]);
    expect(t.getFloat64(tail + 24, true)).toBe(0.25);
    // The dims' magic numbers, then the blocks' (2: m = 2^31, shift 0).
    const magic = Array.from({ length: 8 }, (_, i) => t.getBigUint64(tail + 32 + i * 8, true));
    expect(magic).toEqual([...route.x.inverse.dims, ...route.x.inverse.block].map(fastDivisor));
    expect(magic.slice(5)).toEqual([2n ** 31n, 2n ** 31n, 2n ** 31n]);
  });

  it('launches nothing for an empty map, and refuses an element size it has no kernel for', () => {
    const { loader, launches } = recordingLoader();
    const kernels = SpaceToDepthKernels.forDevice(fakeDevice, loader);
    if (kernels instanceof Error) throw kernels;
    const map = stemRoute(stem)!.x.gather;
    kernels.gather(fakeStream, 0n, 0n, { ...map, total: 0 }, 2);
    expect(launches).toEqual([]);
    expect(() => kernels.gather(fakeStream, 0n, 0n, map, 1)).toThrow(
      'No space-to-depth kernel for 1-byte elements',
    );
    for (const per of [0, 5, 1.5]) {
      expect(() => kernels.gather(fakeStream, 0n, 0n, map, 2, per)).toThrow(
        `A gather thread moves 1 to 4 elements, not ${per}`,
      );
    }
  });

  it('keeps the load error of a device where the PTX does not load', () => {
    const failed = SpaceToDepthKernels.forDevice(fakeDevice, () => {
      throw new Error('PTX JIT failed');
    });
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toBe('PTX JIT failed');
  });
});
