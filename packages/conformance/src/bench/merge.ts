/**
 * `bench merge`: one report out of the shards of one run (split to fit the device's time limit per
 * call), with the verdicts and geometric means recomputed over the joined rows. Pure apart from
 * the command's file reading and writing.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, ReportMismatchError } from '@baracuda/types';
import { parseFlags } from '../cli/args.js';
import { summarize } from './compare.js';
import type { BenchReport, BenchRowResult } from './types.js';

export const MERGE_USAGE = `Usage: baracuda-conformance bench merge --label <label> [--out <dir>] <report.json>...

Joins the shards of one run (bench --shard k/M) into one report (bench-<label>.{md,json,svg})
and recomputes the verdicts and geometric means. It refuses, naming the reports:
  - reports measured on different commits, or on an unknown commit;
  - reports that measured the same group (no row is ever chosen between two measurements);
  - reports of different GPUs, cuDNN versions, settings (reps, warm-up, rounds, modes) or suites.
A merged report says which suite groups no report measured.
`;

/** The commit a report was measured on (`unknown` for reports from before it was recorded). */
export function reportCommit(r: BenchReport): string {
  return r.provenance?.commit ?? 'unknown';
}

/** A note's attribution, `<label> <start time>: `, as {@link mergeReports} writes it. */
const ATTRIBUTION = /^(?:\(no label\)|\S+) \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z: /;

/**
 * `note` attributed to `source`, unless an earlier merge attributed it: then to the report it came
 * from first (the innermost attribution), so merging merged reports does not nest attributions.
 */
function attributed(note: string, source: string): string {
  let first: string | undefined;
  let body = note;
  for (let m = ATTRIBUTION.exec(body); m !== null; m = ATTRIBUTION.exec(body)) {
    first = m[0];
    body = body.slice(m[0].length);
  }
  return `${first ?? `${source}: `}${body}`;
}

/** What must agree across merged reports besides the commit, as `what: value` pairs. */
function agreements(r: BenchReport): [string, string][] {
  const s = r.settings;
  return [
    ['GPU', r.device],
    ['our cuDNN', String(r.ours.cudnn.version)],
    ['PyTorch cuDNN', String(r.provenance?.cudnnTorch ?? null)],
    ['driver', String(r.provenance?.driver ?? null)],
    ['reps', String(s.reps)],
    ['warm-up', String(s.warmup)],
    ['rounds', String(s.rounds ?? 1)],
    ['modes', s.modes.join(',')],
    ['passes', s.passes.join(',')],
    ['outputs', String(s.outputs ?? 'rotated')],
    ['tuned-on groups', (s.tunedOn ?? ['every group']).join(',')],
    ['autotune cache', r.autotuneCache?.state ?? 'unknown'],
  ];
}

const groupOf = (row: BenchRowResult) => `${row.case}:${row.dtype}:${row.layout}`;

/**
 * The groups a report measured (`case:dtype:layout`): those with a row where one of our modes did
 * more than skip. A group skipped whole (the run's time budget ran out first) was not measured, so
 * another report may measure it; nothing measured is ever dropped or replaced.
 */
export function measuredGroups(r: BenchReport): Set<string> {
  return new Set(
    r.rows.filter((row) => row.modes.some((m) => m.status !== 'skipped')).map(groupOf),
  );
}

/**
 * Join the shards of one run. Throws ReportMismatchError naming both reports when two were
 * measured on different (or unknown) commits, measured the same group, or differ in GPU, cuDNN,
 * driver, settings or suite. The first report gives the settings, peaks and PyTorch's identity;
 * every report's rows, host overhead and notes (attributed) are kept.
 */
