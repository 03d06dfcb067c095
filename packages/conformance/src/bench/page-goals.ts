/**
 * The results page's sections on issue 24: its goals judged from the run (goals.ts), and the rows
 * furthest from their roofline floor (roofline.ts). Pure: lines appended to the page.
 */
import { GOAL_THRESHOLDS, type GoalResult } from './goals.js';
import { mdCell } from './render.js';
import { factorText, furthestFromFloor, rowFloorMs } from './roofline.js';
import type { BenchRowResult } from './types.js';

/** Rows listed as furthest from the floor. */
const FURTHEST_LISTED = 8;
/** A goal resting on more rows than this lists only those it missed. */
const ROWS_LISTED = 12;

const VERDICT_TEXT = { met: 'met', 'not met': '**not met**', 'not measured': 'not measured' };

/** The goals section: one table line per goal, then each goal's rows, one line per goal. */
export function goalsSection(out: string[], results: readonly GoalResult[] | undefined): void {
  out.push('', '## Goals of issue 24, judged from this run', '');
  out.push(
    `Thresholds in \`src/bench/goals.ts\` (GOAL_THRESHOLDS), in the issue's words. Rows are chosen by the case's geometry: patch embedding = kernel = stride on every axis, no padding, dilation 1; stem = at most ${GOAL_THRESHOLDS.stem.maxCIn} input channels, stride ${GOAL_THRESHOLDS.stem.stride} and a kernel of at least ${GOAL_THRESHOLDS.stem.minKernel} on every axis; depthwise = groups = input channels = output channels. Ours is our best mode against the better of PyTorch's columns in the row, except depthwise (our default mode against PyTorch default). A goal is met when every row it rests on is.`,
    '',
  );
  out.push('| goal | issue 24 | verdict | rows met |', '|---|---|---|---:|');
  if (!results) {
    out.push('| (no run yet) | — | — | — |');
    return;
  }
  for (const r of results) {
    const t = GOAL_THRESHOLDS[r.id];
    const met = r.checks.filter((c) => c.met).length;
    out.push(
      `| ${t.title} | ${mdCell(t.wording)} | ${VERDICT_TEXT[r.verdict]} | ${r.checks.length > 0 ? `${met} of ${r.checks.length}` : '—'} |`,
    );
  }
  out.push('');
  for (const r of results) {
    const t = GOAL_THRESHOLDS[r.id];
    // A goal over many rows (time to a plan: one a group) lists the misses and counts the rest.
    const listed = r.checks.length > ROWS_LISTED ? r.checks.filter((c) => !c.met) : r.checks;
    const rest = r.checks.length - listed.length;
    const rows =
      r.checks.length > 0
        ? [
            ...listed.map((c) => `${c.label} ${c.value} ${c.met ? '✓' : '✗'}`),
            ...(rest > 0 ? [`${listed.length > 0 ? 'the other' : 'all'} ${rest} ✓`] : []),
          ].join('; ')
        : (r.note ?? 'no rows');
    out.push(`- **${t.title}** (${r.verdict}): ${mdCell(rows)}.`);
  }
}

/** The rows furthest from their floor, ours and PyTorch's factor side by side. */
export function furthestSection(out: string[], rows: readonly BenchRowResult[] | undefined): void {
  out.push(
    '',
    `## Furthest from the floor (each case's highest × floor, top ${FURTHEST_LISTED})`,
    '',
  );
  out.push(
    '| row | ours × floor | PyTorch × floor | ours ms | floor ms |',
    '|---|---:|---:|---:|---:|',
  );
  const listed = furthestFromFloor(rows ?? [], FURTHEST_LISTED, (r) => r.case);
  if (listed.length === 0) {
    out.push('| (no run yet) | — | — | — | — |');
    return;
  }
  for (const e of listed) {
    const r = e.row;
    out.push(
      `| ${r.case} ${r.dtype} ${r.layout} ${r.pass} | ${factorText(e.ours)} | ${factorText(e.torch)} | ${r.bestMs!.toPrecision(4)} | ${rowFloorMs(r)!.toPrecision(3)} |`,
    );
  }
}
