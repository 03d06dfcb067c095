/**
 * Vitest setup file: every test file gets an autotune cache file of its own, in a fresh temp
 * folder, so that no test reads or writes the user's ~/.cache/baracuda (the default mode
 * quick-tunes and persists its choice) and no test file sees another's choices. Tests that pass
 * `autotuneCachePath` or an `env` object of their own are unaffected.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

process.env.BARACUDA_AUTOTUNE_CACHE = join(
  mkdtempSync(join(tmpdir(), 'baracuda-test-cache-')),
  'conv3d-autotune.json',
);
