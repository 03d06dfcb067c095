/**
 * The space-to-depth routes' math, proved on the host: the route's steps (exec/space-to-depth-steps.ts,
 * the same the executor runs) on the bit-exact emulation of our kernels, around a direct f64
 * convolution of the inner problem, equal the direct convolution of the original problem, for
 * every pass, both layouts, alpha/beta, and odd or non-divisible extents.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import type { Conv3dPass } from './core/pass.js';
import { Conv3dDescriptor } from './descriptor.js';
import { directConv } from './direct-conv.test-helpers.js';
import { routeSteps, type StepTensor } from './exec/space-to-depth-steps.js';
import { patchRoute, type SpaceToDepthRoute, stemRoute } from './space-to-depth.js';
import { gatherHost, inverseHost, scaledHost } from './space-to-depth-host.js';

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}
const random = seeded(24);
const fill = (n: number) => Float64Array.from({ length: n }, random);

function problem(
  [n, c, k]: [number, number, number],
  input: [number, number, number],
  filter: [number, number, number],
  stride: [number, number, number],
  pad: [number, number, number],
  layout: 'ncdhw' | 'ndhwc',
): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch: n,
    cIn: c,
    dIn: input[0],
    hIn: input[1],
    wIn: input[2],
    cOut: k,
    dFilt: filter[0],
    hFilt: filter[1],
    wFilt: filter[2],
    element: ElementKind.F64,
  })
    .withStride(...stride)
    .withPadding(...pad)
    .withLayout(layout)
    .validate();
}

/** The pass through the route's steps, emulated: out = alpha·pass + beta·out. */
function viaRoute(
  route: SpaceToDepthRoute,
  pass: Conv3dPass,
  ops: { x: Float64Array; w: Float64Array; y: Float64Array },
  alpha: number,
  beta: number,
): void {
  const t: Record<StepTensor, Float64Array> = {
    ...ops,
    // Scratch starts as garbage: a step that reads it before writing it shows.
    xs: Float64Array.from({ length: route.x.elements }, () => Number.NaN),
    ws: Float64Array.from({ length: route.w?.elements ?? 0 }, () => Number.NaN),
  };
  for (const step of routeSteps(route, pass, beta)) {
    if (step.op === 'gather') gatherHost(t[step.from], t[step.to], step.map);
    else if (step.op === 'inverse')
      inverseHost(t[step.from], t[step.to], step.map, step.mode, beta);
    else
      directConv(route.inner, step.pass, { x: t[step.x], w: t[step.w], y: t[step.y] }, alpha, beta);
  }
}

function expectRouteMatches(d: Conv3dDescriptor, route: SpaceToDepthRoute | null): void {
  expect(route).not.toBeNull();
  for (const pass of ['fw', 'bwData', 'bwFilter'] as const) {
    for (const [alpha, beta] of [
      [1, 0],
      [0.5, 1],
      [2, -0.75],
    ] as const) {
      const ops = { x: fill(d.xElements), w: fill(d.wElements), y: fill(d.yElements) };
      const want = { x: ops.x.slice(), w: ops.w.slice(), y: ops.y.slice() };
      directConv(d, pass, want, alpha, beta);
      viaRoute(route!, pass, ops, alpha, beta);
      const key = pass === 'fw' ? 'y' : pass === 'bwData' ? 'x' : 'w';
      let err = 0;
      let norm = 0;
      for (let i = 0; i < want[key].length; i++) {
        err += (ops[key][i]! - want[key][i]!) ** 2;
        norm += want[key][i]! ** 2;
      }
      expect(
        Math.sqrt(err / norm),
        `${d.describe()} ${pass} alpha=${alpha} beta=${beta}`,
      ).toBeLessThan(1e-13);
    }
  }
}

describe('patch embedding as a 1×1×1 convolution', () => {
  const shapes: [
    string,
    [number, number, number],
    [number, number, number],
    [number, number, number],
  ][] = [
    // [name, [n, c, k], input, kernel = stride]
    ['VideoMAE 2×16×16 scaled down to 2×4×4', [2, 3, 5], [4, 8, 8], [2, 4, 4]],
    ['Swin3D 2×4×4, non-divisible extents', [1, 3, 4], [5, 9, 6], [2, 4, 4]],
    ['1×8×8', [1, 2, 3], [3, 16, 17], [1, 8, 8]],
    ['4×4×4', [2, 1, 2], [8, 5, 4], [4, 4, 4]],
    ['2×2×1', [1, 4, 3], [3, 4, 5], [2, 2, 1]],
  ];
  for (const [name, nck, input, k] of shapes) {
    for (const layout of ['ncdhw', 'ndhwc'] as const) {
      it(`${name} (${layout}): every pass, alpha and beta`, () => {
        const d = problem(nck, input, k, k, [0, 0, 0], layout);
        const route = patchRoute(d);
        expectRouteMatches(d, route);
        expect(route!.inner.dFilt * route!.inner.hFilt * route!.inner.wFilt).toBe(1);
        expect(route!.inner.cIn).toBe(d.cIn * k[0] * k[1] * k[2]);
        expect(route!.w).toBeNull();
      });
    }
  }
  it('VideoMAE 2×16×16 at full kernel size (small batch and channels): forward', () => {
    const d = problem([1, 1, 2], [2, 32, 16], [2, 16, 16], [2, 16, 16], [0, 0, 0], 'ndhwc');
    const route = patchRoute(d)!;
    const ops = { x: fill(d.xElements), w: fill(d.wElements), y: fill(d.yElements) };
    const want = ops.y.slice();
    directConv(d, 'fw', { ...ops, y: want });
    viaRoute(route, 'fw', ops, 1, 0);
    for (let i = 0; i < want.length; i++) expect(ops.y[i]).toBeCloseTo(want[i]!, 12);
  });
});

