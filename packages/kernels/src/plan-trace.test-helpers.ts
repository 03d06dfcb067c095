/**
 * The characterization matrix of Conv3dPlan: problems x modes x options x (alpha, beta, alignment,
 * workspace) x fake engine scripts x autotune cache states, each run against the fake libcuda and
 * libcudnn with every native call recorded (trace-recorder.test-helpers.ts). The traces are
 * committed under src/__traces__/ (gzipped text); a change in what the plan calls, in what it reports or warns,
 * or in what it leaves alive after dispose fails the test. `BARACUDA_TRACE_UPDATE=1` rewrites
 * them (a deliberate change of behaviour, reviewed in the diff).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ElementKind, type PlanPreference, Workspace } from '@baracuda/types';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AutotuneEntry, autotuneKey, writeAutotuneEntry } from './autotune-cache.js';
import { resolvePlanPreference } from './compat.js';
import { Conv3dDescriptor } from './descriptor.js';
import { smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import type { Conv3dPass, Conv3dPlan, Conv3dPlanOptions } from './plan.js';
import { norm, note, recordDriver, startTrace, stopTrace } from './trace-recorder.test-helpers.js';
import { pointwiseProblem } from './tuning.test-helpers.js';

const PASSES: readonly Conv3dPass[] = ['fw', 'bwData', 'bwFilter'];

/** n=1, `channels` channels in groups of one, 4×5×6, 3×3×3 pad 1: our depthwise kernels' problem. */
function depthwise(layout: 'ncdhw' | 'ndhwc' = 'ncdhw'): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch: 1,
    cIn: 4,
    dIn: 4,
    hIn: 5,
    wIn: 6,
    cOut: 4,
    dFilt: 3,
    hFilt: 3,
    wFilt: 3,
    element: ElementKind.F32,
  })
    .withPadding(1, 1, 1)
    .withGroups(4)
    .withLayout(layout);
}

export const PROBLEMS: Record<string, () => Conv3dDescriptor> = {
  small32: () => smallProblem(ElementKind.F32),
  small16: () => smallProblem(ElementKind.F16), // the f16 NCDHW erratum of cuDNN 9.8–9.14: via NDHWC
  small16n: () => smallProblem(ElementKind.F16).withLayout('ndhwc'),
  point32: () => pointwiseProblem(ElementKind.F32),
  pointBf16n: () => pointwiseProblem(ElementKind.Bf16).withLayout('ndhwc'),
  strided32: () => smallProblem(ElementKind.F32).withStride(2, 1, 1),
  f64n: () => smallProblem(ElementKind.F64).withLayout('ndhwc'),
  dw32: () => depthwise(),
  dw32n: () => depthwise('ndhwc'),
};

/** Fake engine scripts (FAKE_CUDNN_ENGINES, and FAKE_CUDNN_KNOB_INFO where the script has knobs). */
export const ENGINES: Record<string, { engines: string; knobInfo?: string }> = {
  e28: { engines: '28' },
  knobs: { engines: '0:2=1,4=0;0:2=3;28', knobInfo: '0:2=0..5/1,4=0..1/1' },
  ws: { engines: '28@4096;0@1048576' },
  notes: { engines: '28!4;0!0;1' },
  none: { engines: '' },
};

/** What an autotune scenario's cache file holds before select. */
export type CacheState =
  | 'empty'
  | 'hit'
  | 'corrupt'
  | { readonly stale: readonly (readonly [Conv3dPass, AutotuneEntry])[] };

export interface Scenario {
  readonly name: string;
  readonly problem: keyof typeof PROBLEMS;
  readonly engines: keyof typeof ENGINES;
  readonly preference: Partial<PlanPreference>;
  readonly options?: Conv3dPlanOptions;
  readonly cache?: CacheState;
  /** selectSync instead of select. */
  readonly sync?: boolean;
  /** Query workspaces and algorithms before running (else after). */
  readonly queryFirst?: boolean;
  /** The passes run; defaults to all three. */
  readonly runs?: readonly Conv3dPass[];
  /** Run every (alpha, beta, alignment, workspace) variant; else (1, 0) twice and (2, 1). */
  readonly fullRuns?: boolean;
  /** FAKE_CUDA_LAUNCH_MS: our kernels' runs time faster (< 0) or slower. */
  readonly launchMs?: string;
}

function operands(d: Conv3dDescriptor, offset: bigint) {
  const slice = (base: bigint, elements: number) => ({
    devicePtr: base + offset,
    byteLength: d.elementBytes * elements,
  });
  return {
    x: slice(0x100000n, d.xElements),
    w: slice(0x200000n, d.wElements),
    y: slice(0x300000n, d.yElements),
  };
}

