/**
 * DepthwiseKernels: the committed PTX declares each kernel with the parameters run() packs, and the
 * device's cubin is loaded once per device with each launch packed as cuda/depthwise.cu declares
 * it (a recording loader, no GPU).
 */
import { KernelParams } from '@baracuda/driver';
import { ElementKind } from '@baracuda/types';
import { beforeEach, describe, expect, it } from 'vitest';
import { DepthwiseKernels, depthwiseLaunch } from './depthwise.js';
import { DEPTHWISE_PTX, DEPTHWISE_SASS } from './depthwise-ptx.js';
import { type Case, desc } from './depthwise-wgrad.test-helpers.js';
import { cubinFor } from './module-cache.js';
import { imageIds, ptxEntryParams, recordingLoader } from './ptx.test-helpers.js';

describe('DepthwiseKernels', () => {
  beforeEach(() => DepthwiseKernels.resetForTests());
  const device = { ordinal: 5, name: 'fake', computeCapability: { major: 9, minor: 0 } };

  it('the PTX declares each kernel with the parameters run() packs', () => {
    const tiled = depthwiseLaunch(
      desc({ c: 2, in: [3, 3, 3], k: [3, 3, 3], pad: [1, 1, 1] }),
      'fw',
    );
    const gather = depthwiseLaunch(
      desc({ c: 2, in: [3, 3, 3], k: [3, 3, 3], stride: [2, 2, 2] }),
      'fw',
    );
    const gathercl = depthwiseLaunch(
      desc({ c: 2000, in: [3, 3, 3], k: [3, 3, 3], layout: 'ndhwc' }),
      'bwData',
    );
    expect(gathercl.kernel).toBe('gathercl');
    const clvec = depthwiseLaunch(
      desc({ c: 24, in: [3, 3, 3], k: [3, 3, 3], layout: 'ndhwc', stride: [2, 2, 2] }),
      'fw',
    );
    expect(clvec.kernel).toBe('clvec');
    const clmarch = depthwiseLaunch(
      desc({ c: 24, in: [3, 3, 3], k: [3, 3, 3], layout: 'ndhwc' }),
      'fw',
    );
    expect(clmarch.kernel).toBe('clmarch');
    for (const [suffix, scale] of [
      ['f32', '.f32'],
      ['f64', '.f64'],
      ['f16', '.f32'],
      ['bf16', '.f32'],
    ]) {
      const tiled8 = depthwiseLaunch(
        desc({ c: 2, in: [6, 3, 3], k: [5, 3, 3], pad: [2, 1, 1] }),
        'fw',
      );
      expect(tiled8.span).toBe(8);
      // wgradrow and wgrad (NCDHW), and wgradcl.
      for (const [layout, kernel] of [
        ['ncdhw', 'wgradrow'],
        ['ncdhw', 'wgrad'],
        ['ndhwc', 'wgrad'],
      ] as const) {
        const wgrad = depthwiseLaunch(
          desc({ c: 2, in: [3, 3, 3], k: [3, 3, 3], layout }),
          'bwFilter',
          { wgrad: { kernel } },
        );
        expect(wgrad.kernel).toBe(layout === 'ndhwc' ? 'wgradcl' : kernel);
        // Pass 1: x, dy, partials, planes; the ints. Pass 2: partials, dw, count; slots; alpha, beta.
        const one = [...Array(4).fill('.u64'), ...wgrad.ints.map(() => '.u32')];
        const first = `baracuda_depthwise_${wgrad.kernel}_${suffix}`;
        expect(ptxEntryParams(DEPTHWISE_PTX, first), first).toEqual(one);
        const second = `baracuda_depthwise_wgradsum_${suffix}`;
        expect(ptxEntryParams(DEPTHWISE_PTX, second), second).toEqual([
          ...Array(3).fill('.u64'),
          '.u32',
          scale,
          scale,
        ]);
      }
      for (const launch of [tiled, tiled8, gather, gathercl, clvec, clmarch]) {
        // in, w, out, planes; the ints; alpha, beta.
        const want = [...Array(4).fill('.u64'), ...launch.ints.map(() => '.u32'), scale, scale];
        const name = `baracuda_depthwise_${launch.kernel}${launch.span ?? ''}_${suffix}`;
        expect(ptxEntryParams(DEPTHWISE_PTX, name), name).toEqual(want);
      }
    }
  });

  it("loads the device's cubin once per device and packs each launch as cuda/depthwise.cu declares it", () => {
    const { loader, loads, launches } = recordingLoader();
    const k = DepthwiseKernels.forDevice(device, loader);
    expect(DepthwiseKernels.forDevice(device, loader)).toBe(k);
    // The device's own cubin (sm_90), so no JIT.
    expect(imageIds(loads)).toEqual(imageIds([cubinFor(DEPTHWISE_SASS, device)!.image]));
    if (k instanceof Error) throw k;
    const d32 = desc({ c: 3, n: 2, in: [4, 5, 6], k: [3, 3, 3], pad: [1, 1, 1] });
    const fw = depthwiseLaunch(d32, 'fw');
    k.call(fw, ElementKind.F32).run({ raw: 1n }, 0x100n, 0x200n, 0x300n, 2, 0.5);
    const want32 = new KernelParams().ptr(0x100n).ptr(0x200n).ptr(0x300n).u64(6);
    for (const v of fw.ints) want32.i32(v);
    want32.f32(2).f32(0.5);
    const d64 = desc({
      ...{ c: 4, in: [7, 8, 9], k: [3, 3, 3], pad: [1, 1, 1], stride: [2, 2, 2] },
      element: ElementKind.F64,
    } as Case);
    const bw = depthwiseLaunch(d64, 'bwData');
    k.call(bw, ElementKind.F64).run({ raw: 1n }, 0x400n, 0x500n, 0x600n, 1, 0);
    const want64 = new KernelParams().ptr(0x400n).ptr(0x500n).ptr(0x600n).u64(4);
    for (const v of bw.ints) want64.i32(v);
    want64.f64(1).f64(0);
    k.call(fw, ElementKind.Bf16).run({ raw: 1n }, 1n, 2n, 3n, 1, 0);
    k.call(fw, ElementKind.F16).run({ raw: 1n }, 1n, 2n, 3n, 1, 0);
    const cl = depthwiseLaunch(d32.withLayout('ndhwc').withStride(1, 1, 2), 'fw');
    k.call(cl, ElementKind.F32).run({ raw: 1n }, 1n, 2n, 3n, 1, 0);
    const march = depthwiseLaunch(d32.withLayout('ndhwc'), 'fw');
    k.call(march, ElementKind.F32).run({ raw: 1n }, 4n, 5n, 6n, 1, 0);
    expect(launches.map((l) => l.name)).toEqual([
      'baracuda_depthwise_tiled3_f32',
      'baracuda_depthwise_gather_f64',
      'baracuda_depthwise_tiled3_bf16',
      'baracuda_depthwise_tiled3_f16',
      'baracuda_depthwise_clvec_f32',
      'baracuda_depthwise_clmarch_f32',
    ]);
    // NDHWC (stride 2 in width), 3 channels of f32: one channel a thread (3 is odd),
    // 2 × 3 × 4·5·3 = 360 outputs in 2 blocks of 256, the 27 × 3 filter floats in shared memory;
    // vec is the last int.
    expect(cl).toMatchObject({
      kernel: 'clvec',
      grid: [2, 1, 1],
      block: [256, 1, 1],
      sharedBytes: 27 * 3 * 4,
      planes: 6,
    });
    expect(cl.ints.at(-1)).toBe(1);
    // Stride 1 marches: 2 × 5·6 columns × 3 channels = 180 threads, one chunk of 4 depths.
    expect(march).toMatchObject({ kernel: 'clmarch', grid: [1, 1, 1], sharedBytes: 27 * 3 * 4 });
    expect(march.ints.slice(-4)).toEqual([0, 1, 1, 4]);
    const wantMarch = new KernelParams().ptr(4n).ptr(5n).ptr(6n).u64(6);
    for (const v of march.ints) wantMarch.i32(v);
    wantMarch.f32(1).f32(0);
    expect(launches[5]!.params).toEqual(wantMarch.bytes());
    const wantCl = new KernelParams().ptr(1n).ptr(2n).ptr(3n).u64(6);
    for (const v of cl.ints) wantCl.i32(v);
    wantCl.f32(1).f32(0);
    expect(launches[4]!.params).toEqual(wantCl.bytes());
    expect(launches[4]!.shared).toBe(27 * 3 * 4);
    expect(launches[0]!.params).toEqual(want32.bytes());
    expect(launches[0]!.shared).toBe(fw.sharedBytes);
    expect(launches[1]!.params).toEqual(want64.bytes());
    expect(launches[1]!.shared).toBe(0);
    // A call made once runs many times, each with its own pointers and scalars.
    const reused = k.call(fw, ElementKind.F32);
    reused.run({ raw: 1n }, 0x700n, 0x800n, 0x900n, 1, 0);
    reused.run({ raw: 1n }, 0x100n, 0x200n, 0x300n, 2, 0.5);
    const again = new KernelParams().ptr(0x700n).ptr(0x800n).ptr(0x900n).u64(6);
    for (const v of fw.ints) again.i32(v);
    again.f32(1).f32(0);
    expect(launches.slice(-2).map((l) => [l.name, l.params])).toEqual([
      ['baracuda_depthwise_tiled3_f32', again.bytes()],
      ['baracuda_depthwise_tiled3_f32', want32.bytes()],
    ]);
    expect(() => k.call(fw, ElementKind.I8)).toThrow(
      "baracuda's depthwise kernels do not take element i8",
    );
  });
});
