import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeGpu, type FakeGpuFaults } from '../check/fake-gpu.js';
import type { GpuOpenResult } from '../check/gpu-api.js';
import { parseCheckArgs } from './check.js';
import { MAIN_HELP, main } from './commands.js';
import { cpuDemo, gpuDemo } from './demo.js';
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
  details: [
    'CUDA driver: unavailable: libcuda.so.1 not found',
    '  searched:',
    '    libcuda.so.1: cannot open shared object file',
  ],
  solutions: [
    'In a container, run with `--gpus all` (NVIDIA Container Toolkit) so the driver is mounted',
  ],
});
const fakeGpu =
  (faults: FakeGpuFaults = {}) =>
  async (): Promise<GpuOpenResult> => ({
    available: true,
    api: new FakeGpu(faults),
  });
const QUICK = [
  'check',
  '--suites',
  'tiny',
  '--dtypes',
  'f32,f16',
  '--algos',
  'heuristic',
  '--no-extras',
];

describe('main', () => {
  it('prints help and exits 0', async () => {
    const r = recorder();
    expect(await main(['--help'], { io: r.io })).toBe(0);
    expect(r.out).toEqual([MAIN_HELP]);
    expect(await main(['help', 'check'], { io: r.io })).toBe(0);
    expect(r.out[1]).toMatch(/^Usage: baracuda check/);
    expect(await main(['demo', '--help'], { io: r.io })).toBe(0);
    expect(r.out[2]).toMatch(/^Usage: baracuda demo/);
    expect(await main(['doctor', '-h'], { io: r.io })).toBe(0);
    expect(r.out[3]).toMatch(/^Usage: baracuda doctor/);
  });

  it('prints the version', async () => {
    const r = recorder();
    expect(await main(['--version'], { io: r.io })).toBe(0);
    expect(await main(['-V'], { io: r.io })).toBe(0);
    const { version } = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    );
    expect(r.out).toEqual([version, version]);
  });

  it('exits 2 with the help for no command', async () => {
    const r = recorder();
    expect(await main([], { io: r.io })).toBe(2);
    expect(r.err).toEqual([MAIN_HELP]);
  });

  it('answers a typo or a bad option with one line and a hint, and exits 2', async () => {
    const r = recorder();
    expect(await main(['chek'], { io: r.io })).toBe(2);
    expect(await main(['nope'], { io: r.io })).toBe(2);
    expect(await main(['check', '--dtypes', 'f8'], { io: r.io, open: noGpu })).toBe(2);
    expect(await main(['check', '--bogus'], { io: r.io, open: noGpu })).toBe(2);
    expect(await main(['doctor', 'extra'], { io: r.io })).toBe(2);
    expect(r.err).toEqual([
      'baracuda: unknown command "chek". Did you mean "check"?',
      'Run "baracuda --help" for the commands.',
      'baracuda: unknown command "nope".',
      'Run "baracuda --help" for the commands.',
      'baracuda check: Expected a comma-separated list of f32, tf32, 3xtf32, f64, f16, bf16 for --dtypes but received "f8" of type string',
      'Run "baracuda check --help" for the options.',
      "baracuda check: Unknown option '--bogus'",
      'Run "baracuda check --help" for the options.',
      "baracuda doctor: Unexpected argument 'extra'. This command does not take positional arguments",
      'Run "baracuda doctor --help" for the options.',
    ]);
    expect(r.out).toEqual([]);
  });

  it('reports bench not built when the bench module is missing, and runs it otherwise', async () => {
    const r = recorder();
    const missing = async () => {
      throw new Error('Cannot find module ../bench/index.js');
    };
    expect(await main(['bench'], { io: r.io, loadBench: missing })).toBe(1);
    expect(r.err).toEqual(['bench not built: Cannot find module ../bench/index.js']);
    let seen: string[] = [];
    const bench = async () => ({
      runBench: async (argv: string[]) => {
        seen = argv;
        return 7;
      },
    });
    expect(await main(['bench', '--quick'], { io: r.io, loadBench: bench })).toBe(7);
    expect(seen).toEqual(['--quick']);
    // -h works on bench too: bench's own parser is handed --help.
    await main(['bench', '-h'], { io: r.io, loadBench: bench });
    expect(seen).toEqual(['--help']);
    await main(['bench', 'merge', '-h'], { io: r.io, loadBench: bench });
    expect(seen).toEqual(['merge', '--help']);
    await main(['help', 'bench'], { io: r.io, loadBench: bench });
    expect(seen).toEqual(['--help']);
  });
});

