/**
 * The patch route on cuBLASLt without a GPU: the fake libcublasLt (a host GEMM over the fake
 * libcuda's memory, f32 accumulation) runs the inner 1×1×1 convolution's products, bit for bit as
 * gemm-host.ts emulates them, for every dtype, layout and pass, with alpha and beta; the compute
 * type follows the plan's math; the workspace is the heuristic's; and the autotune cache's entry
 * for the route makes it again.
 */
import {
  bf16BitsToF32,
  ElementKind,
  f16BitsToF32,
  f32ToBf16Bits,
  f32ToF16Bits,
  WorkspaceTooSmallError,
} from '@baracuda/types';
import { afterEach, describe, expect, it } from 'vitest';
import { buildFakeCublasLtLibrary, fakeLiveCounts } from '../../../scripts/testing/build-fake.mjs';
import type { Conv3dPass } from './core/pass.js';
import { Conv3dDescriptor } from './descriptor.js';
import { useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { innerGemmHost } from './gemm-host.js';
import { computeTypeOf } from './sys-cublaslt.js';

const cublasLt = buildFakeCublasLtLibrary();
process.env.BARACUDA_CUBLASLT_LIBRARY = cublasLt;
const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

const ELEMENTS = [ElementKind.F32, ElementKind.F16, ElementKind.Bf16, ElementKind.F64] as const;

/** n, 12 → 5 channels over 2×3×2 (the inner problem of a patch route). */
function inner(element: ElementKind, layout: 'ncdhw' | 'ndhwc', batch = 1): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch,
    cIn: 12,
    dIn: 2,
    hIn: 3,
    wIn: 2,
    cOut: 5,
    dFilt: 1,
    hFilt: 1,
    wFilt: 1,
    element,
  }).withLayout(layout);
}

/** Host values of `element` (exactly representable) and their device bytes. */
function values(element: ElementKind, n: number, seed: number) {
  let s = seed >>> 0;
  const host = new Float64Array(n);
  const bits =
    element === ElementKind.F64
      ? new Float64Array(n)
      : element === ElementKind.F32
        ? new Float32Array(n)
        : new Uint16Array(n);
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    const v = s / 2 ** 32 - 0.5;
    if (element === ElementKind.F16) {
      bits[i] = f32ToF16Bits(v);
      host[i] = f16BitsToF32(bits[i]!);
    } else if (element === ElementKind.Bf16) {
      bits[i] = f32ToBf16Bits(v);
      host[i] = bf16BitsToF32(bits[i]!);
    } else {
      bits[i] = v;
      host[i] = bits[i]!;
    }
  }
  return { host, bits };
}

function narrow(element: ElementKind): (v: number) => number {
  if (element === ElementKind.F16) return (v) => f16BitsToF32(f32ToF16Bits(v));
  if (element === ElementKind.Bf16) return (v) => bf16BitsToF32(f32ToBf16Bits(v));
  if (element === ElementKind.F32) return Math.fround;
  return (v) => v;
}

const owned: { dispose(): void }[] = [];
afterEach(() => {
  for (const o of owned.splice(0).reverse()) o.dispose();
  delete process.env.FAKE_CUBLASLT_WORKSPACE;
});

