/**
 * The vector gather's plans (gather-vector.ts): where they apply, the vector and store they pick,
 * and, through the host emulation of the kernel, that a plan moves exactly what the element gather
 * (or the inverse) moves, on patch folds of both layouts, the backward-filter permutes and covered
 * inverses. The kernel itself against this emulation is space-to-depth-cuda-host.test.ts's.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { foldProblem } from './fold-problem.test-helpers.js';
import {
  inverseAsGather,
  neverLeaves,
  rememberedInverseAsGather,
  rememberedVectorGather,
  vectorGather,
} from './gather-vector.js';
import { permuteMap } from './gemm.js';
import { InverseMode, patchRoute, stemRoute } from './space-to-depth.js';
import { gatherHost, gatherVectorHost, inverseHost } from './space-to-depth-host.js';

const videomae = (layout: 'ncdhw' | 'ndhwc') =>
  patchRoute(foldProblem(layout, [2, 16, 16], [2, 16, 16], [0, 0, 0], 8, 3, [16, 224, 224]))!;

function iota(n: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => i + 1);
}

describe('vectorGather', () => {
  it("moves VideoMAE's NDHWC patch fold in 16-byte vectors stored whole", () => {
    const plan = vectorGather(videomae('ndhwc').x.gather, 2, 0n, 0n)!;
    expect(plan.vectorBytes).toBe(16);
    expect(plan.vstride).toBe(1);
    expect(plan.total).toBe(videomae('ndhwc').x.elements / 8);
  });

  it("moves VideoMAE's NCDHW patch fold in 16-byte loads and stores a position apart", () => {
    const plan = vectorGather(videomae('ncdhw').x.gather, 2, 0n, 0n)!;
    expect(plan.vectorBytes).toBe(16);
    // Each φw of one patch lies a whole 8×14×14 plane apart in the fold.
    expect(plan.vstride).toBe(8 * 14 * 14);
    expect(vectorGather(videomae('ncdhw').x.gather, 4, 0n, 0n)!.vectorBytes).toBe(16);
  });

  it('moves the backward-filter permute [N][R][S] → [R][N][S] whole where S allows', () => {
    expect(vectorGather(permuteMap(8, 768, 1568), 2, 0n, 0n)).toMatchObject({
      vectorBytes: 16,
      vstride: 1,
    });
    // S = 6: 4 f16 elements do not divide it, 2 do.
    expect(vectorGather(permuteMap(3, 5, 6), 2, 0n, 0n)!.vectorBytes).toBe(4);
    expect(vectorGather(permuteMap(3, 5, 7), 2, 0n, 0n)).toBeNull();
  });

  it('takes a smaller vector, or none, where a pointer or a stride is not aligned for it', () => {
    const map = videomae('ndhwc').x.gather;
    expect(vectorGather(map, 2, 8n, 0n)!.vectorBytes).toBe(8);
    expect(vectorGather(map, 2, 0n, 4n)!.vectorBytes).toBe(4);
    expect(vectorGather(map, 2, 2n, 0n)).toBeNull();
    // Scattered stores only need the element's alignment at dst.
    expect(vectorGather(videomae('ncdhw').x.gather, 2, 0n, 2n)!.vectorBytes).toBe(16);
    // 8-byte elements: a vector of 16 bytes or none.
    expect(vectorGather(map, 8, 8n, 0n)).toBeNull();
  });

  it('refuses a map whose coordinates can leave the tensor (the stem, its padding)', () => {
    const stem = stemRoute(
      foldProblem('ndhwc', [7, 7, 7], [2, 2, 2], [3, 3, 3], 2, 3, [9, 10, 12]),
    )!;
    expect(neverLeaves(stem.x.gather)).toBe(false);
    expect(vectorGather(stem.x.gather, 2, 0n, 0n)).toBeNull();
    // Unpadded, blocks inside: the stem's filter fold reads past the filter (zeros) too.
    expect(neverLeaves(stem.w!.gather)).toBe(false);
  });

  it('moves what the element gather moves, on patch folds and permutes of many shapes', () => {
    let planned = 0;
    const cases = [
      ['ncdhw', 2, 3, [4, 8, 16], [2, 4, 4]],
      ['ndhwc', 2, 3, [4, 8, 16], [2, 4, 4]],
      ['ndhwc', 1, 4, [5, 9, 17], [2, 4, 4]],
      ['ncdhw', 3, 2, [6, 8, 8], [1, 2, 8]],
      ['ndhwc', 3, 8, [2, 6, 6], [2, 3, 3]],
      ['ncdhw', 2, 1, [3, 4, 12], [3, 4, 6]],
      ['ndhwc', 2, 6, [4, 4, 4], [2, 2, 2]],
    ] as const;
    for (const [layout, batch, cIn, extent, k] of cases) {
      const route = patchRoute(foldProblem(layout, k, k, [0, 0, 0], batch, cIn, extent))!;
      const maps = [route.x.gather, permuteMap(batch, cIn * 3, extent[2]! * 2)];
      for (const map of maps) {
        const src = iota(map.base + map.total * 4);
        for (const bytes of [2, 4, 8]) {
          const plan = vectorGather(map, bytes, 0n, 0n);
          if (plan === null) continue;
          planned++;
          const want = gatherHost(src, new Float64Array(map.total), map);
          const got = gatherVectorHost(src, new Float64Array(map.total).fill(-1), plan, bytes);
          expect(Array.from(got), `${layout} ${extent} k=${k} ${bytes}-byte`).toEqual(
            Array.from(want),
          );
        }
      }
    }
    expect(planned).toBeGreaterThan(20);
  });
});

describe('inverseAsGather', () => {
  it('is the inverse where it covers every position, and absent where it does not', () => {
    let planned = 0;
    for (const layout of ['ncdhw', 'ndhwc'] as const) {
      for (const extent of [
        [4, 8, 16],
        [5, 8, 16],
        [4, 8, 18],
      ]) {
        const route = patchRoute(
          foldProblem(layout, [2, 4, 4], [2, 4, 4], [0, 0, 0], 2, 4, extent),
        )!;
        const inv = route.x.inverse;
        const map = inverseAsGather(inv);
        expect(map === null, `${layout} ${extent}`).toBe(inv.partial);
        if (map === null) continue;
        const from = iota(route.x.elements);
        const want = inverseHost(
          from,
          new Float64Array(inv.total),
          inv,
          InverseMode.Zero,
          0,
          ElementKind.F64,
        );
        expect(Array.from(gatherHost(from, new Float64Array(inv.total), map))).toEqual(
          Array.from(want),
        );
        for (const bytes of [2, 4, 8]) {
          const plan = vectorGather(map, bytes, 0n, 0n);
          if (plan === null) continue;
          planned++;
          const got = gatherVectorHost(from, new Float64Array(inv.total).fill(-1), plan, bytes);
          expect(Array.from(got), `${layout} ${bytes}-byte`).toEqual(Array.from(want));
        }
      }
    }
    expect(planned).toBeGreaterThanOrEqual(4);
  });

  it('leaves a padded inverse (the stem) to the element kernel', () => {
    const stem = stemRoute(foldProblem('ndhwc', [3, 3, 3], [2, 2, 2], [1, 1, 1], 2, 3, [8, 8, 8]))!;
    expect(inverseAsGather(stem.x.inverse)).toBeNull();
  });
});

describe('the remembered plans', () => {
  it('plan once per map, element size and alignment class, and give what planning gives', () => {
    const route = videomae('ndhwc');
    const map = route.x.gather;
    const first = rememberedVectorGather(map, 2, 0x1000n, 0x2000n);
    expect(first).toEqual(vectorGather(map, 2, 0n, 0n));
    // Another pointer of the same class: the same plan object, not planned again.
    expect(rememberedVectorGather(map, 2, 0x3010n, 0x40n)).toBe(first);
    // Another class or element size: planned for it.
    expect(rememberedVectorGather(map, 2, 0x1008n, 0n)!.vectorBytes).toBe(8);
    expect(rememberedVectorGather(map, 2, 0x1002n, 0n)).toBeNull();
    expect(rememberedVectorGather(map, 4, 0n, 0n)).toEqual(vectorGather(map, 4, 0n, 0n));
    expect(rememberedVectorGather(map, 2, 0x2000n, 0x1000n)).toBe(first);
    const inv = route.x.inverse;
    expect(rememberedInverseAsGather(inv)).toBe(rememberedInverseAsGather(inv));
    expect(rememberedInverseAsGather(inv)).toEqual(inverseAsGather(inv));
  });
});
