/** autotune-cache.ts for child processes and workers in tests, which cannot load TypeScript. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/** Bundle autotune-cache.ts (with what it imports) into `<dir>/cache.mjs`; returns its path. */
export function bundleAutotuneCache(dir: string): string {
  const outfile = join(dir, 'cache.mjs');
  buildSync({
    entryPoints: [fileURLToPath(new URL('./autotune-cache.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}
