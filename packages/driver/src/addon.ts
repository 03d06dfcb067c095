/**
 * Finds and loads `baracuda_driver.node`. Loading the addon never opens
 * libcuda; that happens on the first call that needs the driver.
 * @internal
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LibraryNotFoundError, type LibrarySearchAttempt } from '@baracuda/types';
import type { NativeBinding } from './native.js';

/** @internal */
export const ADDON_FILE = 'baracuda_driver.node';

/** Where the addon may be, in order (docs/ARCHITECTURE.md). @internal */
export function addonCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates: string[] = [];
  // 1. An explicit directory, e.g. the bundled CLI on the GPU machine.
  if (env.BARACUDA_ADDON_DIR) candidates.push(join(env.BARACUDA_ADDON_DIR, ADDON_FILE));
  // 2. The package's own build output (from dist/ or src/).
  candidates.push(resolve(here, '..', 'build', 'Release', ADDON_FILE));
  // 3. Beside the running file (a bundle with the addons next to it).
  candidates.push(join(here, ADDON_FILE));
  return candidates;
}

/** Loads the first candidate that works; throws LibraryNotFoundError listing every attempt. @internal */
export function loadAddonFrom(candidates: readonly string[]): NativeBinding {
  const require = createRequire(import.meta.url);
  const searched: LibrarySearchAttempt[] = [];
  const failures: unknown[] = [];
  for (const path of candidates) {
    if (!existsSync(path)) {
      searched.push({ path, error: 'no such file' });
      continue;
    }
    try {
      return require(path) as NativeBinding;
    } catch (error) {
      failures.push(error);
      searched.push({ path, error: error instanceof Error ? error.message : String(error) });
    }
  }
  throw new LibraryNotFoundError(
    `${ADDON_FILE} (the @baracuda/driver native addon)`,
    searched,
    [
      'Build it: `pnpm --filter @baracuda/driver build` (needs cmake and a C++17 compiler, no CUDA)',
      'Or set BARACUDA_ADDON_DIR to the directory that holds baracuda_driver.node',
    ],
    failures.length > 0
      ? { cause: new AggregateError(failures, 'addon load failures') }
      : undefined,
  );
}

let cached: NativeBinding | undefined;

/** The addon, loaded once. Throws LibraryNotFoundError when it cannot be found. @internal */
export function loadAddon(): NativeBinding {
  cached ??= loadAddonFrom(addonCandidates());
  return cached;
}
