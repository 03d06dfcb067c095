/**
 * @internal Test helpers: compiles native/testing/fake_cudnn.c into a throwaway libcudnn.so.9,
 * so CI (which has no cuDNN) can exercise loading and marshalling through real C calls.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the fake cuDNN and returns the directory holding its libcudnn.so.9. */
export function buildFakeCudnn(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-fake-cudnn-'));
  const source = join(packageRoot, 'native', 'testing', 'fake_cudnn.c');
  execFileSync('cc', ['-shared', '-fPIC', '-O1', '-o', join(dir, 'libcudnn.so.9'), source]);
  return dir;
}

/** Builds a shared library that is not cuDNN, named libcudnn.so.9, and returns its directory. */
export function buildNotCudnn(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-not-cudnn-'));
  const source = join(dir, 'not_cudnn.c');
  writeFileSync(source, 'int not_cudnn(void) { return 1; }\n');
  execFileSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'libcudnn.so.9'), source]);
  return dir;
}
