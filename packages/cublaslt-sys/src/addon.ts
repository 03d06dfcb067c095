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

const ADDON_FILE = 'baracuda_cublaslt.node';

/**
 * Where the prebuilt platform package keeps the addon, or where it would be when it is not
 * installed. Resolved from this file, then from `@baracuda/cublaslt-sys` itself: a bundle that
 * inlines this code (the `baracuda` CLI) runs from another package's folder.
 */
function platformPackageCandidate(here: string, packageName: string): string {
  const fromHere = createRequire(join(here, 'addon.js'));
  const bases = [
    () => fromHere,
    () => createRequire(fromHere.resolve('@baracuda/cublaslt-sys/package.json')),
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

/** @internal Where the addon may be, in lookup order (docs/ARCHITECTURE.md). */
export function addonCandidates(
  packageName: string = nativePackageName(process.platform, process.arch),
): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates: string[] = [];
  // 1. An explicit directory (the bundled CLI on the GPU machine sets it).
  const override = process.env.BARACUDA_ADDON_DIR;
  if (override) candidates.push(join(override, ADDON_FILE));
  // 2. The package's own build output, relative to dist/ (or src/ under vitest): the monorepo,
  //    or a build from source.
  candidates.push(resolve(here, '..', 'build', 'Release', ADDON_FILE));
  // 3. The prebuilt platform package.
  candidates.push(platformPackageCandidate(here, packageName));
  // 4. Beside the running file (a bundle that ships the addons next to it).
  candidates.push(join(here, ADDON_FILE));
  return candidates;
}

let binding: NativeBinding | undefined;

/** @internal Loads `baracuda_cublaslt.node` once; throws `LibraryNotFoundError` listing every candidate. */
export function loadAddon(): NativeBinding {
  if (binding) return binding;
  const require = createRequire(import.meta.url);
  const tried: LibrarySearchAttempt[] = [];
  for (const path of addonCandidates()) {
    if (!existsSync(path)) {
      tried.push({ path, error: 'no such file' });
      continue;
    }
    try {
      binding = require(path) as NativeBinding;
      return binding;
    } catch (error) {
      tried.push({ path, error: error instanceof Error ? error.message : String(error) });
    }
  }
  throw new LibraryNotFoundError(
    'baracuda_cublaslt.node (the @baracuda/cublaslt-sys addon)',
    tried,
    missingAddonSolutions('@baracuda/cublaslt-sys', ADDON_FILE, process.platform, process.arch),
  );
}
