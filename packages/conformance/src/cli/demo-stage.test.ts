/**
 * `demo --stage`: its argument parsing, its no-GPU path (the reference step of a reduced stage,
 * gradients against finite differences) and its GPU path on the fake GPU, where a wrong or an
 * unwritten output fails the run.
 */
import { describe, expect, it } from 'vitest';
import { FakeGpu } from '../check/fake-gpu.js';
import type { GpuOpenResult } from '../check/gpu-api.js';
import { STAGE_OUTPUTS } from '../stage/shape.js';
import { main } from './commands.js';
import { cpuStageDemo, gpuStageDemo } from './demo-stage.js';
import type { CliIo } from './io.js';

function recorder() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (line) => out.push(line), err: (line) => err.push(line) };
  return { io, out, err };
}

const noGpu = async (): Promise<GpuOpenResult> => ({
  available: false,
  reason: 'no usable CUDA GPU found',
  details: ['CUDA driver: unavailable: libcuda.so.1 not found'],
});
const TINY = { n: 1, c: 2, cDown: 4, size: [4, 4, 6] as const };
/**
 * A small stage with 8 channels a layer for the passing run: with TINY's 2 channels, the bias
 * gradient of bf16 rounding can cancel to near zero, so its relative L2 passed 3e-2 for about 1
 * seed in 100 (3 of 300 seeds tried; seed 1074: db1 6.4e-2); with 8 channels none of 400 seeds did.
 */
const STEADY = { n: 1, c: 8, cDown: 8, size: [4, 4, 6] as const };

describe('demo --stage', () => {
  it('without a GPU says so and runs the reference step of a reduced stage', async () => {
    const r = recorder();
    expect(await main(['demo', '--stage'], { io: r.io, open: noGpu })).toBe(0);
    expect(r.out[0]).toBe(
      'baracuda demo --stage: one 3-D U-Net stage training step, forward and backward',
    );
    expect(r.out[1]).toBe('No GPU: no usable CUDA GPU found.');
    expect(r.out).toContain(
      'Running the CPU reference instead, so you can see what the demo computes.',
    );
    expect(r.out).toContain(
      'CPU f64 reference of a reduced stage: n=1 c=4→8 16×16×16 ncdhw (12 M MACs per step)',
    );
    const worst = /finite differences \(one entry each\): worst error (\S+)$/.exec(
      r.out.at(-1) ?? '',
    );
    expect(worst, r.out.at(-1)).not.toBeNull();
    expect(Number(worst![1])).toBeLessThan(1e-6);
  });

  it('with --cpu runs only the reference, never opening the GPU', async () => {
    const r = recorder();
    let opened = false;
    const open = async () => {
      opened = true;
      return noGpu();
    };
    expect(await main(['demo', '--stage', '--cpu'], { io: r.io, open })).toBe(0);
    expect(opened).toBe(false);
    expect(r.out.some((l) => l.startsWith('CPU f64 reference of a reduced stage'))).toBe(true);
  });

  it('refuses bad arguments with the reason and exit 2', async () => {
    for (const [argv, message] of [
      [
        ['demo', '--stage', '--reps', '0'],
        'baracuda demo: Expected a positive integer for --reps but received "0" of type string',
      ],
      [
        ['demo', '--stage', '--device', 'one'],
        'Expected a non-negative integer for --device but received "one" of type string',
      ],
      [['demo', '--stages'], "Unknown option '--stages'"],
      [['demo', '--stage=yes'], "Option '--stage' does not take an argument"],
    ] as const) {
      const r = recorder();
      expect(await main([...argv], { io: r.io, open: noGpu }), argv.join(' ')).toBe(2);
      expect(r.err.join('\n'), argv.join(' ')).toContain(message);
    }
  });

  it('--help describes the stage', async () => {
    const r = recorder();
    expect(await main(['demo', '--help'], { io: r.io })).toBe(0);
    expect(r.out.join('\n')).toContain('--stage        the U-Net stage training step');
  });

  it('on a GPU (fake) trains one step, names every algorithm and checks every output', async () => {
    const r = recorder();
    expect(await gpuStageDemo(new FakeGpu(), r.io, 2, STEADY)).toBe(0);
    expect(r.out).toContain('dtype:   bf16 ndhwc (heuristic plans)');
    expect(
      r.out.filter((l) => /^(conv1|conv2|down|up) +(fw|bwData|bwFilter) +fake/.test(l)),
    ).toHaveLength(12);
    for (const name of STAGE_OUTPUTS) {
      expect(
        r.out.some((l) => new RegExp(`^${name} +\\d\\.\\d\\de[-+]\\d+  \\d+$`).test(l)),
        name,
      ).toBe(true);
    }
    expect(
      r.out.some((l) => /^step: forward \S+ ms \+ backward \S+ ms = \S+ ms \(median of 2/.test(l)),
    ).toBe(true);
    expect(r.out.at(-1)).toBe(
      'OK: every activation and gradient of the step within 3e-2 of the f64 reference.',
    );
  });

  it('fails a run whose outputs are wrong or left unwritten', async () => {
    const wrong = recorder();
    expect(await gpuStageDemo(new FakeGpu({ perturb: 0.1 }), wrong.io, 1, TINY)).toBe(1);
    expect(wrong.err[0]).toMatch(
      /^WRONG RESULTS in a1, .*\(tolerance 3e-2\): see the table above\.$/,
    );
    const holes = recorder();
    expect(await gpuStageDemo(new FakeGpu({ unwritten: 1 }), holes.io, 1, TINY)).toBe(1);
    expect(holes.out.some((l) => /^dw1 .*, 1 unwritten {2}WRONG$/.test(l))).toBe(true);
  });

  it('says so when the stack has no stage', async () => {
    const r = recorder();
    const api = new FakeGpu();
    Object.defineProperty(api, 'selectStage', { value: undefined });
    expect(await gpuStageDemo(api, r.io, 1, TINY)).toBe(1);
    expect(r.err).toEqual(['This GPU stack offers no U-Net stage (selectStage).']);
  });

  it('cpuStageDemo takes the shape it is given', () => {
    const r = recorder();
    cpuStageDemo(r.io, { ...TINY, layout: 'ndhwc' });
    expect(r.out[0]).toBe(
      'CPU f64 reference of a reduced stage: n=1 c=2→4 4×4×6 ndhwc (0 M MACs per step)',
    );
    expect(r.out).toHaveLength(3);
  });
});