describe('check command', () => {
  it('says there is no GPU, lists what was searched, and exits 1', async () => {
    const r = recorder();
    expect(await main(['check'], { io: r.io, open: noGpu })).toBe(1);
    expect(r.err).toEqual([
      'No GPU: no usable CUDA GPU found.',
      '  CUDA driver: unavailable: libcuda.so.1 not found',
      '    searched:',
      '      libcuda.so.1: cannot open shared object file',
      'What to do:',
      '  - In a container, run with `--gpus all` (NVIDIA Container Toolkit) so the driver is mounted',
      'Nothing was checked: check needs an NVIDIA GPU with its driver and cuDNN 9.',
    ]);
  });

  it('shows one updating i/N progress line when stderr is a terminal, and autotune in it', async () => {
    const r = recorder();
    const status: string[] = [];
    let onProgress: ((message: string) => void) | undefined;
    const open = async (_ordinal: number, options?: { onProgress?: (message: string) => void }) => {
      onProgress = options?.onProgress;
      return fakeGpu()();
    };
    expect(await main(QUICK, { io: { ...r.io, status: (text) => status.push(text) }, open })).toBe(
      0,
    );
    const rows = r.out.filter((line) => /^tiny/.test(line)).length;
    expect(status.at(-1)).toBe('');
    expect(status.at(-2)).toMatch(/^check (\d+)\/\1 rows$/);
    expect(status[0]).toMatch(/^check 1\/\d+ rows$/);
    expect(status.length - 1).toBeGreaterThanOrEqual(rows);
    onProgress?.('engine 3 0.123 ms');
    expect(status.at(-1)).toBe('autotune: engine 3 0.123 ms');
  });

  it('prints autotune progress as plain lines when stderr is not a terminal', async () => {
    const r = recorder();
    let onProgress: ((message: string) => void) | undefined;
    const open = async (_ordinal: number, options?: { onProgress?: (message: string) => void }) => {
      onProgress = options?.onProgress;
      return noGpu();
    };
    await main(['check'], { io: r.io, open });
    onProgress?.('engine 3 0.123 ms');
    expect(r.err.at(-1)).toBe('baracuda autotune: engine 3 0.123 ms');
  });

  it('prints the device, the table and the summary line, and writes JSON', async () => {
    const r = recorder();
    const json = join(mkdtempSync(join(tmpdir(), 'baracuda-check-')), 'out.json');
    expect(
      await main([...QUICK, '--json', json, '--seed', 'abc'], { io: r.io, open: fakeGpu() }),
    ).toBe(0);
    expect(r.out.slice(0, 5)).toEqual([
      'baracuda conformance check',
      'device:  0: Fake CPU GPU (sm_90, 80.0 GiB)',
      'driver:  CUDA 13.0',
      'cuDNN:   9.14.0 (/fake/libcudnn.so.9)',
      'seed:    0000000000000abc',
    ]);
    const summary = r.out.at(-2)!;
    expect(summary).toMatch(/^\d+ passed, 0 failed, 0 unsupported$/);
    const written = JSON.parse(readFileSync(json, 'utf8'));
    expect(written.seed).toBe('0000000000000abc');
    expect(
      `${written.passed} passed, ${written.failed} failed, ${written.unsupported} unsupported`,
    ).toBe(summary);
    expect(written.rows[0]).toMatchObject({
      check: 'conv',
      dtype: 'f32',
      layout: 'ncdhw',
      pass: 'fw',
      status: 'pass',
    });
  });

  it('exits 1 and lists the failures when a row fails', async () => {
    const r = recorder();
    expect(await main(QUICK, { io: r.io, open: fakeGpu({ unwritten: 2 }) })).toBe(1);
    expect(r.out).toContain('Failures:');
    expect(r.out.at(-1)).toMatch(/^0 passed, \d+ failed, 0 unsupported$/);
  });

  it('counts unsupported rows apart and exits 1 when nothing passed', async () => {
    const r = recorder();
    const args = [
      'check',
      '--suites',
      'tiny',
      '--dtypes',
      'f32',
      '--layouts',
      'ndhwc',
      '--algos',
      'pinned',
      '--no-extras',
    ];
    expect(await main(args, { io: r.io, open: fakeGpu() })).toBe(1);
    expect(r.out.at(-1)).toMatch(/^0 passed, 0 failed, \d+ unsupported$/);
    expect(r.err).toEqual(['No row passed: nothing was verified.']);
  });

  it('parses every option', () => {
    expect(
      parseCheckArgs([
        '--suites',
        'odd,large',
        '--layouts',
        'ndhwc',
        '--passes',
        'bwFilter',
        '--max-macs',
        '1e6',
        '--leak-cycles',
        '10',
        '--device',
        '1',
      ]),
    ).toMatchObject({
      suites: ['odd', 'large'],
      layouts: ['ndhwc'],
      passes: ['bwFilter'],
      maxMacs: 1e6,
      leakCycles: 10,
      device: 1,
      extras: true,
    });
    expect(() => parseCheckArgs(['--max-macs=-5'])).toThrow(
      'Expected a positive integer for --max-macs but received "-5" of type string',
    );
    expect(() => parseCheckArgs(['--seed', 'xyz'])).toThrow(
      'Expected up to 16 hex digits for --seed but received "xyz" of type string',
    );
    expect(() => parseCheckArgs(['--device', '1.5'])).toThrow(
      'Expected a non-negative integer for --device but received "1.5" of type string',
    );
  });

  it('rejects a malformed suite file before looking for a GPU', async () => {
    const r = recorder();
    let opened = false;
    const open = async () => {
      opened = true;
      return noGpu();
    };
    const file = join(mkdtempSync(join(tmpdir(), 'baracuda-suite-')), 'missing.json');
    expect(await main(['check', '--suite', file], { io: r.io, open })).not.toBe(0);
    expect(opened).toBe(false);
  });
});

