/**
 * The cuBLASLt patch route's math, proved on the host: the route's steps (the same the executor
 * runs) with the inner 1×1×1 convolution as gemm.ts's products (permutes and all, on the
 * emulation of our kernels) equal the direct f64 convolution of the original problem, for every
 * pass, both layouts, alpha/beta, batches of one and more, and non-divisible extents.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import type { Conv3dPass } from './core/pass.js';
import { Conv3dDescriptor } from './descriptor.js';
import { directConv } from './direct-conv.test-helpers.js';
import { routeSteps, type StepTensor } from './exec/space-to-depth-steps.js';
import { gemmSpec, permuteMap } from './gemm.js';
import { innerGemmHost } from './gemm-host.js';
import { patchRoute } from './space-to-depth.js';
import { gatherHost, inverseHost } from './space-to-depth-host.js';

let seed = 77;
const random = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
};
const fill = (n: number) => Float64Array.from({ length: n }, random);

function patch(
  [n, c, k]: [number, number, number],
  input: [number, number, number],
  kernel: [number, number, number],
  layout: 'ncdhw' | 'ndhwc',
): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch: n,
    cIn: c,
    dIn: input[0],
    hIn: input[1],
    wIn: input[2],
    cOut: k,
    dFilt: kernel[0],
    hFilt: kernel[1],
    wFilt: kernel[2],
    element: ElementKind.F64,
  })
    .withStride(...kernel)
    .withLayout(layout)
    .validate();
}

function relL2(got: Float64Array, want: Float64Array): number {
  let err = 0;
  let norm = 0;
  for (let i = 0; i < want.length; i++) {
    err += (got[i]! - want[i]!) ** 2;
    norm += want[i]! ** 2;
  }
  return Math.sqrt(err / norm);
}

describe('the inner 1×1×1 convolution as one product per pass', () => {
  for (const layout of ['ncdhw', 'ndhwc'] as const) {
    for (const batch of [1, 3]) {
      it(`${layout}, batch ${batch}: every pass equals the direct convolution`, () => {
        const d = Conv3dDescriptor.create({
          batch,
          cIn: 6,
          dIn: 2,
          hIn: 3,
          wIn: 5,
          cOut: 4,
          dFilt: 1,
          hFilt: 1,
          wFilt: 1,
          element: ElementKind.F64,
        }).withLayout(layout);
        for (const pass of ['fw', 'bwData', 'bwFilter'] as const) {
          const ops = { x: fill(d.xElements), w: fill(d.wElements), y: fill(d.yElements) };
          const want = { x: ops.x.slice(), w: ops.w.slice(), y: ops.y.slice() };
          directConv(d, pass, want, 2, -0.5);
          const spec = gemmSpec(d, pass);
          innerGemmHost(
            spec,
            ops,
            2,
            -0.5,
            true,
            (v) => v,
            (n) => new Float64Array(n),
          );
          const key = pass === 'fw' ? 'y' : pass === 'bwData' ? 'x' : 'w';
          expect(relL2(ops[key], want[key]), `${pass}`).toBeLessThan(1e-14);
          // One product: NCDHW backward-filter permutes only for a batch of more than one.
          const permutes = layout === 'ncdhw' && pass === 'bwFilter' && batch > 1 ? 2 : 0;
          expect(spec.permute).toHaveLength(permutes);
        }
      });
    }
  }

  it("a permute map moves [N][R][S] to [R][N][S] in the kernel's 8 dims", () => {
    const map = permuteMap(2, 3, 4);
    expect(map.dims).toHaveLength(8);
    const src = Float64Array.from({ length: 24 }, (_, i) => i);
    const out = gatherHost(src, new Float64Array(24), map);
    // out[r][n][s] = src[n][r][s]
    expect(out[(1 * 2 + 1) * 4 + 2]).toBe((1 * 3 + 1) * 4 + 2);
    expect(out[(2 * 2 + 0) * 4 + 3]).toBe((0 * 3 + 2) * 4 + 3);
  });

  it('NDHWC forward is x·wᵀ, NCDHW forward a batch over n with the filter shared', () => {
    const nd = gemmSpec(patchRoute(patch([2, 3, 5], [4, 8, 8], [2, 4, 4], 'ndhwc'))!.inner, 'fw');
    expect(nd).toMatchObject({ m: 2 * 2 * 2 * 2, n: 5, k: 96, batch: 1 });
    expect(nd.b).toMatchObject({ tensor: 'w', trans: true });
    const nc = gemmSpec(patchRoute(patch([2, 3, 5], [4, 8, 8], [2, 4, 4], 'ncdhw'))!.inner, 'fw');
    expect(nc).toMatchObject({ m: 5, n: 8, k: 96, batch: 2 });
    expect(nc.a).toMatchObject({ tensor: 'w', batchStride: 0 });
    expect(nc.b).toMatchObject({ tensor: 'x', batchStride: 96 * 8 });
  });
});

/** The pass through the route's steps, its inner pass as the product: out = alpha·pass + beta·out. */
function viaGemmRoute(
  d: Conv3dDescriptor,
  pass: Conv3dPass,
  ops: { x: Float64Array; w: Float64Array; y: Float64Array },
  alpha: number,
  beta: number,
): void {
  const route = patchRoute(d)!;
  const t: Record<StepTensor, Float64Array> = {
    ...ops,
    xs: Float64Array.from({ length: route.x.elements }, () => Number.NaN),
    ws: new Float64Array(0),
  };
  for (const step of routeSteps(route, pass, beta)) {
    if (step.op === 'gather') gatherHost(t[step.from], t[step.to], step.map);
    else if (step.op === 'inverse')
      inverseHost(t[step.from], t[step.to], step.map, step.mode, beta);
    else {
      const inner = { x: t[step.x], w: t[step.w], y: t[step.y] };
      innerGemmHost(
        gemmSpec(route.inner, step.pass),
        inner,
        alpha,
        beta,
        true,
        (v) => v,
        (n) => new Float64Array(n),
      );
    }
  }
}

describe('patch embedding through the cuBLASLt route (host emulation)', () => {
  const shapes: [
    string,
    [number, number, number],
    [number, number, number],
    [number, number, number],
  ][] = [
    ['VideoMAE 2×16×16 scaled down to 2×4×4', [2, 3, 5], [4, 8, 8], [2, 4, 4]],
    ['Swin3D 2×4×4, non-divisible extents', [1, 3, 4], [5, 9, 6], [2, 4, 4]],
    ['odd: 3×2×5, batch 3', [3, 2, 3], [7, 5, 11], [3, 2, 5]],
  ];
  for (const [name, nck, input, k] of shapes) {
    for (const layout of ['ncdhw', 'ndhwc'] as const) {
      it(`${name} (${layout}): every pass, alpha and beta`, () => {
        const d = patch(nck, input, k, layout);
        for (const pass of ['fw', 'bwData', 'bwFilter'] as const) {
          for (const [alpha, beta] of [
            [1, 0],
            [0.5, 1],
            [2, -0.75],
          ] as const) {
            const ops = { x: fill(d.xElements), w: fill(d.wElements), y: fill(d.yElements) };
            const want = { x: ops.x.slice(), w: ops.w.slice(), y: ops.y.slice() };
            directConv(d, pass, want, alpha, beta);
            viaGemmRoute(d, pass, ops, alpha, beta);
            const key = pass === 'fw' ? 'y' : pass === 'bwData' ? 'x' : 'w';
            expect(relL2(ops[key], want[key]), `${pass} ${alpha} ${beta}`).toBeLessThan(1e-13);
          }
        }
      });
    }
  }
});