function info(plan: Conv3dPlan, pass: Conv3dPass): string {
  const a = plan.algorithm(pass);
  return `${a.path} ${JSON.stringify(a.name)} engine=${a.engineIndex ?? '-'} knobs=${JSON.stringify(a.knobs ?? [])} notes=${a.numericalNotes.join('|')} ws=${a.workspaceBytes} det=${a.deterministic} math=${a.mathPrecision}`;
}

/** Run `f`, noting what it returned or threw. */
function attempt(label: string, f: () => unknown): void {
  try {
    const r = f();
    note(
      `> ${label} = ${r === undefined ? 'ok' : typeof r === 'object' ? JSON.stringify(r) : norm(r)}`,
    );
  } catch (error) {
    const e = error as Error;
    note(`> ${label} threw ${e.constructor?.name}: ${e.message}`);
  }
}

function run(plan: Conv3dPlan, pass: Conv3dPass, d: Conv3dDescriptor, v: RunVariant): void {
  const { x, w, y } = operands(d, v.offset ? BigInt(d.elementBytes) : 0n);
  const common = { alpha: v.alpha, beta: v.beta, workspace: v.workspace };
  attempt(`run ${pass} ${v.label}`, () => {
    if (pass === 'fw') plan.runFw({ x, w, y, ...common });
    else if (pass === 'bwData') plan.runBwData({ w, dy: y, dx: x, ...common });
    else plan.runDw({ x, dy: y, dw: w, ...common });
  });
}

interface RunVariant {
  label: string;
  alpha: number;
  beta: number;
  offset?: boolean;
  workspace?: ReturnType<typeof Workspace.none> | { devicePtr: bigint; byteLength: number };
}
const SHORT_RUNS: RunVariant[] = [
  { label: 'a1 b0', alpha: 1, beta: 0 },
  { label: 'a1 b0 again', alpha: 1, beta: 0 },
  { label: 'a2 b1', alpha: 2, beta: 1 },
];
const FULL_RUNS: RunVariant[] = [
  ...SHORT_RUNS,
  { label: 'a1 b0 misaligned', alpha: 1, beta: 0, offset: true },
  {
    label: 'a1 b0 user ws',
    alpha: 1,
    beta: 0,
    workspace: { devicePtr: 0x400000n, byteLength: 1 << 20 },
  },
  {
    label: 'a1 b0 small ws',
    alpha: 1,
    beta: 0,
    workspace: { devicePtr: 0x400000n, byteLength: 16 },
  },
  { label: 'a1 b0 no ws', alpha: 1, beta: 0, workspace: Workspace.none() },
];

/** The cache file before select: nothing, garbage, or entries keyed as this plan keys them. */
function writeCache(stream: unknown, s: Scenario, d: Conv3dDescriptor, path: string): void {
  const c = s.cache ?? 'empty';
  if (c === 'corrupt') writeFileSync(path, '{"version": 1, "entries": {"oops');
  if (typeof c !== 'object') return;
  const device = (
    stream as { device: { name: string; computeCapability: { major: number; minor: number } } }
  ).device;
  const preference = resolvePlanPreference(s.preference);
  for (const [pass, entry] of c.stale) {
    const key = autotuneKey({
      problem: d.describe(),
      pass,
      scalingKind: d.element === ElementKind.F64 ? 'f64' : 'f32',
      deterministic: preference.deterministic,
      allowTf32: preference.allowTf32,
      deviceName: device.name,
      computeCapability: device.computeCapability,
      cudnnVersion: 91400,
    });
    if (!writeAutotuneEntry(path, key, entry)) throw new Error(`could not write ${path}`);
  }
}

function cacheLines(path: string): string[] {
  if (!existsSync(path)) return ['cache: none'];
  try {
    const file = JSON.parse(readFileSync(path, 'utf8')) as { entries: Record<string, unknown> };
    return Object.entries(file.entries).map(
      ([k, v]) => `cache: ${k.split(' | ').slice(0, 2).join(' ')} -> ${JSON.stringify(v)}`,
    );
  } catch {
    return [`cache: unreadable ${JSON.stringify(readFileSync(path, 'utf8').slice(0, 40))}`];
  }
}

