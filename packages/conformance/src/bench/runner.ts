import type { BenchOptions } from './args.js';
import type { BenchBackend } from './backend.js';
import { matchTorch, summarize, withMetrics } from './compare.js';
import { benchGroup } from './group.js';
import { convBytes, convMacs, ROTATE_BELOW_BYTES, rowId } from './math.js';
import { measureOverhead, measurePeaks } from './peaks-overhead.js';
import { formatMs } from './render.js';
import { groupKey, isTunedGroup, modesFor } from './rows.js';
import { torchJobRows } from './torch.js';
import { combineTorchRounds, type TorchTurns } from './torch-worker.js';
import {
  type AutotuneCacheState,
  type BenchCase,
  type BenchGroup,
  type BenchMode,
  type BenchPass,
  type BenchReport,
  type BenchRowResult,
  type ModeResult,
  type OverheadResult,
  type Provenance,
  type ShardInfo,
  TORCH_COLUMNS,
  type TorchColumn,
  type TorchInfo,
  type TorchRowResult,
} from './types.js';

/** PyTorch's host overhead, measured in a fresh process of one column. */
export interface TorchOverheadOutcome {
  overhead: OverheadResult[];
  notes: string[];
}

/** @internal */
export interface RunnerContext {
  backend: BenchBackend;
  /** Progress lines (stderr in the CLI). */
  log: (line: string) => void;
  /** Milliseconds clock, injectable for tests. */
  now?: () => number;
  /**
   * Estimated seconds of a group (shards.ts): with a time budget, a group is not started when it
   * would end past the budget. Absent: only the time already spent counts.
   */
  estimateS?: (group: BenchGroup) => number;
  /** PyTorch (one worker per column) taking turns with us group by group; with `--vs-torch`. */
  openTorchTurns?: (column: TorchColumn) => TorchTurns;
  /** PyTorch's per-call host cost of the passes, in a fresh process of the column. */
  runTorchOverhead?: (
    column: TorchColumn,
    passes: readonly BenchPass[],
  ) => Promise<TorchOverheadOutcome>;
}

/** What runBenchReport records about the run beyond the options: where, on what, which shard. */
export interface RunIdentity {
  commit: string;
  driver: string | null;
  autotuneCache: AutotuneCacheState;
  /** Every group of the unsharded run, `case:dtype:layout`. */
  suiteGroups: string[];
  shard?: ShardInfo;
}

/** Rows of one group marked skipped for `note`, on our side and every PyTorch column. */
function skippedRows(group: BenchGroup, modes: readonly BenchMode[], note: string) {
  return new Map(
    group.passes.map((p) => [p, modes.map((mode) => ({ mode, status: 'skipped' as const, note }))]),
  );
}

