/**
 * Every run path of a plan checks its arguments (run-args.ts) before it enqueues anything: the
 * graph path, the legacy fallback, pinned, our depthwise kernels, the layout detour,
 * backward-data as forward and the erratum's NDHWC detour. The fake libcuda of @baracuda/driver
 * (FAKE_CUDA_DEVICE_COUNT=2) gives real Streams and DeviceBuffers of device 1; the fake libcudnn.so.9 logs each
 * graph execution (FAKE_CUDNN_EXECUTE_LOG).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElementKind, InvalidArgumentError } from '@baracuda/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DepthwiseKernels } from './depthwise.js';
import { Conv3dDescriptor } from './descriptor.js';
import { smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import type { Conv3dPass, Conv3dPlan, Conv3dPlanOptions } from './plan.js';
import { pointwiseProblem } from './tuning.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();
// Two devices: device 1's streams and buffers are foreign to a plan on device 0.
process.env.FAKE_CUDA_DEVICE_COUNT = '2';

const depthwise = Conv3dDescriptor.create({
  batch: 1,
  cIn: 4,
  dIn: 4,
  hIn: 5,
  wIn: 6,
  cOut: 4,
  dFilt: 3,
  hFilt: 3,
  wFilt: 3,
  element: ElementKind.F32,
})
  .withPadding(1, 1, 1)
  .withGroups(4);

interface Mode {
  name: string;
  desc: Conv3dDescriptor;
  pass: Conv3dPass;
  engines?: string;
  preference?: { algorithm: 'pinned' };
  options?: Conv3dPlanOptions;
  /** What `algorithm(pass)` reports: proof the run takes that path. */
  algorithm: RegExp;
}

const MODES: Mode[] = [
  {
    name: 'graph',
    desc: smallProblem(ElementKind.F32),
    pass: 'fw',
    engines: '28',
    algorithm: /^engine 28$/,
  },
  {
    name: 'legacy fallback',
    desc: smallProblem(ElementKind.F16).withLayout('ndhwc'),
    pass: 'fw',
    algorithm: /^CUDNN_CONVOLUTION_FWD_ALGO 1$/,
  },
  {
    name: 'pinned',
    desc: smallProblem(ElementKind.F32),
    pass: 'fw',
    preference: { algorithm: 'pinned' },
    algorithm: /^CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM$/,
  },
  {
    name: 'our depthwise kernels',
    desc: depthwise,
    pass: 'bwData',
    algorithm: /^baracuda depthwise/,
  },
  {
    name: 'layout detour',
    desc: smallProblem(ElementKind.F32),
    pass: 'fw',
    engines: '28',
    options: { layoutDetour: 'always' },
    algorithm: /via NDHWC$/,
  },
  {
    name: 'backward-data as forward',
    desc: pointwiseProblem(),
    pass: 'bwData',
    engines: '28',
    options: { bwDataAsForward: 'always' },
    algorithm: /as forward on the flipped filter$/,
  },
  {
    name: "the erratum's NDHWC detour",
    desc: smallProblem(ElementKind.F16),
    pass: 'fw',
    algorithm: /via NDHWC \(cuDNN 9\.8–9\.14 erratum\)$/,
  },
];

/** The pass's argument names, in uid order (x-like, w-like, y-like). */
const NAMES: Record<Conv3dPass, [string, string, string]> = {
  fw: ['x', 'w', 'y'],
  bwData: ['dx', 'w', 'dy'],
  bwFilter: ['x', 'dw', 'dy'],
};

function run(plan: Conv3dPlan, pass: Conv3dPass, args: Record<string, unknown>): void {
  if (pass === 'fw') plan.runFw(args as never);
  else if (pass === 'bwData') plan.runBwData(args as never);
  else plan.runDw(args as never);
}

function thrown(f: () => void): string {
  try {
    f();
  } catch (error) {
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  return 'accepted';
}

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'every run path checks its arguments first (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    let driver: typeof import('@baracuda/driver');
    let log: string;
    beforeAll(async () => {
      driver = await import('@baracuda/driver');
      log = join(mkdtempSync(join(tmpdir(), 'baracuda-run-args-')), 'execute.log');
      process.env.FAKE_CUDNN_EXECUTE_LOG = log;
    });
    afterAll(() => {
      delete process.env.FAKE_CUDNN_EXECUTE_LOG;
      delete process.env.FAKE_CUDNN_ENGINES;
      DepthwiseKernels.resetForTests();
    });
    const executions = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');

    it.each(MODES)('$name', async (mode) => {
      const { Conv3dPlan } = await import('./plan.js');
      if (mode.engines === undefined) delete process.env.FAKE_CUDNN_ENGINES;
      else process.env.FAKE_CUDNN_ENGINES = mode.engines;
      const { Device, DeviceBuffer, Stream } = driver;
      const stream = Stream.create();
      const foreignStream = Stream.create(Device.get(1));
      const d = mode.desc;
      const bytes = d.elementBytes * Math.max(d.xElements, d.wElements, d.yElements);
      const own = [0, 1, 2].map(() => DeviceBuffer.alloc(bytes));
      const foreign = DeviceBuffer.alloc(bytes, { device: Device.get(1) });
      const plan = Conv3dPlan.selectSync(stream, d, mode.preference, mode.options);
      try {
        const [a, b, c] = NAMES[mode.pass];
        const good = { [a]: own[0], [b]: own[1], [c]: own[2] };
        run(plan, mode.pass, good);
        expect(plan.algorithm(mode.pass).name).toMatch(mode.algorithm);
        const before = executions();
        const cyclic: Record<string, unknown> = { kind: 'borrowed' };
        cyclic.slice = cyclic;
        const refusals: [Record<string, unknown>, string][] = [
          [
            { [a]: { devicePtr: 0n, byteLength: Number.NaN } },
            `Expected a non-negative safe integer for ${a}.byteLength but received NaN of type number`,
          ],
          [
            { [b]: { devicePtr: -(2n ** 12n), byteLength: bytes } },
            `Expected a bigint from 1 to 2^64 - 1 (a device address) for ${b}.devicePtr but received -4096n of type bigint`,
          ],
          [
            { [c]: { devicePtr: 2n ** 64n + 0x1000n, byteLength: bytes } },
            `Expected a bigint from 1 to 2^64 - 1 (a device address) for ${c}.devicePtr but received 18446744073709555712n of type bigint`,
          ],
          [
            { [c]: foreign },
            `Expected device 0 (the plan's device) for ${c}.device.ordinal but received 1 of type number`,
          ],
          [
            { stream: foreignStream },
            "Expected device 0 (the plan's device) for stream.device.ordinal but received 1 of type number",
          ],
          [
            { workspace: cyclic },
            'Expected a DeviceSlice for workspace.slice but received an object',
          ],
          [
            { alpha: Number.NaN },
            'Expected a finite number for alpha but received NaN of type number',
          ],
        ];
        for (const [bad, message] of refusals) {
          expect(thrown(() => run(plan, mode.pass, { ...good, ...bad }))).toBe(message);
        }
        // Nothing reached cuDNN's executions.
        expect(executions()).toBe(before);
      } finally {
        plan.dispose();
        for (const buffer of [...own, foreign]) buffer.dispose();
        stream.dispose();
        foreignStream.dispose();
      }
    });
  },
);
