/**
 * Autotune end to end without a GPU: the fake libcuda of @baracuda/driver (its events report
 * every run as 0 ms, so all candidates tie) under the fake libcudnn.so.9 of @baracuda/cudnn-sys,
 * whose scripted engine list (FAKE_CUDNN_ENGINES) and knob ranges (FAKE_CUDNN_KNOB_INFO) give the
 * knob search something to build. This proves the plumbing of the search (reading an engine's
 * knob ranges, building configs by engine index and knob choices, timing them, caching the
 * winner, rebuilding it on a cache hit), not its timing, which only a GPU can show.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { MAX_ROTATION_SETS } from './policy.js';
import type { StreamLike } from './sys.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();
// Two configs of engine 0 (TILE_SIZE and EDGE knobs), then a knob-less engine 28.
process.env.FAKE_CUDNN_ENGINES = '0:2=1,4=0;0:2=3;28';
// Engine 0's ranges: TILE_SIZE 0..5, EDGE 0..1. Engine 28 reports none.
process.env.FAKE_CUDNN_KNOB_INFO = '0:2=0..5/1,4=0..1/1';

/** A new autotune cache file's path. */
const newCache = () => join(mkdtempSync(join(tmpdir(), 'baracuda-search-')), 'autotune.json');

/**
 * Select an autotuned plan of the small f32 problem's forward pass on `stream`, with the cache at
 * `cachePath`; the plan and its progress lines (without the problem's name).
 */
