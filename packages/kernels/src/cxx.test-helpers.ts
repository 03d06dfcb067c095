/** The host C++ compiler the kernel-source tests build their harnesses with, and its one build. */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';

/** $CXX (else `c++`) where it runs, or null where there is none (then the tests skip). */
export function hostCompiler(): string | null {
  const cxx = process.env.CXX ?? 'c++';
  try {
    execFileSync(cxx, ['--version'], { stdio: 'pipe' });
    return cxx;
  } catch {
    return null;
  }
}

/**
 * `file` (C++17, -O1, CUDA's unroll pragmas ignored) built into `harness` beside it, with `flags`
 * before the file; returns the executable's path. A compile error throws.
 */
export function buildHostHarness(cxx: string, file: string, flags: readonly string[] = []): string {
  const exe = join(dirname(file), 'harness');
  execFileSync(cxx, ['-std=c++17', '-O1', '-Wno-unknown-pragmas', ...flags, '-o', exe, file], {
    stdio: 'pipe',
  });
  return exe;
}
