/**
 * The fake libcudnn.so.9 of @baracuda/cudnn-sys (native/testing/fake_cudnn.c, reports cuDNN
 * 9.14.0) and the driver's fake libcuda.so.1 for tests that run plans without a GPU, the fake
 * device and stream they run on, and a small problem to run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElementKind } from '@baracuda/types';
import {
  buildFakeCudnnLibrary,
  buildFakeLibcudaLibrary,
} from '../../../scripts/testing/build-fake.mjs';
import { type AutotuneEntry, autotuneKey, writeAutotuneEntry } from './autotune-cache.js';
import { resolvePlanPreference } from './compat.js';
import { Conv3dDescriptor } from './descriptor.js';
import type { Conv3dPass } from './plan.js';

/**
 * Build the fake through the repository's one build helper for test-only C
 * (scripts/testing/build-fake.mjs: cached by content, instrumented under BARACUDA_SANITIZE=1) and
 * point BARACUDA_CUDNN_LIBRARY at it (before anything loads cuDNN). Null where there is no C
 * compiler: the caller skips, saying so.
 */
export function useFakeCudnn(): string | null {
  // No cuBLASLt unless a test asks for the fake one: the patch route's cuBLASLt candidate stays out
  // of every other test, whatever this machine has installed.
  if (!process.env.BARACUDA_CUBLASLT_LIBRARY) {
    process.env.BARACUDA_CUBLASLT_LIBRARY = '/nonexistent/libcublasLt.so.13';
  }
  try {
    const library = buildFakeCudnnLibrary();
    process.env.BARACUDA_CUDNN_LIBRARY = library;
    return library;
  } catch {
    return null;
  }
}

/** The driver package's fake libcuda, built the same way; null where there is no C compiler. */
export function useFakeCuda(): string | null {
  try {
    const library = buildFakeLibcudaLibrary();
    process.env.BARACUDA_CUDA_DRIVER_LIBRARY = library;
    return library;
  } catch {
    return null;
  }
}

export const fakeDevice = {
  ordinal: 0,
  name: 'fake device',
  computeCapability: { major: 9, minor: 0 },
  arch: 'sm_90',
  makeCurrent() {},
};
export const fakeStream = { raw: 0n, device: fakeDevice };

/** n=1, 4→4 channels, 4×4×4, filter 1×3×3 (larger than 1×1×1, so the f16/bf16 erratum applies). */
export function smallProblem(element: ElementKind): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch: 1,
    cIn: 4,
    dIn: 4,
    hIn: 4,
    wIn: 4,
    cOut: 4,
    dFilt: 1,
    hFilt: 3,
    wFilt: 3,
    element,
  });
}

/**
 * A new autotune cache file holding one entry for each `[problem, pass, engine]`, keyed as a plan
 * on the fake device and the fake's cuDNN 9.14.0 with the default autotune preference keys it
 * (engine index -1: our own kernel). Returns the file's path.
 */
export function fakeAutotuneCache(
  entries: readonly (readonly [Conv3dDescriptor, Conv3dPass, AutotuneEntry])[],
  path = join(mkdtempSync(join(tmpdir(), 'baracuda-fake-autotune-')), 'autotune.json'),
): string {
  const preference = resolvePlanPreference({ algorithm: 'autotune' });
  for (const [problem, pass, choice] of entries) {
    const key = autotuneKey({
      problem: problem.describe(),
      pass,
      scalingKind: problem.element === ElementKind.F64 ? 'f64' : 'f32',
      deterministic: preference.deterministic,
      allowTf32: preference.allowTf32,
      deviceName: fakeDevice.name,
      computeCapability: fakeDevice.computeCapability,
      cudnnVersion: 91400,
    });
    if (!writeAutotuneEntry(path, key, choice)) throw new Error(`could not write ${path}`);
  }
  return path;
}