describe('the stem as a stride-1 convolution on 8·cIn channels', () => {
  const cases: [number, number, [number, number, number]][] = [
    // [kernel, padding, input extents]
    [7, 3, [9, 10, 11]],
    [5, 2, [8, 7, 6]],
    [3, 1, [7, 8, 5]],
    [4, 0, [9, 8, 10]],
    [7, 2, [8, 9, 9]],
    [3, 0, [6, 7, 5]],
  ];
  for (const [k, p, input] of cases) {
    for (const layout of ['ncdhw', 'ndhwc'] as const) {
      it(`k=${k} p=${p} in ${input.join('×')} (${layout}): every pass, alpha and beta`, () => {
        const d = problem([2, 3, 4], input, [k, k, k], [2, 2, 2], [p, p, p], layout);
        const route = stemRoute(d);
        expectRouteMatches(d, route);
        expect(route!.inner.cIn).toBe(24);
        expect(route!.inner.dFilt).toBe(Math.ceil(k / 2));
        expect([route!.inner.padD, route!.inner.strideD]).toEqual([0, 1]);
      });
    }
  }
  it('mixed kernels and paddings per axis', () => {
    const d = problem([1, 2, 3], [7, 9, 8], [5, 3, 4], [2, 2, 2], [2, 1, 0], 'ndhwc');
    expectRouteMatches(d, stemRoute(d));
  });
});

describe('where the routes apply (by the shape alone)', () => {
  const base = (layout: 'ncdhw' | 'ndhwc' = 'ncdhw') =>
    problem([2, 3, 8], [4, 16, 16], [2, 4, 4], [2, 4, 4], [0, 0, 0], layout);
  it('a patch: kernel = stride, no padding, dilation 1, groups 1', () => {
    expect(patchRoute(base())?.kind).toBe('patch');
    expect(patchRoute(base('ndhwc'))?.kind).toBe('patch');
    expect(stemRoute(base())).toBeNull();
  });
  it('not a patch: kernel ≠ stride, padding, dilation, groups, a 1×1×1 kernel', () => {
    expect(patchRoute(base().withStride(2, 4, 2))).toBeNull();
    expect(patchRoute(base().withPadding(0, 1, 0))).toBeNull();
    expect(patchRoute(base().withDilation(1, 2, 1))).toBeNull();
    const grouped = Conv3dDescriptor.create({ ...fields(base()), cIn: 4 })
      .withStride(2, 4, 4)
      .withGroups(2);
    expect(patchRoute(grouped)).toBeNull();
    const pointwise = problem([1, 4, 4], [4, 4, 4], [1, 1, 1], [1, 1, 1], [0, 0, 0], 'ncdhw');
    expect(patchRoute(pointwise)).toBeNull();
    // Padding after only (the before side 0) is padding too.
    expect(patchRoute(base().withPadding({ before: [0, 0, 0], after: [0, 1, 0] }))).toBeNull();
  });
  it('a stem: stride 2 everywhere, cIn ≤ 4, a kernel of 3 or more, padding below the kernel', () => {
    const stem = problem([1, 3, 8], [16, 16, 16], [7, 7, 7], [2, 2, 2], [3, 3, 3], 'ncdhw');
    expect(stemRoute(stem)?.kind).toBe('stem');
    expect(stemRoute(stem.withStride(1, 2, 2))).toBeNull();
    expect(stemRoute(stem.withDilation(2, 1, 1))).toBeNull();
    expect(stemRoute(stem.withPadding(7, 3, 3))).toBeNull();
    // The folds take one padding per axis: asymmetric padding stays on cuDNN.
    expect(stemRoute(stem.withPadding({ before: [3, 3, 3], after: [2, 3, 3] }))).toBeNull();
    expect(
      stemRoute(Conv3dDescriptor.create({ ...fields(stem), cIn: 5 }).withStride(2, 2, 2)),
    ).toBeNull();
    expect(patchRoute(stem)).toBeNull();
  });
});

describe('the host emulation of the kernels', () => {
  it('scales uncovered 2-byte elements as the kernel rounds them', () => {
    // 1.5 (f16 0x3e00) times 0.1 (f32) rounds to f16 0x30cd; bf16 0x3fc0 (1.5) to 0x3e1a.
    expect(scaledHost(0x3e00, 0.1, ElementKind.F16)).toBe(0x30cd);
    expect(scaledHost(0x3fc0, 0.1, ElementKind.Bf16)).toBe(0x3e1a);
    expect(scaledHost(1.5, 0.1, ElementKind.F32)).toBe(Math.fround(Math.fround(0.1) * 1.5));
    expect(scaledHost(1.5, 0.1, ElementKind.F64)).toBe(0.15000000000000002);
  });
});

function fields(d: Conv3dDescriptor) {
  return {
    batch: d.batch,
    cIn: d.cIn,
    dIn: d.dIn,
    hIn: d.hIn,
    wIn: d.wIn,
    cOut: d.cOut,
    dFilt: d.dFilt,
    hFilt: d.hFilt,
    wFilt: d.wFilt,
    element: d.element,
  };
}