async function select(
  stream: unknown,
  s: Scenario,
  d: Conv3dDescriptor,
  cachePath: string,
): Promise<Conv3dPlan> {
  const { Conv3dPlan } = await import('./plan.js');
  const options: Conv3dPlanOptions = {
    autotuneCachePath: cachePath,
    onProgress: (m) => note(`progress: ${m}`),
    ...s.options,
  };
  const st = stream as Parameters<typeof Conv3dPlan.select>[0];
  return s.sync
    ? Conv3dPlan.selectSync(st, d, s.preference, options)
    : await Conv3dPlan.select(st, d, s.preference, options);
}

/** One scenario's trace: its native calls, its results and warnings, the cache after. */
async function trace(stream: unknown, s: Scenario, cachePath: string): Promise<string[]> {
  const { releaseCudnnHandles } = await import('./cudnn/handle.js');
  const { DepthwiseKernels } = await import('./depthwise.js');
  const { LayoutKernels } = await import('./layout.js');
  const engines = ENGINES[s.engines]!;
  process.env.FAKE_CUDNN_ENGINES = engines.engines;
  if (engines.knobInfo) process.env.FAKE_CUDNN_KNOB_INFO = engines.knobInfo;
  else delete process.env.FAKE_CUDNN_KNOB_INFO;
  if (s.launchMs) process.env.FAKE_CUDA_LAUNCH_MS = s.launchMs;
  else delete process.env.FAKE_CUDA_LAUNCH_MS;
  DepthwiseKernels.resetForTests();
  LayoutKernels.resetForTests();
  const d = PROBLEMS[s.problem]!();
  const lines = startTrace();
  const spy = vi.spyOn(process, 'emitWarning').mockImplementation(((
    message: string,
    options?: { code?: string },
  ) => {
    note(`warning ${options?.code}: ${message}`);
  }) as typeof process.emitWarning);
  try {
    let plan: Conv3dPlan;
    try {
      plan = await select(stream, s, d, cachePath);
    } catch (error) {
      note(`> select threw ${(error as Error).constructor?.name}: ${(error as Error).message}`);
      attempt('releaseCudnnHandles', () => releaseCudnnHandles());
      return [...lines, ...leaks(), ...cacheLines(cachePath)];
    }
    note('> selected');
    const queries = () => {
      attempt('queryFwWorkspaceSize', () => plan.queryFwWorkspaceSize());
      attempt('queryBwDataWorkspaceSize', () => plan.queryBwDataWorkspaceSize());
      attempt('queryBwFilterWorkspaceSize', () => plan.queryBwFilterWorkspaceSize());
      for (const pass of PASSES) attempt(`algorithm ${pass}`, () => info(plan, pass));
    };
    if (s.queryFirst) queries();
    for (const pass of s.runs ?? PASSES) {
      for (const v of s.fullRuns ? FULL_RUNS : SHORT_RUNS) run(plan, pass, d, v);
    }
    if (!s.queryFirst) queries();
    attempt('precisionGuarantee', () => plan.precisionGuarantee());
    attempt('sku', () => plan.sku());
    attempt('dispose', () => plan.dispose());
    attempt('dispose again', () => plan.dispose());
    // The device's cuDNN handle outlives its plans (cudnn/handle.ts): destroy it here so that each
    // scenario starts without one and nothing is left alive.
    attempt('releaseCudnnHandles', () => releaseCudnnHandles());
    return [...lines, ...leaks(), ...cacheLines(cachePath)];
  } finally {
    spy.mockRestore();
    stopTrace();
  }
}

function leaks(): string[] {
  return stopTrace().map((l) => `LEAK ${l}`);
}

const TRACES = join(dirname(fileURLToPath(import.meta.url)), '__traces__');

/**
 * The suite of one trace file: each scenario traced and compared line for line with
 * `src/__traces__/<file>.trace.gz` (rewritten instead with BARACUDA_TRACE_UPDATE=1).
 */
