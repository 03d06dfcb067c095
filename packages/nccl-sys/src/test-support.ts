/**
 * @internal Test helpers: the fake libnccl.so.2 (native/testing/fake_nccl.c) and the driver's fake
 * libcuda.so.1, built through the repository's one build helper for test-only C
 * (scripts/testing/build-fake.mjs), so CI (no GPU, no NCCL) runs every binding through real C.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildFakeLibcudaLibrary,
  buildFakeNcclLibrary,
  fakeLiveCounts,
} from '../../../scripts/testing/build-fake.mjs';

/** What the fake NCCL holds alive now. */
export interface FakeNcclLiveCounts {
  comms: number;
  cliques: number;
  /** Calls enqueued that have not completed (waiting for a peer). */
  pending: number;
}

/**
 * Points BARACUDA_NCCL_LIBRARY at the fake NCCL and BARACUDA_CUDA_DRIVER_LIBRARY at the fake
 * libcuda with `devices` devices, before anything loads either. Returns the fake NCCL's path.
 */
export function useFakes(options: { devices?: number; noP2p?: boolean } = {}): string {
  const nccl = buildFakeNcclLibrary({ noP2p: options.noP2p ?? false });
  process.env.BARACUDA_NCCL_LIBRARY = nccl;
  process.env.BARACUDA_CUDA_DRIVER_LIBRARY = buildFakeLibcudaLibrary();
  process.env.FAKE_CUDA_DEVICE_COUNT = String(options.devices ?? 4);
  return nccl;
}

/** The live counts of the fake NCCL at `library`, as loaded in this process. */
export function fakeNcclLiveCounts(library: string): FakeNcclLiveCounts {
  const counts = fakeLiveCounts(library);
  if (counts === null) throw new Error(`${library} is not loaded in this process`);
  return counts as unknown as FakeNcclLiveCounts;
}

/** A shared library that is not NCCL, named libnccl.so.2; returns its path. */
export function buildNotNccl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-not-nccl-'));
  const source = join(dir, 'not_nccl.c');
  writeFileSync(source, 'int not_nccl(void) { return 1; }\n');
  execFileSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'libnccl.so.2'), source]);
  return join(dir, 'libnccl.so.2');
}
