import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_SUITE } from '../suite/index.js';
import { runCosts, runPage, runShards } from './commands.js';
import { matchTorch, summarize } from './compare.js';
import { PEAKS } from './fixtures.test-helpers.js';
import { readReport } from './merge.js';
import { CHECKS_MARKER, peerCell, readmeLine, renderPage, splitPage } from './page.js';
import type { BenchReport, BenchRowResult, ModeResult, TorchRowResult } from './types.js';

const PASSES = ['fw', 'bwData', 'bwFilter', 'bwStep'] as const;

function mode(name: ModeResult['mode'], roundsMs: number[], selectMs: number): ModeResult {
  return { mode: name, status: 'ok', medianMs: roundsMs[1]!, reps: 90, roundsMs, selectMs };
}

/** A merged report of two groups, every pass, both columns. */
function merged(): BenchReport {
  const rows: BenchRowResult[] = [];
  const torch: Record<'default' | 'tuned', TorchRowResult[]> = { default: [], tuned: [] };
  for (const [c, dtype, layout] of [
    ['videomae-patch', 'f16', 'ndhwc'],
    ['pointwise', 'f32', 'ncdhw'],
  ] as const) {
    for (const pass of PASSES) {
      const id = `${c}|${dtype}|${layout}|${pass}`;
      rows.push({
        id,
        case: c,
        dtype,
        layout,
        pass,
        macs: 1,
        bytes: 1,
        sets: 1,
        bestMs: 0.91,
        floorMs: 0.3,
        modes: [
          mode('heuristic', [0.9, 0.91, 0.92], 40),
          mode('autotune', [1.2, 1.21, 1.22], 142_400),
        ],
      });
      const first = pass === 'bwStep' ? {} : { firstCallMs: 300 };
      torch.default.push({ id, status: 'ok', medianMs: 1, roundsMs: [1, 1, 1], ...first });
      torch.tuned.push({ id, status: 'ok', medianMs: 1, roundsMs: [1, 1.001, 0.999], ...first });
    }
  }
  const matched = matchTorch(rows, torch);
  return {
    label: 'suite',
    startedAt: '2026-12-01T21:00:00.000Z',
    device: 'NVIDIA H200 (sm_90, 132 SMs)',
    ours: { cudnn: { version: '9.14.0', path: '/lib/libcudnn.so.9' } },
    torch: {
      default: {
        torchVersion: '2.11.0+cu130',
        cudaVersion: '13.0',
        cudnn: { version: '9.19.0', path: null },
        cudnnLibraries: [],
        cudnnEnabled: true,
        device: 'NVIDIA H200',
      },
    },
    provenance: {
      commit: 'abcdef1234567890abcdef1234567890abcdef12',
      date: '2026-12-01T21:00:00.000Z',
      gpu: 'NVIDIA H200 (sm_90, 132 SMs)',
      driver: '580.159.04',
      cudnnOurs: '9.14.0',
      cudnnTorch: '9.19.0',
    },
    autotuneCache: { state: 'cold', path: '/out/autotune-cache.json', entriesAtStart: 0 },
    suiteGroups: ['videomae-patch:f16:ndhwc', 'pointwise:f32:ncdhw', 'i3d-stem:f32:ncdhw'],
    settings: {
      reps: 30,
      warmup: 5,
      dtypes: ['f16', 'f32'],
      layouts: ['ncdhw', 'ndhwc'],
      passes: [...PASSES],
      modes: ['heuristic', 'autotune'],
      f64MaxMacs: 4e9,
      pinnedBudgetMs: 1500,
      rotateBelowBytes: 1,
      outputs: 'shared',
      rounds: 3,
    },
    peaks: PEAKS,
    overhead: [
      {
        id: 'tiny',
        side: 'ours:heuristic',
        dtype: 'f32',
        layout: 'ncdhw',
        pass: 'fw',
        usPerCall: 8.1,
      },
      {
        id: 'tiny',
        side: 'torch:default',
        dtype: 'f32',
        layout: 'ncdhw',
        pass: 'fw',
        usPerCall: 19.6,
      },
      {
        id: 'tiny',
        side: 'torch:tuned',
        dtype: 'f32',
        layout: 'ncdhw',
        pass: 'fw',
        usPerCall: 20.2,
      },
    ],
    rows: matched,
    summary: summarize(matched),
    notes: [],
  };
}