export function mergeReports(
  reports: readonly BenchReport[],
  label: string,
  names: readonly string[] = reports.map((r, i) => `report ${i + 1} (${r.label || 'no label'})`),
): BenchReport {
  if (reports.length === 0) {
    throw new InvalidArgumentError('reports', 'at least one bench report', 'none');
  }
  const first = reports[0]!;
  const commit = reportCommit(first);
  const side = (i: number, value: string) => ({ source: names[i]!, value });
  reports.forEach((r, i) => {
    const theirs = reportCommit(r);
    if (theirs === 'unknown' || commit === 'unknown') {
      throw new ReportMismatchError('an unknown commit', side(0, commit), side(i, theirs));
    }
    if (theirs !== commit) {
      throw new ReportMismatchError('different commits', side(0, commit), side(i, theirs));
    }
  });
  const expected = agreements(first);
  reports.forEach((r, i) => {
    agreements(r).forEach(([what, value], k) => {
      if (value !== expected[k]![1]) {
        throw new ReportMismatchError(
          `different ${what}`,
          side(0, expected[k]![1]),
          side(i, value),
        );
      }
    });
  });
  // The first report's suite is the run's; a later one may be a part of it (`--groups`, e.g. the
  // groups a shard's time budget left unmeasured), never a group outside it.
  const suite = new Set(first.suiteGroups ?? []);
  reports.forEach((r, i) => {
    const outside = (r.suiteGroups ?? []).filter((g) => !suite.has(g));
    if (outside.length > 0) {
      throw new ReportMismatchError(
        "different suite groups (a later report may only measure groups of the first one's suite)",
        side(0, (first.suiteGroups ?? []).join(',')),
        side(i, outside.join(',')),
      );
    }
  });
  const owner = new Map<string, number>();
  reports.forEach((r, i) => {
    for (const group of measuredGroups(r)) {
      const held = owner.get(group);
      if (held !== undefined) {
        throw new ReportMismatchError(
          `overlapping groups (each group is measured once)`,
          side(held, group),
          side(i, group),
        );
      }
      owner.set(group, i);
    }
  });
  const sourceOf = (r: BenchReport) => `${r.label || '(no label)'} started ${r.startedAt}`;
  const rows = reports.flatMap((r, i) =>
    r.rows
      .filter((row) => owner.get(groupOf(row)) === i)
      .map((row) => ({ ...row, source: sourceOf(r) })),
  );
  const measured = new Set(owner.keys());
  const missing = (first.suiteGroups ?? []).filter((g) => !measured.has(g));
  const report: BenchReport = {
    ...first,
    label,
    startedAt: reports.map((r) => r.startedAt).sort()[0]!,
    // Host overhead as shard 1 measured it (a part-of-suite report run as shard 1/1 measures it
    // again; its figures stay in its own raw file).
    overhead: reports.find((r) => r.overhead.length > 0)?.overhead ?? [],
    rows,
    notes: [
      ...new Set([
        `Merged from ${reports.length} reports of commit ${commit}: ${reports.map(sourceOf).join('; ')}.`,
        missing.length === 0
          ? `Every one of the ${measured.size} suite groups was measured.`
          : `Not measured: ${missing.length} of ${(first.suiteGroups ?? []).length} suite groups (${missing.join(', ')}).`,
        ...reports.flatMap((r) =>
          r.notes.map((n) => attributed(n, `${r.label || '(no label)'} ${r.startedAt}`)),
        ),
      ]),
    ],
  };
  delete report.shard;
  delete report.summary;
  if (rows.some((r) => r.peers)) report.summary = summarize(rows);
  return report;
}

/** Parsed `bench merge` arguments. */
export interface MergeOptions {
  label: string;
  out: string | undefined;
  files: string[];
  help: boolean;
}

export function parseMergeArgs(argv: readonly string[]): MergeOptions {
  const { values, positionals } = parseFlags(
    [...argv],
    { label: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    true,
  );
  const options: MergeOptions = {
    label: values.label ?? '',
    out: values.out,
    files: positionals,
    help: values.help ?? false,
  };
  if (!options.help && options.files.length === 0) {
    throw new InvalidArgumentError('files', 'one or more bench JSON reports', 'none');
  }
  if (!options.help && options.label === '') {
    throw new InvalidArgumentError('--label', 'a label for the merged report', 'none');
  }
  return options;
}

/** Read a bench JSON report; a typed error names the file and what was wrong. */
export function readReport(file: string): BenchReport {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new InvalidArgumentError(file, 'a readable bench JSON report', (error as Error).message);
  }
  const r = value as Partial<BenchReport>;
  if (typeof r !== 'object' || r === null || !Array.isArray(r.rows) || !r.ours || !r.settings) {
    const keys = typeof r === 'object' && r !== null ? Object.keys(r).join(', ') : typeof r;
    throw new InvalidArgumentError(
      file,
      'a bench JSON report (rows, ours, settings)',
      `JSON with ${keys || 'no keys'}`,
    );
  }
  return r as BenchReport;
}
