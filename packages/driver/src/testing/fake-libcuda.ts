/**
 * Builds test/fake-libcuda.c into a shared library, for tests that need "a
 * driver" on machines without one, through the repository's one build helper
 * for test-only C (scripts/testing/build-fake.mjs). Returns null when no C
 * compiler is available (the tests that need it then skip).
 * @internal
 */
import {
  buildFakeLibcudaLibrary,
  fakeLiveCounts as readLiveCounts,
} from '../../../../scripts/testing/build-fake.mjs';

export interface FakeLibcudaOptions {
  /** Only cuInit, cuDriverGetVersion and cuDeviceGetCount. */
  minimal?: boolean;
  /** An older driver: no cuModuleLoadData, cuModuleUnload, cuModuleGetFunction, cuLaunchKernel. */
  noModules?: boolean;
  /** Modules load, but cuLaunchKernel is missing. */
  noLaunch?: boolean;
}

export function buildFakeLibcuda(options: FakeLibcudaOptions = {}): string | null {
  try {
    return buildFakeLibcudaLibrary(options);
  } catch {
    return null;
  }
}

/** What the fake libcuda at `library` holds alive now (see test/fake-libcuda.c). */
export interface FakeCudaLiveCounts {
  allocations: number;
  allocatedBytes: number;
  hostAllocations: number;
  streams: number;
  events: number;
  modules: number;
  functions: number;
  contexts: number;
}

/** The live counts of the fake loaded from `library` in this process; throws when it is not loaded. */
export function fakeCudaLiveCounts(library: string): FakeCudaLiveCounts {
  const counts = readLiveCounts(library);
  if (counts === null) throw new Error(`${library} is not loaded in this process`);
  return counts as unknown as FakeCudaLiveCounts;
}