describe('renderPage', () => {
  it('without a run says so plainly and keeps the frame the next run fills', () => {
    const page = renderPage({ commit: '8654548' });
    expect(page).toContain(
      '**No full run on this commit yet** (8654548); the last figures were merged across commits and re-runs, see [the history](../../docs/history/RESULTS-2026.md).',
    );
    for (const heading of [
      '## Verdicts and geometric means (ours / PyTorch; below 1 is faster)',
      '## Every row: ours / PyTorch and verdict, per pass',
      '## Goals of issue 24, judged from this run',
      "## Furthest from the floor (each case's highest × floor, top 8)",
      '## Time to a plan, per group (s)',
      '## Host overhead, µs per call (tiny problem, 1,000 calls without a sync, median of 5)',
      '## Reproduce',
    ])
      expect(page).toContain(heading);
    expect(page).toContain('| (no run yet) |');
    expect(page.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('renders one run: provenance, verdicts, every row, time to a plan, host overhead', () => {
    const page = renderPage({ report: merged(), rawPath: 'results/suite/bench-suite.json' });
    expect(page).toContain(
      '- **commit** `abcdef1234567890abcdef1234567890abcdef12`, started 2026-12-01T21:00:00.000Z',
    );
    expect(page).toContain('- **GPU** NVIDIA H200 (sm_90, 132 SMs), driver 580.159.04');
    expect(page).toContain(
      "- **cuDNN** ours 9.14.0, PyTorch's 9.19.0; torch 2.11.0+cu130 (CUDA 13.0)",
    );
    expect(page).toContain('- **autotune cache** cold (every autotune select tuned)');
    expect(page).toContain('- **coverage** 2 groups, 8 rows; NOT measured: i3d-stem:f32:ncdhw');
    // Heuristic 0.91 vs 1.00 with a 2.2% spread: wins; autotune 1.21 vs 1.00: losses.
    expect(page).toContain(
      '| PyTorch default (`cudnn.benchmark = False`) vs our heuristic (default) mode | 0.910× (8) | 0.910× (8) | 8 | 0 | 0 |',
    );
    expect(page).toContain(
      '| PyTorch tuned (`benchmark = True`, `benchmark_limit = 0`) vs our autotune | 1.210× (8) | 1.210× (8) | 0 | 8 | 0 |',
    );
    expect(page).toContain('| bwStep | 0.910× (2) | 1.210× (2) |');
    expect(page).toContain(
      // × floor: ours 0.91 / 0.3 ms, PyTorch 1 / 0.3 ms; bwStep against twice the floor.
      '| videomae-patch f16 ndhwc | 1.000 | 0.910 W | 1.210 L | 3.0/3.3 | 0.910 W | 1.210 L | 3.0/3.3 | 0.910 W | 1.210 L | 3.0/3.3 | 0.910 W | 1.210 L | 1.5/1.7 |',
    );
    expect(page).toMatch(
      /Losses against PyTorch tuned \(8, worst first\): videomae-patch f16 ndhwc fw 1\.210×/,
    );
    // select: 40 ms and 142.4 s; PyTorch: three first calls of 300 ms.
    expect(page).toContain('| videomae-patch f16 ndhwc | 0.04 | 142.4 | 0.90 | 0.90 |');
    expect(page).toContain('| **all groups** | 0.08 | 284.8 | 1.8 | 1.8 |');
    expect(page).toContain('| f32 ncdhw | fw | 8.1 | 19.6 | 20.2 |');
    expect(page).toContain(
      'Raw: [`results/suite/bench-suite.json`](results/suite/bench-suite.json).',
    );
    expect(page.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('stays within 250 lines for the whole shared suite (64 groups, 16 overhead rows)', () => {
    const base = merged();
    const rows = Array.from({ length: 64 }, (_, g) =>
      base.rows
        .slice(0, 4)
        .map((r) => ({ ...r, case: `case${g}`, id: r.id.replace('videomae-patch', `case${g}`) })),
    ).flat();
    const overhead = ['f32 ncdhw', 'f32 ndhwc', 'f16 ncdhw', 'f16 ndhwc'].flatMap((p) =>
      PASSES.map((pass) => ({
        ...base.overhead[0]!,
        dtype: p.split(' ')[0] as 'f32',
        layout: p.split(' ')[1] as 'ncdhw',
        pass,
      })),
    );
    const page = renderPage({ report: { ...base, rows, overhead, summary: summarize(rows) } });
    expect(page.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('marks each cell with its verdict', () => {
    expect(peerCell(undefined)).toBe('—');
    const p = merged().rows[0]!.peers!;
    expect(peerCell(p.default)).toBe('0.910 W');
    expect(peerCell({ ...p.default!, verdict: 'parity' })).toBe('0.910 =');
  });

  it('gives the README its line with commit and date', () => {
    expect(readmeLine(merged())).toBe(
      '0.910× PyTorch default over 8 rows (8 wins, 0 losses, 0 parity); 1.210× PyTorch tuned over 8 rows (0 wins, 8 losses, 0 parity) — commit abcdef123456, 2026-12-01, [RESULTS.md](packages/conformance/RESULTS.md)',
    );
  });
});

function io(cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    value: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), cwd },
    out,
    err,
  };
}

describe('bench page, costs and shards commands', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-page-'));
  writeFileSync(path.join(dir, 'merged.json'), JSON.stringify(merged()));

  it('bench page writes the page from the JSON, linking the JSON relative to the page', () => {
    const t = io(dir);
    expect(runPage(['merged.json', '--out', 'pkg/RESULTS.md'], t.value)).toBe(0);
    const page = readFileSync(path.join(dir, 'pkg', 'RESULTS.md'), 'utf8');
    expect(page).toContain('Raw: [`../merged.json`](../merged.json).');
    expect(t.err.join('')).toMatch(/^README line: 0\.910× PyTorch default/);
    const pending = io(dir);
    expect(runPage(['--pending', '--commit', '8654548'], pending.value)).toBe(0);
    expect(pending.out.join('')).toContain('**No full run on this commit yet** (8654548)');
  });

  it('bench page judges the goals by the geometry of the suite it is given, the shared one by default', () => {
    const patchRow = (out: string[]) =>
      out
        .join('')
        .split('\n')
        .find((l) => l.startsWith('| Patch embedding as a GEMM |'));
    const shared = io(dir);
    expect(runPage(['merged.json'], shared.value)).toBe(0);
    // The shared suite's videomae-patch is kernel = stride, no padding: its two rows count.
    expect(patchRow(shared.out)).toContain('| **not met** | 0 of 2 |');
    const padded = {
      cases: [
        {
          name: 'videomae-patch',
          n: 1,
          c_in: 3,
          c_out: 8,
          in: [4, 32, 32],
          k: [2, 16, 16],
          pad: [0, 1, 1],
          stride: [2, 16, 16],
          dil: [1, 1, 1],
        },
      ],
    };
    writeFileSync(path.join(dir, 'padded-suite.json'), JSON.stringify(padded));
    const other = io(dir);
    expect(runPage(['merged.json', '--suite', 'padded-suite.json'], other.value)).toBe(0);
    expect(patchRow(other.out)).toContain('| not measured | — |');
  });

  it('bench page --out keeps the hand-written checks below the marker and rewrites the rest', () => {
    const file = path.join(dir, 'kept', 'RESULTS.md');
    mkdirSync(path.dirname(file), { recursive: true });
    const checks = `${CHECKS_MARKER}\n\n## Leak check\n- run 56: +20.4 MiB\n`;
    writeFileSync(file, `# stale page\n\n${checks}`);
    expect(runPage(['merged.json', '--out', 'kept/RESULTS.md'], io(dir).value)).toBe(0);
    const written = splitPage(readFileSync(file, 'utf8'));
    expect(written.checks).toBe(checks);
    expect(written.generated).not.toContain('stale page');
    expect(written.generated).toContain('Raw: [`../merged.json`](../merged.json).');
  });

  it('bench page refuses one shard and a missing file', () => {
    const shard = { ...merged(), shard: { index: 1, count: 3, groups: [] } };
    writeFileSync(path.join(dir, 'shard.json'), JSON.stringify(shard));
    const t = io(dir);
    expect(runPage(['shard.json'], t.value)).toBe(2);
    expect(t.err.join('')).toContain(
      'bench page: Expected a merged report of every shard (bench merge) for shard.json but received "shard 1 of 3" of type string',
    );
    const none = io(dir);
    expect(runPage([], none.value)).toBe(2);
    expect(none.err.join('')).toContain(
      'Expected one merged bench JSON report for files but received 0 of type number',
    );
  });

  it('bench costs writes the cost table module from reports', () => {
    const t = io(dir);
    expect(runCosts(['merged.json', '--out', 'costs.ts'], t.value)).toBe(0);
    const text = readFileSync(path.join(dir, 'costs.ts'), 'utf8');
    expect(text).toContain('export const GROUP_COSTS');
    expect(text).toContain(
      '"videomae-patch:f16:ndhwc": {"autotuneS":142.4,"heuristicSelectS":0.04,"torchSearchS":0.9,"torchFirstS":0.9,',
    );
    expect(runCosts([], io(dir).value)).toBe(2);
  });

  it('bench shards lists each shard with its estimate', () => {
    const t = io(dir);
    expect(runShards(['3', '--cases', 'pointwise', '--vs-torch', '--rounds', '3'], t.value)).toBe(
      0,
    );
    const lines = t.out.join('').trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^shard 1\/3: \d+ s, \d+ groups: pointwise:/);
    expect(lines[3]).toMatch(/^total: \d+ s over 7 groups$/);
    const bad = io(dir);
    expect(runShards(['0'], bad.value)).toBe(2);
    expect(bad.err.join('')).toContain(
      `Expected a shard count from 1 to 64 or 'auto' for <M> but received "0" of type string`,
    );
  });

  it('bench shards says whether each shard fits a budget, and auto finds the fewest that do', () => {
    const fitting = io(dir);
    const args = ['--cases', 'pointwise', '--vs-torch', '--time-budget-s', '450'];
    expect(runShards(['2', ...args], fitting.value)).toBe(0);
    expect(fitting.out.join('')).toMatch(/^shard 1\/2: \d+ s \(× 1\.3 = \d+ s: fits 450 s\), /);
    const tight = io(dir);
    expect(runShards(['1', '--vs-torch', '--time-budget-s', '450'], tight.value)).toBe(0);
    expect(tight.out.join('')).toMatch(/^shard 1\/1: \d+ s \(× 1\.3 = \d+ s: does NOT fit 450 s\)/);
    const auto = io(dir);
    expect(runShards(['auto', '--vs-torch', '--time-budget-s', '450'], auto.value)).toBe(0);
    expect(auto.out.join('')).toMatch(/^shard 1\/2: /);
    const noBudget = io(dir);
    expect(runShards(['auto', '--vs-torch'], noBudget.value)).toBe(2);
    expect(noBudget.err.join('')).toContain(
      "Expected a budget in seconds with 'auto' for --time-budget-s but received 0 of type number",
    );
  });
});

describe('packages/conformance/RESULTS.md', () => {
  it('is exactly what bench page renders from the raw JSON it names (or the frame, with none)', () => {
    const pkg = path.resolve(__dirname, '../..');
    const { generated, checks } = splitPage(readFileSync(path.join(pkg, 'RESULTS.md'), 'utf8'));
    const page = checks ? generated.replace(/\n$/, '') : generated;
    const raw = /^One run of the shared suite on one commit\. Raw: \[`([^`]+)`\]/m.exec(page)?.[1];
    if (raw === undefined) {
      expect(page).toBe(renderPage({}));
      return;
    }
    const report = readReport(path.join(pkg, raw));
    const cases = SHARED_SUITE.map((c) => ({ ...c }));
    expect(page).toBe(renderPage({ report, rawPath: raw, cases }));
  });
});
