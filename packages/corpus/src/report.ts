/** Counts per outcome class and package, and the failing cases with their reproducers. */
import { type CaseResult, FAILING, type OutcomeClass, PACKAGES } from './model.js';

const CLASSES: readonly OutcomeClass[] = ['signal', 'hang', 'silent', 'untyped', 'typed', 'ok'];

export interface Summary {
  results: readonly CaseResult[];
  failing: readonly CaseResult[];
  missing: readonly string[];
}

export function summarize(results: readonly CaseResult[], missing: readonly string[]): Summary {
  return { results, failing: results.filter((r) => FAILING.includes(r.outcome)), missing };
}

function table(results: readonly CaseResult[]): string[] {
  const rows = [`${'package'.padEnd(12)} ${CLASSES.map((c) => c.padStart(7)).join(' ')}   total`];
  for (const pkg of [...PACKAGES, 'all'] as const) {
    const mine = results.filter((r) => pkg === 'all' || r.pkg === pkg);
    const counts = CLASSES.map((c) =>
      String(mine.filter((r) => r.outcome === c).length).padStart(7),
    );
    rows.push(`${pkg.padEnd(12)} ${counts.join(' ')}   ${mine.length}`);
  }
  return rows;
}

const REPRODUCE = 'node packages/corpus/dist/cli.js --case';

/** Each failing case by class and package; `limit` cases a group at most (the rest counted). */
function failureLines(failing: readonly CaseResult[], limit = Number.POSITIVE_INFINITY): string[] {
  const lines: string[] = [];
  for (const outcome of FAILING) {
    for (const pkg of PACKAGES) {
      const group = failing.filter((r) => r.outcome === outcome && r.pkg === pkg);
      if (group.length === 0) continue;
      lines.push('', `### ${outcome} — ${pkg} (${group.length})`);
      for (const r of group.slice(0, limit)) lines.push(`- ${REPRODUCE} '${r.id}'  → ${r.detail}`);
      if (group.length > limit)
        lines.push(`- … ${group.length - limit} more (--report FILE lists all)`);
    }
  }
  return lines;
}

/** The failures by class, package, target and slot: the values that failed and a sample message. */
function groupedLines(failing: readonly CaseResult[]): string[] {
  const lines: string[] = [];
  for (const outcome of FAILING) {
    for (const pkg of PACKAGES) {
      const group = failing.filter((r) => r.outcome === outcome && r.pkg === pkg);
      if (group.length === 0) continue;
      lines.push('', `### ${outcome} — ${pkg} (${group.length})`);
      const bySlot = new Map<string, CaseResult[]>();
      for (const r of group) {
        const at = r.id.lastIndexOf('=');
        const slot = at < 0 ? r.id : r.id.slice(0, at);
        bySlot.set(slot, [...(bySlot.get(slot) ?? []), r]);
      }
      for (const [slot, results] of bySlot) {
        const values = results.map((r) => r.id.slice(slot.length + 1) || 'valid').join(', ');
        const sample = results[0]!.detail.replace(/\/tmp\/\S+/g, '<tmp>').slice(0, 160);
        lines.push(`- \`${slot}\` = ${values} — ${sample}`);
      }
    }
  }
  return lines;
}

export function formatReport(
  summary: Summary,
  run: { seconds: number; command: string },
): { short: string; full: string } {
  const head = [
    `baracuda corpus: ${summary.results.length} cases in ${run.seconds.toFixed(1)} s (children: ${run.command})`,
    ...table(summary.results),
    `failing: ${summary.failing.length} (signal ${count(summary, 'signal')}, hang ${count(summary, 'hang')}, silent ${count(summary, 'silent')}, untyped ${count(summary, 'untyped')})`,
  ];
  if (summary.missing.length > 0) {
    head.push(`exports or members with no corpus entry (${summary.missing.length}):`);
    for (const m of summary.missing) head.push(`- ${m}`);
  }
  const full = [
    '# baracuda corpus report',
    '',
    '```',
    ...head,
    '```',
    '',
    '## By target and slot',
    ...groupedLines(summary.failing),
    '',
    '## Every failing case (each line is its reproducer)',
    ...failureLines(summary.failing),
    '',
  ];
  return {
    short: [...head, ...failureLines(summary.failing, 25)].join('\n'),
    full: full.join('\n'),
  };
}

function count(summary: Summary, outcome: OutcomeClass): number {
  return summary.failing.filter((r) => r.outcome === outcome).length;
}