export function traceSuite(file: string, scenarios: readonly Scenario[]): void {
  const fakeCudnn = useFakeCudnn();
  const fakeCuda = useFakeCuda();
  describe.skipIf(fakeCudnn === null || fakeCuda === null)(
    `native call traces: ${file} (fake libcuda and libcudnn; skipped where no C compiler is found)`,
    () => {
      let stream: { dispose(): void } | undefined;
      const actual = new Map<string, string[]>();
      // Gzipped (6.7 MB of text, 0.8 MB so): the device tool carries the tracked files, 64 MiB
      // at most. Read one with `zcat src/__traces__/<file>.trace.gz`.
      const path = join(TRACES, `${file}.trace.gz`);
      const expected = existsSync(path)
        ? parseTraces(gunzipSync(readFileSync(path)).toString('utf8'))
        : new Map();
      const update = process.env.BARACUDA_TRACE_UPDATE === '1';
      beforeAll(async () => {
        const driver = await import('@baracuda/driver');
        recordDriver(driver);
        stream = driver.Stream.create();
      });
      afterAll(() => {
        stream?.dispose();
        delete process.env.FAKE_CUDNN_ENGINES;
        delete process.env.FAKE_CUDNN_KNOB_INFO;
        delete process.env.FAKE_CUDA_LAUNCH_MS;
        if (update) writeFileSync(path, gzipSync(formatTraces(actual), { level: 9 }));
      });
      const names = new Set<string>();
      for (const s of scenarios) {
        if (names.has(s.name)) throw new Error(`two scenarios named ${s.name}`);
        names.add(s.name);
        it(s.name, async () => {
          const dir = mkdtempSync(join(tmpdir(), 'baracuda-trace-'));
          const cachePath = join(dir, 'autotune.json');
          const d = PROBLEMS[s.problem]!();
          let lines: string[];
          if (s.cache === 'hit') {
            // The first select tunes and writes the cache; the traced one reads it.
            await trace(stream, { ...s, cache: 'empty' }, cachePath);
            lines = await trace(stream, s, cachePath);
          } else {
            writeCache(stream, s, d, cachePath);
            lines = await trace(stream, s, cachePath);
          }
          lines = compact(lines);
          actual.set(s.name, lines);
          expect(lines.filter((l) => l.startsWith('LEAK '))).toEqual([]);
          if (!update) {
            const want = expected.get(s.name);
            expect(want, `no recorded trace for ${s.name} in ${path}`).toBeDefined();
            expect(firstDifference(want!, lines)).toBe('');
          }
        });
      }
    },
  );
}

function firstDifference(want: readonly string[], got: readonly string[]): string {
  const n = Math.max(want.length, got.length);
  for (let i = 0; i < n; i++) {
    if (want[i] !== got[i]) {
      return `line ${i + 1}:\n  recorded: ${want[i] ?? '<end>'}\n  now:      ${got[i] ?? '<end>'}\n  before:   ${got.slice(Math.max(0, i - 3), i).join('\n            ')}`;
    }
  }
  return '';
}

/**
 * Lossless compaction: a block of 1 to 8 lines repeated three or more times, alike but for its
 * names (`#n` objects, `@n` pointers), becomes one line: `×<count> {<lines with # and @>} <names>`,
 * each name's sequence over the repeats written `first+step` where it is a progression.
 */
export function compact(lines: readonly string[]): string[] {
  const NAME = /[#@]\d+/g;
  const templates = lines.map((l) => l.replace(NAME, (m) => m[0]!));
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    let best = { period: 1, count: 1 };
    for (let period = 1; period <= 8 && i + period <= lines.length; period++) {
      let count = 1;
      while (
        i + (count + 1) * period <= lines.length &&
        templates.slice(i + count * period, i + (count + 1) * period).join('\n') ===
          templates.slice(i, i + period).join('\n')
      ) {
        count++;
      }
      if (count >= 3 && count * period > best.count * best.period) best = { period, count };
    }
    const { period, count } = best;
    const block = templates.slice(i, i + period);
    if (count < 3 || !block.some((t) => /[#@]/.test(t))) {
      out.push(lines[i]!);
      i++;
      continue;
    }
    const names = (k: number) =>
      lines
        .slice(i + k * period, i + (k + 1) * period)
        .flatMap((l) => l.match(NAME) ?? [])
        .map((m) => [m[0]!, Number(m.slice(1))] as const);
    const rows = Array.from({ length: count }, (_, k) => names(k));
    const columns = rows[0]!.map((_, c) => {
      const values = rows.map((r) => r[c]![1]);
      const step = values[1]! - values[0]!;
      const progression = values.every((v, k) => v === values[0]! + k * step);
      return `${rows[0]![c]![0]}${progression ? `${values[0]}+${step}` : values.join(',')}`;
    });
    out.push(`×${count} {${block.join(' ; ')}} ${columns.join(' ')}`);
    i += count * period;
  }
  return out;
}

function formatTraces(traces: Map<string, string[]>): string {
  return [...traces.entries()].map(([name, lines]) => `## ${name}\n${lines.join('\n')}\n`).join('');
}

function parseTraces(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) {
      current = [];
      out.set(line.slice(3), current);
    } else if (current !== undefined && line !== '') current.push(line);
  }
  return out;
}
