/**
 * select's autotune waits for the cache's lock without blocking the event loop: the lock is held
 * (as another writer would) and released by a timer armed at each progress line, so it fires only
 * once tuning has gone quiet, while select waits for the lock; a blocking wait would never let it
 * fire, and the entry would not be written. The fake libcuda and libcudnn (one scripted engine)
 * stand in for the GPU.
 */
import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { fakeTuning } from './tuning.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'autotune and the cache lock (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const { tune, newCache, cacheEntries } = fakeTuning('baracuda-cache-lock');

    it('select awaits a held lock, then writes its entry', async () => {
      const path = newCache();
      const lock = `${path}.lock`;
      writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'other' }));
      let release: ReturnType<typeof setTimeout> | undefined;
      let released = false;
      const d = smallProblem(ElementKind.F32);
      const { plan } = await tune(d, path, ['fw'], {
        layoutDetour: 'never',
        onProgress: () => {
          // (On a loaded machine a gap in tuning may release it early: the test then shows less,
          // but still passes.)
          if (released) return;
          clearTimeout(release);
          release = setTimeout(() => {
            released = true;
            unlinkSync(lock);
          }, 100);
        },
      });
      expect(released).toBe(true);
      expect(cacheEntries(path)).toEqual([
        [`${d.describe()} pass=fw`, expect.objectContaining({ engineIndex: 28 })],
      ]);
      expect(existsSync(lock)).toBe(false);
      plan.dispose();
    });
  },
);