describe('demo command', () => {
  it('runs the CPU reference and exits 0 without a GPU', async () => {
    const r = recorder();
    expect(await main(['demo'], { io: r.io, open: noGpu })).toBe(0);
    expect(r.out[1]).toBe('No GPU: no usable CUDA GPU found.');
    expect(r.out).toContain(
      'Running the CPU reference instead, so you can see what the demo computes.',
    );
    // What to do, in the library's own words.
    expect(r.out).toContain(
      '  - In a container, run with `--gpus all` (NVIDIA Container Toolkit) so the driver is mounted',
    );
    expect(
      r.out.some((line) =>
        line.startsWith('CPU f64 reference on a reduced layer: n=1 c=8→8 in=32×32×32'),
      ),
    ).toBe(true);
    // Relative to the size of the terms: f64 rounding, about 1e-16, whatever the sums cancel to.
    const mismatch = /adjoint identity .* relative mismatch (\S+)$/.exec(r.out.at(-1) ?? '');
    expect(mismatch, r.out.at(-1)).not.toBeNull();
    expect(Number(mismatch![1])).toBeLessThan(1e-14);
  });

  it('times, names and checks every pass on a GPU (fake)', async () => {
    const r = recorder();
    const layer = {
      name: 'small',
      n: 1,
      cIn: 4,
      cOut: 4,
      in: [6, 6, 6] as const,
      k: [3, 3, 3] as const,
      pad: [1, 1, 1] as const,
      stride: [1, 1, 1] as const,
      dil: [1, 1, 1] as const,
      groups: 1,
    };
    expect(await gpuDemo(new FakeGpu(), r.io, 2, layer)).toBe(0);
    expect(r.out).toContain('dtype:   bf16 ndhwc (heuristic plan)');
    expect(
      r.out.filter((line) => /^(fw|bwData|bwFilter) +FAKE_HEURISTIC_/.test(line)),
    ).toHaveLength(3);
    expect(r.out.at(-1)).toMatch(/^OK: forward \+ backward of the layer in/);
    const bad = recorder();
    expect(await gpuDemo(new FakeGpu({ perturb: 0.5 }), bad.io, 2, layer)).toBe(1);
    expect(bad.err[0]).toBe('WRONG RESULTS in fw, bwData, bwFilter: see the table above.');
  });

  it('cpuDemo prints sizes and times', () => {
    const r = recorder();
    cpuDemo(r.io, {
      name: 't',
      n: 1,
      cIn: 2,
      cOut: 2,
      in: [4, 4, 4],
      k: [3, 3, 3],
      pad: [1, 1, 1],
      stride: [1, 1, 1],
      dil: [1, 1, 1],
      groups: 1,
    });
    expect(r.out).toHaveLength(5);
    expect(r.out[1]).toMatch(/^ {2}forward +\d+ ms/);
  });
});
