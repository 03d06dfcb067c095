/** The host C++ compiler the kernel-source tests build their harnesses with. */
import { execFileSync } from 'node:child_process';

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
