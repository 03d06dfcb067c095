/**
 * Autotune end to end without a GPU, for tests: the fake libcuda and libcudnn (see
 * fake-cudnn.test-helpers.ts) with one scripted engine (28) and an execute log, a real driver
 * Stream on them, and helpers to tune a plan and read what it ran.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElementKind } from '@baracuda/types';
import { afterEach, beforeEach, vi } from 'vitest';
import type { AutotuneEntry } from './autotune-cache.js';
import { Conv3dDescriptor } from './descriptor.js';
import { fakeAutotuneCache, fakeStream } from './fake-cudnn.test-helpers.js';
import type { Conv3dPass, Conv3dPlan, Conv3dPlanOptions } from './plan.js';
import type { StreamLike } from './sys.js';
import { captureWarnings } from './warnings.test-helpers.js';

/** n=2, 4→6 channels, 3×2×5, a 1×1×1 filter (backward-data is a forward pass of 6→4 channels). */
export function pointwiseProblem(element: ElementKind = ElementKind.F32): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch: 2,
    cIn: 4,
    dIn: 3,
    hIn: 2,
    wIn: 5,
    cOut: 6,
    dFilt: 1,
    hFilt: 1,
    wFilt: 1,
    element,
  });
}

/** n=1, 4 channels in groups of one, 4×5×6, 3×3×3 pad 1: our depthwise kernels' problem. */
export function depthwiseProblem(element: ElementKind = ElementKind.F32): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch: 1,
    cIn: 4,
    dIn: 4,
    hIn: 5,
    wIn: 6,
    cOut: 4,
    dFilt: 3,
    hFilt: 3,
    wFilt: 3,
    element,
  })
    .withPadding(1, 1, 1)
    .withGroups(4);
}

/** Device slices of `d`'s x, w and y at fixed fake addresses (0x10000, 0x20000, 0x30000). */
export function fakeOperands(d: Conv3dDescriptor) {
  const slice = (ptr: bigint, elements: number) => ({
    devicePtr: ptr,
    byteLength: d.elementBytes * elements,
  });
  return {
    x: slice(0x10000n, d.xElements),
    w: slice(0x20000n, d.wElements),
    y: slice(0x30000n, d.yElements),
  };
}

/**
 * Registers, for the enclosing describe, a fresh Stream, engine 28 and an execute log before each
 * test, and clears them (and FAKE_CUDA_LAUNCH_MS) after.
 */
export function fakeTuning(prefix: string) {
  let log = '';
  let stream: (StreamLike & { dispose(): void }) | undefined;
  beforeEach(async () => {
    const { Stream } = await import('@baracuda/driver');
    process.env.FAKE_CUDNN_ENGINES = '28';
    log = join(mkdtempSync(join(tmpdir(), `${prefix}-`)), 'execute.log');
    process.env.FAKE_CUDNN_EXECUTE_LOG = log;
    stream = Stream.create();
  });
  afterEach(() => {
    stream?.dispose();
    delete process.env.FAKE_CUDA_LAUNCH_MS;
    delete process.env.FAKE_CUDNN_EXECUTE_LOG;
    delete process.env.FAKE_CUDNN_ENGINES;
  });
  return {
    stream: (): StreamLike => stream!,
    /** An autotuned plan of `passes`; its progress lines without the problems' names. */
    async tune(
      desc: Conv3dDescriptor,
      cachePath: string,
      passes: Conv3dPass[],
      options: Conv3dPlanOptions = {},
    ): Promise<{ plan: Conv3dPlan; lines: string[] }> {
      const { Conv3dPlan } = await import('./plan.js');
      const lines: string[] = [];
      const plan = await Conv3dPlan.select(
        stream!,
        desc,
        { algorithm: 'autotune' },
        {
          passes,
          autotuneCachePath: cachePath,
          onProgress: (m) => lines.push(m.replace(/^conv3d .*? (fw|bwData|bwFilter): /, '$1: ')),
          ...options,
        },
      );
      return { plan, lines };
    },
    /** A new autotune cache file's path. */
    newCache: () => join(mkdtempSync(join(tmpdir(), `${prefix}-cache-`)), 'a.json'),
    /** The execute log's lines: each execution's data pointers (hex), oldest first. */
    executions: () => readFileSync(log, 'utf8').trim().split('\n'),
    /** The cache file's entries as [problem pass=…, entry]. */
    cacheEntries: (path: string) =>
      Object.entries(JSON.parse(readFileSync(path, 'utf8')).entries).map(([k, v]) => [
        k.split(' | ').slice(0, 2).join(' '),
        v,
      ]),
  };
}

/**
 * An autotuned plan of `pass` of `d` on the fake device (engine 28 only), selected with an autotune
 * cache holding just `entry` for it: the warnings select gave (code, message) and the pass's
 * algorithm name. The plan is disposed.
 */
export async function selectFromCache(
  d: Conv3dDescriptor,
  pass: Conv3dPass,
  entry: AutotuneEntry,
): Promise<{ warnings: [string | undefined, string][]; name: string }> {
  const { Conv3dPlan } = await import('./plan.js');
  const cachePath = fakeAutotuneCache([[d, pass, entry]]);
  const warnings = captureWarnings();
  process.env.FAKE_CUDNN_ENGINES = '28';
  try {
    const plan = await Conv3dPlan.select(
      fakeStream,
      d,
      { algorithm: 'autotune' },
      { passes: [pass], autotuneCachePath: cachePath },
    );
    const name = plan.algorithm(pass).name;
    plan.dispose();
    return { warnings: warnings.map((w) => [w.code, w.message]), name };
  } finally {
    delete process.env.FAKE_CUDNN_ENGINES;
    vi.restoreAllMocks();
  }
}