async function tune(stream: StreamLike, cachePath: string, deterministic = false) {
  const { Conv3dPlan } = await import('./plan.js');
  const lines: string[] = [];
  const plan = await Conv3dPlan.select(
    stream,
    smallProblem(ElementKind.F32),
    { algorithm: 'autotune', deterministic },
    {
      passes: ['fw'],
      autotuneCachePath: cachePath,
      // The knob search alone (layout-detour.test.ts times the layout detour).
      layoutDetour: 'never',
      onProgress: (m) => lines.push(m.replace(/^conv3d .* fw: /, '')),
    },
  );
  return { plan, lines };
}

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'autotune knob search (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    it('builds the configs one knob away from the two fastest, times them and caches the winner', async () => {
      const { Stream } = await import('@baracuda/driver');
      const stream = Stream.create();
      const cachePath = newCache();
      const { plan, lines } = await tune(stream, cachePath);
      // The three scripted configs are candidates; all tie at 0 ms, so the first two are the bases.
      expect(lines.filter((l) => l.startsWith('candidate '))).toHaveLength(3);
      // Around engine 0 (TILE_SIZE=1 EDGE=0): TILE_SIZE 0, 2, 3, 4, 5 (3 with EDGE=0 is not the
      // second base, which has no EDGE) and EDGE=1. Around engine 0 (TILE_SIZE=3): TILE_SIZE 0..5
      // but 3, without EDGE, and EDGE=1 (EDGE=0 was built already).
      const searched = lines
        .filter((l) => l.startsWith('searched '))
        .map((l) => l.replace(/^searched \d+\/\d+ /, '').replace(/ [\d.]+ ms$/, ''));
      expect(searched).toEqual([
        'engine 0 (TILE_SIZE=0 EDGE=0)',
        'engine 0 (TILE_SIZE=2 EDGE=0)',
        'engine 0 (TILE_SIZE=3 EDGE=0)',
        'engine 0 (TILE_SIZE=4 EDGE=0)',
        'engine 0 (TILE_SIZE=5 EDGE=0)',
        'engine 0 (TILE_SIZE=1 EDGE=1)',
        'engine 0 (TILE_SIZE=0)',
        'engine 0 (TILE_SIZE=1)',
        'engine 0 (TILE_SIZE=2)',
        'engine 0 (TILE_SIZE=4)',
        'engine 0 (TILE_SIZE=5)',
        'engine 0 (TILE_SIZE=3 EDGE=1)',
      ]);
      expect(lines).toContain('knob search: 12 more configs of engine 0');
      // Ties keep the leader, the heuristics' first config.
      expect(plan.algorithm('fw').name).toBe('engine 0 (TILE_SIZE=1 EDGE=0)');
      const cache = JSON.parse(readFileSync(cachePath, 'utf8'));
      expect(Object.values(cache.entries)).toEqual([
        expect.objectContaining({
          engineIndex: 0,
          knobs: [
            [2, 1],
            [4, 0],
          ],
        }),
      ]);
      plan.dispose();
      // A second plan takes the cached choice: built directly, nothing timed.
      const again = await tune(stream, cachePath);
      expect(again.plan.algorithm('fw').name).toBe('engine 0 (TILE_SIZE=1 EDGE=0)');
      expect(again.lines).toEqual([]);
      again.plan.dispose();
      stream.dispose();
    });

    it('times every run on the next operand set, rotating past L2', async () => {
      const { Stream } = await import('@baracuda/driver');
      const dir = mkdtempSync(join(tmpdir(), 'baracuda-execute-log-'));
      const log = join(dir, 'execute.log');
      const events = join(dir, 'events.log');
      process.env.FAKE_CUDNN_EXECUTE_LOG = log;
      process.env.FAKE_CUDA_EVENT_LOG = events;
      const stream = Stream.create();
      try {
        const { plan, lines } = await tune(stream, newCache());
        plan.dispose();
        // The small problem's x, w and y take 1,616 bytes: the most sets there may be.
        expect(lines).toContain(
          `timing on ${MAX_ROTATION_SETS} operand sets of 0.0 MiB, rotated run by run past L2`,
        );
        expect(existsSync(log)).toBe(true);
        const runs = readFileSync(log, 'utf8').trim().split('\n');
        const operands = runs.map((line) => line.split(' ').slice(0, 3).join(' '));
        expect(new Set(operands).size).toBe(MAX_ROTATION_SETS);
        // Each x, w and y belongs to one set, and no run takes the set of the run before it.
        for (const k of [0, 1, 2]) {
          expect(new Set(runs.map((line) => line.split(' ')[k])).size).toBe(MAX_ROTATION_SETS);
        }
        for (let i = 1; i < operands.length; i++) expect(operands[i]).not.toBe(operands[i - 1]);
        // A candidate's variant pack for a set is made once, however often the candidate is timed.
        const packs = new Map<string, Set<string>>();
        for (const line of runs) {
          const [x, , , plan, pack] = line.split(' ');
          const key = `${plan} ${x}`;
          packs.set(key, (packs.get(key) ?? new Set()).add(pack!));
        }
        expect([...packs.values()].filter((ids) => ids.size > 1)).toEqual([]);
        expect(runs.length).toBeGreaterThan(packs.size);
        // The timing events are made as the bench's and torch.cuda.Event's are, without
        // CU_EVENT_BLOCKING_SYNC (flags 0); the one waited on blocks and does not time (1 | 2).
        const flags = readFileSync(events, 'utf8').trim().split('\n');
        expect(flags.filter((f) => f === '0')).toHaveLength(60);
        expect(flags.filter((f) => f !== '0')).toEqual(['3']);
      } finally {
        delete process.env.FAKE_CUDNN_EXECUTE_LOG;
        delete process.env.FAKE_CUDA_EVENT_LOG;
        stream.dispose();
      }
    });

    it('leaves split-K knobs alone when determinism is asked for', async () => {
      const { Stream } = await import('@baracuda/driver');
      const saved = process.env.FAKE_CUDNN_KNOB_INFO;
      process.env.FAKE_CUDNN_KNOB_INFO = '0:0=1..3/1,2=0..5/1,4=0..1/1'; // SPLIT_K 1..3 as well
      const stream = Stream.create();
      try {
        const searches = async (deterministic: boolean) => {
          const { plan, lines } = await tune(stream, newCache(), deterministic);
          plan.dispose();
          return lines.filter((l) => l.startsWith('knob search:') || l.includes('SPLIT_K'));
        };
        // Each base gets SPLIT_K 1, 2 and 3 besides the 12 configs of the first test.
        const free = await searches(false);
        expect(free[0]).toBe('knob search: 18 more configs of engine 0');
        expect(free.filter((l) => l.startsWith('searched '))).toHaveLength(6);
        expect(await searches(true)).toEqual(['knob search: 12 more configs of engine 0']);
      } finally {
        stream.dispose();
        process.env.FAKE_CUDNN_KNOB_INFO = saved;
      }
    });
  },
);
