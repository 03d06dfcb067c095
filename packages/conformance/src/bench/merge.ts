/**
 * `bench merge`: one report out of several runs' JSON reports (two GPUs of one machine, or runs
 * split to fit a time limit), with the summary recomputed over the merged rows. Pure apart from
 * the command's file reading and writing.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from '@baracuda/types';
import { parseFlags } from '../cli/args.js';
import { summarize } from './compare.js';
import type { BenchReport, BenchRowResult } from './types.js';

export const MERGE_USAGE = `Usage: baracuda-conformance bench merge --label <label> [--out <dir>] <report.json>...

Merges bench JSON reports into one (bench-<label>.{md,json,svg}) and recomputes the geometric
means. A row measured in several reports is taken from the last report that compared it with
PyTorch (else the last one). Reports whose GPU, our cuDNN or PyTorch's cuDNN differ are refused:
their rows do not compare.
`;

/** Whether a row has a ratio against PyTorch. */
function compared(row: BenchRowResult): boolean {
  return typeof row.ratioBest === 'number' && Number.isFinite(row.ratioBest);
}

/** The identity that must agree across merged reports. */
function identity(r: BenchReport): string {
  return JSON.stringify({
    device: r.device,
    ours: r.ours.cudnn.version,
    torch: r.torch?.cudnn.version ?? null,
  });
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

/**
 * Merge reports (in order; later rows win, a compared row over an uncompared one). The first
 * report gives the settings, peaks and PyTorch's identity; each report's notes are kept once,
 * attributed to the report they first came from (label and start time); the overhead
 * measurements of all are kept.
 */
export function mergeReports(reports: readonly BenchReport[], label: string): BenchReport {
  if (reports.length === 0) {
    throw new InvalidArgumentError('reports', 'at least one bench report', 'none');
  }
  const first = reports[0]!;
  for (const r of reports.slice(1)) {
    if (identity(r) !== identity(first)) {
      throw new InvalidArgumentError(
        'reports',
        `reports of one GPU and one pair of cuDNN versions (${identity(first)})`,
        identity(r),
      );
    }
  }
  const sourceOf = (r: BenchReport) => `${r.label || '(no label)'} started ${r.startedAt}`;
  const rows = new Map<string, BenchRowResult>();
  for (const r of reports) {
    for (const row of r.rows) {
      const held = rows.get(row.id);
      if (held === undefined || compared(row) || !compared(held))
        rows.set(row.id, { ...row, source: row.source ?? sourceOf(r) });
    }
  }
  const merged = [...rows.values()];
  const sources = reports.map(sourceOf);
  const taken = new Map<string, number>();
  for (const row of merged) taken.set(row.source!, (taken.get(row.source!) ?? 0) + 1);
  /** A setting every report shares, or 'mixed' with a note naming each report's. */
  const shared = <T extends string | number>(what: string, of: (r: BenchReport) => T) => {
    const values = new Set(reports.map(of));
    return values.size === 1
      ? { value: of(first), notes: [] as string[] }
      : {
          value: 'mixed' as const,
          notes: [`${what}: ${reports.map((r) => `${of(r)} in ${sourceOf(r)}`).join('; ')}.`],
        };
  };
  const outputs = shared('Our outputs', (r) => r.settings.outputs ?? 'rotated');
  const rounds = shared('Rounds per group', (r) => r.settings.rounds ?? 1);
  const settings: BenchReport['settings'] = { ...first.settings, outputs: outputs.value };
  delete settings.rounds;
  if (rounds.value !== 1) settings.rounds = rounds.value;
  const report: BenchReport = {
    ...first,
    settings,
    label,
    startedAt: reports.map((r) => r.startedAt).sort()[0]!,
    overhead: reports.flatMap((r) => r.overhead),
    rows: merged,
    notes: [
      ...new Set([
        `Merged from ${reports.length} reports: ${sources.join('; ')}.`,
        `Rows taken from each: ${[...taken].map(([s, n]) => `${s}: ${n}`).join('; ')}.`,
        ...outputs.notes,
        ...rounds.notes,
        ...reports.flatMap((r) =>
          r.notes.map((n) => attributed(n, `${r.label || '(no label)'} ${r.startedAt}`)),
        ),
      ]),
    ],
  };
  delete report.summary;
  if (merged.some(compared)) report.summary = summarize(merged);
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