async function core(
  d: Conv3dDescriptor,
  preference: { allowTf32?: boolean; maxWorkspaceBytes?: number } = {},
) {
  const { Stream } = await import('@baracuda/driver');
  const { createCore } = await import('./select/create.js');
  const { resolveOptions } = await import('./plan/options.js');
  const { resolvePlanPreference } = await import('@baracuda/types');
  const stream = Stream.create();
  const made = createCore(stream, d, resolvePlanPreference(preference), resolveOptions({}));
  owned.push(stream, made);
  return { stream, core: made };
}

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'the cuBLASLt patch route on the fakes (skipped where no C compiler is found)',
  () => {
    for (const element of ELEMENTS) {
      for (const layout of ['ncdhw', 'ndhwc'] as const) {
        it(`${element} ${layout}: every pass bit for bit as the host emulation, alpha and beta`, async () => {
          const { DeviceBuffer } = await import('@baracuda/driver');
          const { LtGemmPlan } = await import('./exec/lt-gemm.js');
          const { SpaceToDepthKernels } = await import('./space-to-depth-kernels.js');
          const d = inner(element, layout);
          const { stream, core: c } = await core(d);
          const kernels = SpaceToDepthKernels.forDevice(c.ctx.device);
          if (kernels instanceof Error) throw kernels;
          const plan = new LtGemmPlan(c.ctx, d, 'fw', kernels);
          owned.push(plan);
          for (const pass of ['fw', 'bwData', 'bwFilter'] as Conv3dPass[]) {
            const ops = {
              x: values(element, d.xElements, 1),
              w: values(element, d.wElements, 2),
              y: values(element, d.yElements, 3),
            };
            const dev = {
              x: DeviceBuffer.alloc(d.xElements * d.elementBytes),
              w: DeviceBuffer.alloc(d.wElements * d.elementBytes),
              y: DeviceBuffer.alloc(d.yElements * d.elementBytes),
            };
            owned.push(dev.x, dev.w, dev.y);
            for (const k of ['x', 'w', 'y'] as const) dev[k].uploadSync(ops[k].bits);
            const executor = plan.executor(pass);
            executor.run(
              { x: dev.x.devicePtr, w: dev.w.devicePtr, y: dev.y.devicePtr },
              { alpha: 2, beta: -0.5, stream, userWs: null },
            );
            const want = { x: ops.x.host, w: ops.w.host, y: ops.y.host };
            const wide = element === ElementKind.F64;
            innerGemmHost(
              executor.spec,
              want,
              2,
              -0.5,
              wide,
              narrow(element),
              (n) => new Float64Array(n),
            );
            const key = pass === 'fw' ? 'y' : pass === 'bwData' ? 'x' : 'w';
            const got = new (ops[key].bits.constructor as Float64ArrayConstructor)(
              ops[key].bits.length,
            );
            dev[key].downloadSync(got);
            const decoded = Array.from(got, (v) =>
              element === ElementKind.F16
                ? f16BitsToF32(v)
                : element === ElementKind.Bf16
                  ? bf16BitsToF32(v)
                  : v,
            );
            expect(decoded, `${pass}`).toEqual(Array.from(want[key]));
            expect(executor.info()).toMatchObject({
              path: 'cublaslt',
              name: 'cuBLASLt',
              deterministic: true,
            });
          }
        });
      }
    }

    it('the compute type follows the plan: strict f32, TF32 when allowed, f64, f32 for halves', async () => {
      const { LtGemmPlan } = await import('./exec/lt-gemm.js');
      const { SpaceToDepthKernels } = await import('./space-to-depth-kernels.js');
      const cases: [ElementKind, boolean, number][] = [
        [ElementKind.F32, false, 68],
        [ElementKind.F32, true, 77],
        [ElementKind.F64, false, 70],
        [ElementKind.Bf16, true, 68],
        [ElementKind.F16, false, 68],
      ];
      for (const [element, allowTf32, compute] of cases) {
        const d = inner(element, 'ndhwc');
        const { stream, core: c } = await core(d, { allowTf32 });
        const kernels = SpaceToDepthKernels.forDevice(c.ctx.device);
        if (kernels instanceof Error) throw kernels;
        const plan = new LtGemmPlan(c.ctx, d, 'bwFilter', kernels);
        owned.push(plan);
        const { DeviceBuffer } = await import('@baracuda/driver');
        const buf = DeviceBuffer.alloc(d.xElements * 8);
        owned.push(buf);
        const p = buf.devicePtr;
        plan
          .executor('bwFilter')
          .run({ x: p, w: p, y: p }, { alpha: 1, beta: 0, stream, userWs: null });
        const counts = fakeLiveCounts(cublasLt)!;
        // The plan's own math: an erratum may have turned TF32 off (then strict f32).
        const tf32 = c.ctx.preference.allowTf32;
        expect(counts.lastComputeType, `${element} ${allowTf32}`).toBe(
          compute === 77 && !tf32 ? 68 : compute,
        );
        expect(computeTypeOf(element, allowTf32)).toBe(compute);
        // bwFilter NDHWC: dw[K, C'] = dyᵀ·x, k = N·S (as the column-major transpose: m = C').
        expect([counts.lastM, counts.lastN, counts.lastK]).toEqual([12, 5, 12]);
        expect(plan.executor('bwFilter').info().mathPrecision).toBe(
          element === ElementKind.F32 ? (tf32 ? 'tf32' : 'f32') : element,
        );
      }
    });

    it("uses the heuristic's workspace: the caller's when large enough, else the plan's", async () => {
      const { DeviceBuffer } = await import('@baracuda/driver');
      const { LtGemmPlan } = await import('./exec/lt-gemm.js');
      const { SpaceToDepthKernels } = await import('./space-to-depth-kernels.js');
      const { UnsupportedError } = await import('@baracuda/types');
      process.env.FAKE_CUBLASLT_WORKSPACE = '4096';
      const d = inner(ElementKind.F16, 'ncdhw', 2);
      const { stream, core: c } = await core(d, { maxWorkspaceBytes: 1 << 20 });
      const kernels = SpaceToDepthKernels.forDevice(c.ctx.device);
      if (kernels instanceof Error) throw kernels;
      const plan = new LtGemmPlan(c.ctx, d, 'fw', kernels);
      owned.push(plan);
      expect(plan.executor('fw').workspaceBytes()).toBe(4096);
      const buf = DeviceBuffer.alloc(d.xElements * 2 + d.yElements * 2);
      const small = DeviceBuffer.alloc(100);
      const big = DeviceBuffer.alloc(4096);
      owned.push(buf, small, big);
      const p = buf.devicePtr;
      const ops = { x: p, w: p, y: p };
      expect(() =>
        plan.executor('fw').run(ops, { alpha: 1, beta: 0, stream, userWs: small }),
      ).toThrow(new WorkspaceTooSmallError(4096, 100));
      plan.executor('fw').run(ops, { alpha: 1, beta: 0, stream, userWs: big });
      expect(fakeLiveCounts(cublasLt)).toMatchObject({ lastWorkspace: 4096, lastBatch: 2 });
      plan.executor('fw').run(ops, { alpha: 1, beta: 0, stream, userWs: null });
      expect(fakeLiveCounts(cublasLt)!.lastWorkspace).toBe(4096);
      // Above the plan's cap there is no algorithm: UnsupportedError (the candidate then stays out).
      const capped = await core(d, { maxWorkspaceBytes: 1024 });
      expect(() => new LtGemmPlan(capped.core.ctx, d, 'fw', kernels)).toThrow(UnsupportedError);
    });

    it('operands aligned less than 16 bytes get a product of their own alignment class', async () => {
      const { DeviceBuffer } = await import('@baracuda/driver');
      const { LtGemmPlan } = await import('./exec/lt-gemm.js');
      const { SpaceToDepthKernels } = await import('./space-to-depth-kernels.js');
      const d = inner(ElementKind.F16, 'ndhwc');
      const { stream, core: c } = await core(d);
      const kernels = SpaceToDepthKernels.forDevice(c.ctx.device);
      if (kernels instanceof Error) throw kernels;
      const plan = new LtGemmPlan(c.ctx, d, 'fw', kernels);
      owned.push(plan);
      const x = values(ElementKind.F16, d.xElements + 1, 4);
      const w = values(ElementKind.F16, d.wElements, 5);
      const bx = DeviceBuffer.alloc((d.xElements + 1) * 2);
      const bw = DeviceBuffer.alloc(d.wElements * 2);
      const by = DeviceBuffer.alloc(d.yElements * 2);
      owned.push(bx, bw, by);
      bx.uploadSync(x.bits);
      bw.uploadSync(w.bits);
      // x one element (2 bytes) into its buffer: aligned to 2 bytes only.
      const ops = { x: bx.devicePtr + 2n, w: bw.devicePtr, y: by.devicePtr };
      plan.executor('fw').run(ops, { alpha: 1, beta: 0, stream, userWs: null });
      const want = { x: x.host.subarray(1), w: w.host, y: new Float64Array(d.yElements) };
      innerGemmHost(
        plan.executor('fw').spec,
        want,
        1,
        0,
        false,
        narrow(ElementKind.F16),
        (n) => new Float64Array(n),
      );
      const got = new Uint16Array(d.yElements);
      by.downloadSync(got);
      expect(Array.from(got, f16BitsToF32)).toEqual(Array.from(want.y));
    });

    it('autotune times the cuBLASLt route next to the cuDNN one; a cache entry makes it again', async () => {
      const { selectFromCache } = await import('./tuning.test-helpers.js');
      const { patchRoute } = await import('./space-to-depth.js');
      const d = Conv3dDescriptor.create({
        batch: 1,
        cIn: 3,
        dIn: 4,
        hIn: 8,
        wIn: 8,
        cOut: 8,
        dFilt: 2,
        hFilt: 4,
        wFilt: 4,
        element: ElementKind.Bf16,
      })
        .withStride(2, 4, 4)
        .withLayout('ndhwc');
      expect(patchRoute(d)).not.toBeNull();
      const { Conv3dPlan } = await import('./plan.js');
      const { Stream } = await import('@baracuda/driver');
      const stream = Stream.create();
      owned.push(stream);
      const lines: string[] = [];
      process.env.FAKE_CUDNN_ENGINES = '28';
      const { mkdtempSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      try {
        const plan = await Conv3dPlan.select(
          stream,
          d,
          { algorithm: 'autotune' },
          {
            passes: ['fw'],
            autotuneCachePath: join(mkdtempSync(join(tmpdir(), 'baracuda-lt-')), 'a.json'),
            onProgress: (m) => lines.push(m),
          },
        );
        plan.dispose();
      } finally {
        delete process.env.FAKE_CUDNN_ENGINES;
      }
      expect(
        lines.some((l) => l.includes('fw: patch GEMM: space-to-depth + cuBLASLt 1×1×1 ')),
      ).toBe(true);
      const fromCache = await selectFromCache(d, 'fw', { engineIndex: -9, knobs: [] });
      expect(fromCache).toEqual({
        warnings: [],
        name: 'patch GEMM: space-to-depth + cuBLASLt 1×1×1',
      });
    });
  },
);
