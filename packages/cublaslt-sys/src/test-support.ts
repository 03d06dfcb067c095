/**
 * @internal Test helpers: the fake libcublasLt.so.13 (native/testing/fake_cublaslt.c) and the
 * driver's fake libcuda.so.1, built through the repository's one build helper for test-only C
 * (scripts/testing/build-fake.mjs), so CI (no GPU, no cuBLAS) runs every binding through real C.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildFakeCublasLtLibrary,
  buildFakeLibcudaLibrary,
  fakeLiveCounts,
} from '../../../scripts/testing/build-fake.mjs';

/** What the fake cuBLASLt holds alive now, and what its last matmul was asked. */
export interface FakeCublasLtCounts {
  handles: number;
  matmulDescs: number;
  layouts: number;
  preferences: number;
  matmuls: number;
  lastComputeType: number;
  lastTransa: number;
  lastTransb: number;
  lastM: number;
  lastN: number;
  lastK: number;
  lastBatch: number;
  lastWorkspace: number;
}

/**
 * Points BARACUDA_CUBLASLT_LIBRARY at the fake cuBLASLt and BARACUDA_CUDA_DRIVER_LIBRARY at the
 * fake libcuda, before anything loads either. Returns the fake cuBLASLt's path.
 */
export function useFakes(options: { partial?: boolean } = {}): string {
  const library = buildFakeCublasLtLibrary({ partial: options.partial ?? false });
  process.env.BARACUDA_CUBLASLT_LIBRARY = library;
  process.env.BARACUDA_CUDA_DRIVER_LIBRARY = buildFakeLibcudaLibrary();
  return library;
}

/** The counts of the fake cuBLASLt at `library`, as loaded in this process. */
export function fakeCublasLtCounts(library: string): FakeCublasLtCounts {
  const counts = fakeLiveCounts(library);
  if (counts === null) throw new Error(`${library} is not loaded in this process`);
  return counts as unknown as FakeCublasLtCounts;
}

/** A shared library named libcublasLt.so.13 that is not cuBLASLt; returns its path. */
export function buildNotCublasLt(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-not-cublaslt-'));
  const source = join(dir, 'not_cublaslt.c');
  writeFileSync(source, 'int not_cublaslt(void) { return 1; }\n');
  execFileSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'libcublasLt.so.13'), source]);
  return join(dir, 'libcublasLt.so.13');
}
