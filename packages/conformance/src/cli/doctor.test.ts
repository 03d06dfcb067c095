import { describe, expect, it } from 'vitest';
import type { StackReport } from '../check/inspect.js';
import { solutionsOf } from '../check/stack-text.js';
import { main } from './commands.js';
import { doctorLines, gpuRunPossible } from './doctor.js';
import type { CliIo } from './io.js';

function recorder() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (line) => out.push(line), err: (line) => err.push(line) };
  return { io, out, err };
}

const none: StackReport = {
  driver: {
    available: false,
    version: null,
    libraryPath: null,
    reason: 'Could not load libcuda.so.1 (NVIDIA driver).',
  },
  devices: [],
  cudnn: {
    available: false,
    version: null,
    libraryPath: null,
    reason: 'libcudnn.so.9 (cuDNN 9) was not found',
  },
  errata: [],
  solutions: [
    'If libcuda.so.1 is installed somewhere unusual, set BARACUDA_CUDA_DRIVER_LIBRARY=/path/to/libcuda.so.1',
  ],
};

const h200: StackReport = {
  driver: { available: true, version: '12.4', libraryPath: '/usr/lib/libcuda.so.1', reason: null },
  devices: [
    { ordinal: 0, name: 'NVIDIA H200', computeCapability: '9.0', totalMemory: 150 * 2 ** 30 },
  ],
  cudnn: {
    available: true,
    version: '9.14.0',
    libraryPath: '/usr/lib/libcudnn.so.9',
    reason: null,
  },
  errata: [{ id: 'cudnn-9.8-conv3d-half-ncdhw', description: 'wrong f16 NCDHW' }],
  solutions: [],
};

describe('doctor', () => {
  it('without a GPU: says what is missing and what to do, and exits 1', async () => {
    const r = recorder();
    expect(await main(['doctor'], { io: r.io, inspect: async () => none })).toBe(1);
    expect(r.out.slice(1)).toEqual([
      '',
      'CUDA driver  not found: Could not load libcuda.so.1 (NVIDIA driver).',
      'GPUs         none',
      'cuDNN        not found: libcudnn.so.9 (cuDNN 9) was not found',
      '',
      'No GPU run is possible here. What to do:',
      '  - If libcuda.so.1 is installed somewhere unusual, set BARACUDA_CUDA_DRIVER_LIBRARY=/path/to/libcuda.so.1',
    ]);
    expect(r.out[0]).toMatch(/^baracuda \d+\.\d+\.\d+\S* doctor \(Node v\d+/);
  });

  it('with a GPU: lists the driver, GPUs, cuDNN and errata in force, and exits 0', async () => {
    const r = recorder();
    expect(await main(['doctor'], { io: r.io, inspect: async () => h200 })).toBe(0);
    expect(r.out.slice(2)).toEqual([
      'CUDA driver  12.4 (/usr/lib/libcuda.so.1)',
      'GPU 0        NVIDIA H200 (sm_90, 150.0 GiB)',
      'cuDNN        9.14.0 (/usr/lib/libcudnn.so.9)',
      'our kernels  load (PTX ISA 8.0 needs a CUDA 12.0 (r525) driver or newer)',
      'errata       cudnn-9.8-conv3d-half-ncdhw: wrong f16 NCDHW',
      '',
      'A GPU run is possible: try `baracuda demo`.',
    ]);
  });

  it('says when the driver is too old for our kernels', () => {
    const old = { ...h200, driver: { ...h200.driver, version: '11.8' } };
    expect(doctorLines(old, 'x')).toContain(
      'our kernels  need a CUDA 12.0 (r525) driver or newer; cuDNN runs those problems instead',
    );
  });

  it('--json prints the report with the verdict', async () => {
    const r = recorder();
    expect(await main(['doctor', '--json'], { io: r.io, inspect: async () => h200 })).toBe(0);
    expect(JSON.parse(r.out.join('\n'))).toMatchObject({
      gpuRunPossible: true,
      errata: h200.errata,
    });
  });

  it('needs the driver, a GPU and cuDNN for a GPU run', () => {
    expect(gpuRunPossible(h200)).toBe(true);
    expect(gpuRunPossible({ ...h200, devices: [] })).toBe(false);
    expect(gpuRunPossible({ ...h200, cudnn: none.cudnn })).toBe(false);
  });
});

describe('solutionsOf', () => {
  it("takes a LibraryNotFoundError message's possible solutions", () => {
    expect(
      solutionsOf(
        'Could not load x.\nSearched:\n  - /a: no\nPossible solutions:\n  - do this\n  - or that',
      ),
    ).toEqual(['do this', 'or that']);
    expect(solutionsOf('plain failure')).toEqual([]);
    expect(solutionsOf(null)).toEqual([]);
  });
});
