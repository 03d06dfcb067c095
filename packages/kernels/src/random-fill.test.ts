/**
 * Autotune's operands filled on the device (select/autotune/random-fill.ts): one random tile
 * uploaded, then doubling device-to-device copies, checked on a host model of a device buffer.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { doublingCopies, fillRandomTiled } from './select/autotune/random-fill.js';
import type { OwnedBuffer } from './sys.js';

/** A device buffer modelled on host memory: uploads, slices and copies, each checked in bounds. */
function hostBuffer(memory: Uint8Array, offset = 0, length = memory.byteLength): OwnedBuffer {
  const inBounds = (o: number, n: number) => {
    if (o < 0 || n < 0 || o + n > length) throw new RangeError(`${o}+${n} past ${length}`);
  };
  const self: OwnedBuffer = {
    devicePtr: BigInt(offset),
    byteLength: length,
    dispose() {},
    uploadSync(src, byteOffset = 0) {
      const bytes = new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
      inBounds(byteOffset, bytes.byteLength);
      memory.set(bytes, offset + byteOffset);
    },
    copyFrom(src) {
      inBounds(0, src.byteLength);
      const from = Number(src.devicePtr);
      memory.copyWithin(offset, from, from + src.byteLength);
    },
    slice(byteOffset, byteLength) {
      inBounds(byteOffset, byteLength);
      return hostBuffer(memory, offset + byteOffset, byteLength);
    },
    fillSync16() {},
    fillSync32() {},
    memset() {},
  };
  return self;
}

describe('random operands filled on the device', () => {
  it('covers the buffer with doubling copies from its start, none overlapping its source', () => {
    for (const [tile, total] of [
      [4, 4],
      [4, 3],
      [4, 5],
      [4, 16],
      [4, 17],
      [6, 100],
      [8, 1 << 20],
    ] as const) {
      let filled = Math.min(tile, total);
      for (const [at, bytes] of doublingCopies(tile, total)) {
        expect(at).toBe(filled);
        expect(bytes).toBeLessThanOrEqual(filled);
        expect(bytes).toBeGreaterThan(0);
        filled += bytes;
      }
      expect(filled).toBe(total);
    }
    expect(doublingCopies(8, 1 << 20)).toHaveLength(17);
  });

  it('repeats one random tile of finite values over the whole buffer', () => {
    const stream = { raw: 0n };
    for (const elements of [1, 7, 64, 1000, 4099]) {
      const memory = new Uint8Array(elements * 4 + 8).fill(0xff);
      fillRandomTiled(hostBuffer(memory, 0, elements * 4), ElementKind.F32, 4, stream, 16);
      const values = new Float32Array(memory.buffer, 0, elements);
      const tile = Math.min(16, elements);
      for (let i = 0; i < elements; i++) {
        expect(Number.isFinite(values[i]!)).toBe(true);
        expect(Math.abs(values[i]!)).toBeLessThanOrEqual(1);
        expect(values[i]).toBe(values[i % tile]);
      }
      // Past the buffer nothing is written; inside it, the tile's values differ.
      expect([...memory.subarray(elements * 4)]).toEqual(new Array(8).fill(0xff));
      if (elements > 1) expect(new Set(values.subarray(0, tile)).size).toBeGreaterThan(1);
    }
  });

  it('fills half precision in whole elements of two bytes', () => {
    const memory = new Uint8Array(2 * 300);
    fillRandomTiled(hostBuffer(memory), ElementKind.F16, 2, { raw: 0n }, 32);
    const halves = new Uint16Array(memory.buffer);
    for (let i = 0; i < halves.length; i++) {
      // f16 of magnitude [0.25, 1): exponent 13 or 14.
      expect([13, 14]).toContain((halves[i]! >>> 10) & 0x1f);
      expect(halves[i]).toBe(halves[i % 32]);
    }
  });
});
