/**
 * Finds and loads `baracuda_driver.node`. Loading the addon never opens
 * libcuda; that happens on the first call that needs the driver.
 * @internal
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  LibraryNotFoundError,
  type LibrarySearchAttempt,
  missingAddonSolutions,
  nativePackageName,
} from '@baracuda/types';
import type { NativeBinding } from './native.js';

/** @internal */
export const ADDON_FILE = 'baracuda_driver.node';

/**
 * Where the prebuilt platform package keeps the addon, or where it would be when it is not
 * installed. Resolved from this file, then from `@baracuda/driver` itself: a bundle that inlines
 * this code (the `baracuda` CLI) runs from another package's folder.
 */
function platformPackageCandidate(here: string, packageName: string): string {
  const fromHere = createRequire(join(here, 'addon.js'));
  const bases = [
    () => fromHere,
    () => createRequire(fromHere.resolve('@baracuda/driver/package.json')),
  ];
  for (const base of bases) {
    try {
      return join(dirname(base().resolve(`${packageName}/package.json`)), ADDON_FILE);
    } catch {
      // Not reachable from this base; try the next.
    }
  }
  return join(packageName, `${ADDON_FILE} (package not installed)`);
}

/** Where the addon may be, in order (docs/ARCHITECTURE.md). @internal */
export function addonCandidates(
  env: NodeJS.ProcessEnv = process.env,
  packageName: string = nativePackageName(process.platform, process.arch),
): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates: string[] = [];
  // 1. An explicit directory, e.g. the bundled CLI on the GPU machine.
  if (env.BARACUDA_ADDON_DIR) candidates.push(join(env.BARACUDA_ADDON_DIR, ADDON_FILE));
  // 2. The package's own build output (from dist/ or src/): the monorepo, or a build from source.
  candidates.push(resolve(here, '..', 'build', 'Release', ADDON_FILE));
  // 3. The prebuilt platform package.
  candidates.push(platformPackageCandidate(here, packageName));
  // 4. Beside the running file (a bundle with the addons next to it).
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
    missingAddonSolutions('@baracuda/driver', ADDON_FILE, process.platform, process.arch),
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
