/**
 * @internal Test helpers: compiles native/testing/fake_cudnn.c into a libcudnn.so.9 through the
 * repository's one build helper for test-only C (scripts/testing/build-fake.mjs), so CI (which has
 * no cuDNN) can exercise loading and marshalling through real C calls.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildFakeCudnnLibrary,
  fakeLiveCounts as readLiveCounts,
} from '../../../scripts/testing/build-fake.mjs';

/**
 * The addon tests load in child processes and workers: the one in BARACUDA_ADDON_DIR when set (the
 * sanitizer job's instrumented build, scripts/ci/sanitize.sh), else this package's build.
 */
export function builtAddonPath(): string {
  const dir = process.env.BARACUDA_ADDON_DIR;
  if (dir) return join(dir, 'baracuda_cudnn.node');
  return resolve(
    dirname(fileURLToPath(import.meta.url)),
    '..',
    'build',
    'Release',
    'baracuda_cudnn.node',
  );
}

/**
 * Builds the fake cuDNN and returns the directory holding its libcudnn.so.9; `noBackward` leaves
 * out the legacy backward functions (a partial library).
 */
export function buildFakeCudnn(options: { noBackward?: boolean } = {}): string {
  return dirname(buildFakeCudnnLibrary(options));
}

/** What the fake cuDNN holds alive now (see native/testing/fake_cudnn.c). */
export interface FakeCudnnLiveCounts {
  handles: number;
  tensors: number;
  filters: number;
  convolutions: number;
  activations: number;
  backendDescriptors: number;
}

/** The live counts of the fake libcudnn.so.9 in `dir`, as loaded in this process; throws when it is not. */
export function fakeCudnnLiveCounts(dir: string): FakeCudnnLiveCounts {
  const counts = readLiveCounts(join(dir, 'libcudnn.so.9'));
  if (counts === null) throw new Error(`${dir}/libcudnn.so.9 is not loaded in this process`);
  return counts as unknown as FakeCudnnLiveCounts;
}

/** Builds a shared library that is not cuDNN, named libcudnn.so.9, and returns its directory. */
export function buildNotCudnn(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-not-cudnn-'));
  const source = join(dir, 'not_cudnn.c');
  writeFileSync(source, 'int not_cudnn(void) { return 1; }\n');
  execFileSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'libcudnn.so.9'), source]);
  return dir;
}