/** Run the whole bench over `groups` and return the report (nothing written). */
export async function runBenchReport(
  groups: readonly BenchGroup[],
  cases: readonly BenchCase[],
  options: BenchOptions,
  context: RunnerContext,
  planNotes: readonly string[] = [],
  identity: RunIdentity = {
    commit: 'unknown',
    driver: null,
    autotuneCache: { state: 'cold', path: null, entriesAtStart: 0 },
    suiteGroups: groups.map(groupKey),
  },
): Promise<BenchReport> {
  const { backend, log } = context;
  const now = context.now ?? (() => performance.now());
  const started = now();
  const startedAt = new Date().toISOString();
  const notes = [...planNotes];
  const withOverhead = !identity.shard || identity.shard.index === 1;

  log(
    `device: ${backend.deviceName}; cuDNN ${backend.cudnn.version ?? '?'} (${backend.cudnn.path ?? '?'}); commit ${identity.commit}; autotune cache ${identity.autotuneCache.state}`,
  );
  const { peaks, notes: peakNotes } = await measurePeaks(options, backend, log);
  notes.push(...peakNotes);

  const caseByName = new Map(cases.map((c) => [c.name, c]));
  const rows: BenchRowResult[] = [];
  let budgetHit = false;
  const torchInfo: Partial<Record<TorchColumn, TorchInfo>> = {};
  const torchRounds = new Map<TorchColumn, Map<string, TorchRowResult[]>>();
  const turns = new Map<TorchColumn, TorchTurns>();
  const torchErrors: string[] = [];
  if (options.vsTorch && context.openTorchTurns) {
    for (const column of TORCH_COLUMNS) {
      log(`starting PyTorch (${column} column), to take turns with it group by group...`);
      const opened = context.openTorchTurns(column);
      const hello = await opened.start();
      notes.push(...hello.notes);
      if (hello.info) torchInfo[column] = hello.info;
      if (hello.error) {
        torchErrors.push(`${column} column: ${hello.error}`);
        await opened.close();
        continue;
      }
      turns.set(column, opened);
      torchRounds.set(column, new Map());
    }
  }
  /** The PyTorch columns a group is timed with: tuned only where our autotune runs. */
  const columnsFor = (group: BenchGroup) =>
    [...turns.keys()].filter((c) => c === 'default' || isTunedGroup(group, options));
  const record = (column: TorchColumn, row: TorchRowResult) => {
    const byId = torchRounds.get(column)!;
    byId.set(row.id, [...(byId.get(row.id) ?? []), row]);
  };

  for (const [index, group] of groups.entries()) {
    const elapsedS = (now() - started) / 1e3;
    const endS = elapsedS + (context.estimateS?.(group) ?? 0);
    let results: Map<BenchPass, ModeResult[]>;
    let groupWallMs: number | undefined;
    if (options.timeBudgetS > 0 && (elapsedS > options.timeBudgetS || endS > options.timeBudgetS)) {
      if (!budgetHit) {
        notes.push(
          `Time budget of ${options.timeBudgetS} s reached after ${index} of ${groups.length} groups; the rest are marked skipped.`,
        );
        budgetHit = true;
      }
      const note = `time budget of ${options.timeBudgetS} s reached`;
      results = skippedRows(group, modesFor(group, options), note);
      for (const column of columnsFor(group))
        for (const row of torchJobRows(group))
          record(column, { id: row.id, status: 'skipped', note });
    } else {
      const columns = columnsFor(group);
      log(
        `[${index + 1}/${groups.length}] ${groupKey(group)} (${group.sets} set${group.sets > 1 ? 's' : ''}), ${options.rounds} round${options.rounds > 1 ? 's' : ''}${columns.length > 0 ? ` in turns with PyTorch (${columns.join(', ')})` : ''}`,
      );
      const groupStarted = now();
      results = await benchGroup(group, modesFor(group, options), options, backend, {
        rounds: options.rounds,
        afterRound: async (round) => {
          for (const column of columns)
            for (const row of await turns.get(column)!.round(group, round)) record(column, row);
        },
      });
      for (const column of columns) await turns.get(column)!.release();
      groupWallMs = now() - groupStarted;
    }
    for (const pass of group.passes) {
      const key = { case: group.case.name, dtype: group.dtype, layout: group.layout, pass };
      const row: BenchRowResult = {
        ...key,
        id: rowId(key),
        macs: convMacs(group.case),
        bytes: convBytes(group.case, group.dtype),
        sets: group.sets,
        modes: results.get(pass) ?? [],
        ...(groupWallMs === undefined ? {} : { groupWallMs }),
      };
      const withRow = withMetrics(row, caseByName.get(group.case.name) ?? group.case, peaks);
      rows.push(withRow);
      const cells = withRow.modes
        .map((m) => `${m.mode}=${typeof m.medianMs === 'number' ? formatMs(m.medianMs) : m.status}`)
        .join(' ');
      log(`  ${pass}: ${cells}`);
    }
  }
  for (const [column, theirs] of turns) {
    const finished = await theirs.finish();
    notes.push(...finished.notes);
    if (finished.info) torchInfo[column] = finished.info;
  }

  const overhead = withOverhead ? await measureOverhead(backend, options.passes) : [];
  if (withOverhead && options.vsTorch && context.runTorchOverhead) {
    for (const column of TORCH_COLUMNS) {
      const measured = await context.runTorchOverhead(column, options.passes);
      overhead.push(...measured.overhead);
      notes.push(...measured.notes);
    }
  }
  for (const o of overhead) {
    log(
      `host overhead ${o.side} ${o.dtype} ${o.layout} ${o.pass}: ${o.usPerCall?.toFixed(1) ?? o.note} µs/call`,
    );
  }
  if (!withOverhead) notes.push('Host overhead is measured in shard 1 of a sharded run.');

  const cudnnTorch = torchInfo.default?.cudnn.version ?? torchInfo.tuned?.cudnn.version ?? null;
  const provenance: Provenance = {
    commit: identity.commit,
    date: startedAt,
    gpu: backend.deviceName,
    driver: identity.driver,
    cudnnOurs: backend.cudnn.version,
    cudnnTorch,
  };
  const report: BenchReport = {
    label: options.label,
    startedAt,
    device: backend.deviceName,
    ours: { cudnn: backend.cudnn },
    provenance,
    autotuneCache: identity.autotuneCache,
    suiteGroups: identity.suiteGroups,
    ...(identity.shard ? { shard: identity.shard } : {}),
    settings: {
      reps: options.reps,
      warmup: options.warmup,
      dtypes: options.dtypes,
      layouts: options.layouts,
      passes: options.passes,
      modes: options.modes,
      f64MaxMacs: options.f64MaxMacs,
      pinnedBudgetMs: options.pinnedBudgetMs,
      ...(options.maxWorkspaceBytes === undefined
        ? {}
        : { maxWorkspaceBytes: options.maxWorkspaceBytes }),
      rotateBelowBytes: ROTATE_BELOW_BYTES,
      outputs: options.outputs,
      ...(options.rounds > 1 ? { rounds: options.rounds } : {}),
      ...(options.tunedOn ? { tunedOn: options.tunedOn } : {}),
    },
    peaks,
    overhead,
    rows: rows.map((r) => ({ ...r, provenance })),
    notes,
  };
  if (Object.keys(torchInfo).length > 0) report.torch = torchInfo;
  if (torchErrors.length > 0) report.torchError = torchErrors.join('; ');
  if (turns.size > 0) {
    const torchRows: Partial<Record<TorchColumn, TorchRowResult[]>> = {};
    for (const [column, byId] of torchRounds)
      torchRows[column] = [...byId.values()].map(combineTorchRounds);
    report.rows = matchTorch(report.rows, torchRows);
    report.summary = summarize(report.rows);
  }
  return report;
}
