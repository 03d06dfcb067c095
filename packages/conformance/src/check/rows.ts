/** The rows of a check report and how they are counted. */
import { UnsupportedError } from '@baracuda/types';
import type { Layout } from '../reference/index.js';
import type { AlgoMode, Pass } from './gpu-api.js';
import type { CheckDtype } from './tolerances.js';

/** `unsupported` counts as neither pass nor fail. */
export type RowStatus = 'pass' | 'fail' | 'unsupported';

/** One line of the table. Conv rows fill every field; extra checks use `-` where none applies. */
export interface CheckRow {
  /** `conv` for a case × dtype × layout × pass × mode; the extra check's name otherwise. */
  readonly check: string;
  readonly case: string;
  readonly dtype: CheckDtype | '-';
  readonly layout: Layout | '-';
  readonly pass: Pass | '-';
  /** The algorithm mode (`pinned`, `heuristic`, `autotune`, `deterministic`) or `-`. */
  readonly mode: AlgoMode | 'deterministic' | '-';
  /** The algorithm the plan chose for this pass, or `-`. */
  readonly algorithm: string;
  /** Relative L2 error (or the check's own measure); null when nothing was measured. */
  readonly error: number | null;
  readonly tolerance: number | null;
  /** Output elements still poisoned (or NaN) after the run; null when not measured. */
  readonly unwritten: number | null;
  /** Output points compared against the reference when sampled; null when all were. */
  readonly sampledPoints: number | null;
  readonly status: RowStatus;
  /** Why it failed or is unsupported; what it measured for extra checks. */
  readonly detail: string;
}

/** Counts for the summary line. */
export interface CheckCounts {
  readonly passed: number;
  readonly failed: number;
  readonly unsupported: number;
}

/** Count rows by status. */
export function countRows(rows: readonly CheckRow[]): CheckCounts {
  let passed = 0;
  let failed = 0;
  let unsupported = 0;
  for (const row of rows) {
    if (row.status === 'pass') passed++;
    else if (row.status === 'fail') failed++;
    else unsupported++;
  }
  return { passed, failed, unsupported };
}

/** The summary line, exactly `N passed, M failed, K unsupported`. */
export function summaryLine(counts: CheckCounts): string {
  return `${counts.passed} passed, ${counts.failed} failed, ${counts.unsupported} unsupported`;
}

/** @internal One line for an error: its class and first message line. */
export function errorSummary(error: unknown): string {
  if (error instanceof Error) {
    const first = error.message.split('\n')[0] ?? '';
    return `${error.name}: ${first}`;
  }
  return String(error);
}

/** @internal `unsupported` for UnsupportedError, `fail` for anything else. */
export function statusOfError(error: unknown): { status: RowStatus; detail: string } {
  if (UnsupportedError.isInstance(error)) {
    return { status: 'unsupported', detail: `unsupported: ${error.message.split('\n')[0]}` };
  }
  return { status: 'fail', detail: errorSummary(error) };
}
