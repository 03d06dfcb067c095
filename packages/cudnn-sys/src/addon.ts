import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LibraryNotFoundError, type LibrarySearchAttempt } from '@baracuda/types';
import type { NativeBinding } from './native.js';

const ADDON_FILE = 'baracuda_cudnn.node';

/** @internal Where the addon may be, in lookup order (docs/ARCHITECTURE.md). */
export function addonCandidates(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates: string[] = [];
  // 1. An explicit directory (the bundled CLI on the GPU machine sets it).
  const override = process.env.BARACUDA_ADDON_DIR;
  if (override) candidates.push(join(override, ADDON_FILE));
  // 2. The package's own build output, relative to dist/ (or src/ under vitest).
  candidates.push(resolve(here, '..', 'build', 'Release', ADDON_FILE));
  // 3. Beside the running file (a bundle that ships the addons next to it).
  candidates.push(join(here, ADDON_FILE));
  return candidates;
}

let binding: NativeBinding | undefined;

/** @internal Loads `baracuda_cudnn.node` once; throws `LibraryNotFoundError` listing every candidate. */
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
  throw new LibraryNotFoundError('baracuda_cudnn.node (the @baracuda/cudnn-sys addon)', tried, [
    'Build it: pnpm --filter @baracuda/cudnn-sys build',
    'Or set BARACUDA_ADDON_DIR to the directory holding baracuda_cudnn.node',
  ]);
}
