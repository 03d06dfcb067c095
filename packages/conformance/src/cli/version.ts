/** The CLI's version: the @baracuda/conformance package's. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Inlined by tsup into dist/cli.cjs (tsup.config.ts `define`); absent under vitest. */
declare const __BARACUDA_VERSION__: string | undefined;

/** The version string, e.g. "0.1.0". */
export function cliVersion(): string {
  if (typeof __BARACUDA_VERSION__ === 'string') return __BARACUDA_VERSION__;
  // Unbundled (tests, dist/index.js): the nearest package.json above this file.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file))
      return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return 'unknown';
}
