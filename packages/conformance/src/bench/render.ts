/**
 * Renders a bench report as a markdown document and a hand-written SVG chart. Pure.
 */
import { median } from './math.js';
import {
  type BenchReport,
  type BenchRowResult,
  type ModeResult,
  PEER_MODE,
  type PeerComparison,
  TORCH_COLUMNS,
  type TorchColumn,
  type TorchInfo,
} from './types.js';

/** Milliseconds with about four significant digits. */
export function formatMs(ms: number): string {
  if (ms >= 100) return ms.toFixed(1);
  if (ms >= 10) return ms.toFixed(2);
  if (ms >= 1) return ms.toFixed(3);
  return ms.toFixed(4);
}

/** `0.981× win`, or `—` without a comparison. */
function peerText(p: PeerComparison | undefined): string {
  return p ? `${p.ratio.toFixed(3)}× ${p.verdict}` : '—';
}

/** A row's round spread: the larger of its comparisons'. */
function spreadText(row: BenchRowResult): string {
  const spreads = TORCH_COLUMNS.map((c) => row.peers?.[c]?.spread).filter(
    (v): v is number => typeof v === 'number',
  );
  return spreads.length > 0 ? `${(Math.max(...spreads) * 100).toFixed(2)}%` : '—';
}

/** A markdown table cell: pipes escaped, newlines flattened. */
export function mdCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** One mode's cell: the median, or what happened instead. */
export function modeCell(m: ModeResult | undefined): string {
  if (!m) return '—';
  switch (m.status) {
    case 'ok':
      return formatMs(m.medianMs!);
    case 'capped':
      return `${formatMs(m.medianMs!)} (capped, ${m.reps} reps)`;
    default:
      return m.status;
  }
}

/** Notes for a row: every mode that did not simply succeed, with its reason. */
export function rowNotes(row: BenchRowResult): string {
  const notes = row.modes
    .filter((m) => m.status !== 'ok' && m.note)
    .map((m) => `${m.mode}: ${m.status} (${m.note})`);
  for (const column of TORCH_COLUMNS) {
    const t = row.torch?.[column];
    if (t && (t.status !== 'ok' || t.note))
      notes.push(`torch ${column}: ${t.status}${t.note ? ` (${t.note})` : ''}`);
  }
  return notes.join('; ');
}

function cudnnText(identity: { version: string | null; path: string | null }): string {
  return `${identity.version ?? 'unknown version'} (${identity.path ?? 'unknown path'})`;
}

function torchCudnnCell(row: BenchRowResult): string {
  const t = row.torch?.default ?? row.torch?.tuned;
  const used = t?.usedCudnn;
  if (used === true) return 'yes';
  if (used === false) return `no${t?.backend ? ` (${t.backend})` : ''}`;
  return t ? '?' : '—';
}

function torchInfoText(column: TorchColumn, t: TorchInfo): string {
  return `- PyTorch ${column}: cuDNN ${cudnnText(t.cudnn)}; torch ${t.torchVersion ?? '?'}, CUDA ${t.cudaVersion ?? '?'}, cudnn.enabled=${t.cudnnEnabled ?? '?'}, benchmark=${t.benchmark ?? '?'}, benchmark_limit=${t.benchmarkLimit ?? '?'}`;
}

const GEMM_SHAPE = 'n=1, 4096→4096 channels, 1×64×64, k=1×1×1';

/** The whole report as markdown: header, peaks, host overhead, the row table, geomeans, goals. */
export function renderMarkdown(report: BenchReport): string {
  const out: string[] = [];
  const modes = report.settings.modes;
  const hasTorch = report.rows.some((r) => r.torch);
  out.push(`# conv3d benchmark${report.label ? ` — ${report.label}` : ''}`, '');
  out.push(`- label: ${report.label || '(none)'}`);
  out.push(`- started: ${report.startedAt}`);
  out.push(`- commit: ${report.provenance?.commit ?? 'not recorded'}`);
  out.push(`- device: ${report.device}; driver ${report.provenance?.driver ?? 'unknown'}`);
  out.push(`- cuDNN (ours): ${cudnnText(report.ours.cudnn)}`);
  for (const column of TORCH_COLUMNS) {
    const t = report.torch?.[column];
    if (t) out.push(torchInfoText(column, t));
  }
  if (report.torchError) out.push(`- PyTorch: ${mdCell(report.torchError)}`);
  if (report.autotuneCache) {
    const c = report.autotuneCache;
    out.push(
      `- autotune cache: ${c.state} (${c.entriesAtStart} entries at the start, ${c.path ?? 'no path'})`,
    );
  }
  if (report.shard) {
    out.push(
      `- shard ${report.shard.index} of ${report.shard.count}: ${report.shard.groups.length} of ${report.suiteGroups?.length ?? '?'} groups`,
    );
  }
  const s = report.settings;
  out.push(
    `- timing: CUDA events per call, warm-up ${s.warmup}, median of ${s.reps} reps${typeof s.rounds === 'number' && s.rounds > 1 ? ` per round, the median of ${s.rounds} rounds (PyTorch as a worker, the two sides taking turns round by round)` : s.rounds === 'mixed' ? ' (rounds differ between merged reports, see the notes)' : ''}; inputs rotated among sets while one set is below ${(s.rotateBelowBytes / 2 ** 20).toFixed(0)} MiB; ${s.outputs === 'shared' ? "our outputs one buffer per group, overwritten by every call (PyTorch's allocator gives each call the block the last one freed)" : s.outputs === 'mixed' ? 'our outputs shared in some merged reports, rotated in others (see the notes)' : 'our outputs rotated with the inputs'}; pinned mode capped at ${s.pinnedBudgetMs} ms per row; f64 only up to ${s.f64MaxMacs.toExponential(1)} MACs; our workspace limit ${s.maxWorkspaceBytes === undefined ? "'auto' (default: the larger of 1 GiB and twice the problem's tensors, at most half the free memory)" : `${(s.maxWorkspaceBytes / 2 ** 20).toFixed(0)} MiB`}`,
  );
  out.push('', '## Peaks measured in this run', '');
  const bw = report.peaks.copyBytesPerS;
  out.push(
    `- copy bandwidth: ${bw ? `${(bw / 1e12).toFixed(2)} TB/s` : 'not measured'} (device-to-device copy, bytes read + written / time, median)`,
  );
  out.push(
    `- compute: peak achieved by a GEMM-shaped conv (${GEMM_SHAPE}) through our best plan, not a datasheet figure:`,
  );
  for (const dtype of s.dtypes) {
    const f = report.peaks.gemmFlopsPerS[dtype];
    const note = report.peaks.gemmNotes[dtype];
    out.push(
      `  - ${dtype}: ${f ? `${(f / 1e12).toFixed(1)} TFLOP/s` : 'not measured'}${note ? ` (${mdCell(note)})` : ''}`,
    );
  }
  out.push(
    '- floor = max(FLOPs / compute peak, bytes / copy bandwidth), bytes = x + w + y once at the dtype size; "% floor" = floor / best time (over 100% means the row beat the GEMM-shaped reference).',
  );

  if (report.overhead.length > 0) {
    out.push('', '## Host overhead: each pass on a tiny problem, 1,000 calls without sync', '');
    out.push(
      '| problem | pass | side | µs per call (median) | trials (µs) | note |',
      '|---|---|---|---:|---|---|',
    );
    for (const o of report.overhead) {
      out.push(
        `| ${o.id} ${o.dtype} ${o.layout} | ${o.pass ?? 'fw'} | ${o.side} | ${typeof o.usPerCall === 'number' ? o.usPerCall.toFixed(1) : '—'} | ${(o.trialsUs ?? []).map((v) => v.toFixed(1)).join(', ')} | ${mdCell(o.note ?? '')} |`,
      );
    }
  }

  out.push('', '## Rows (ms per call, median)', '');
  const head = [
    'case',
    'dtype',
    'layout',
    'pass',
    ...modes.map((m) => `${m} ms`),
    'best',
    'TFLOP/s',
    'floor ms',
    '% floor',
  ];
  if (hasTorch) {
    head.push('torch default ms', 'torch tuned ms', 'torch cuDNN');
    for (const c of TORCH_COLUMNS) head.push(`${PEER_MODE[c]}/torch ${c}`);
    head.push('round spread');
  }
  head.push('notes');
  out.push(`| ${head.join(' | ')} |`);
  out.push(
    `|${head.map((h, i) => (i < 4 || h === 'best' || h === 'torch cuDNN' || h === 'notes' ? '---' : '---:')).join('|')}|`,
  );
  for (const row of report.rows) {
    const cells = [row.case, row.dtype, row.layout, row.pass];
    for (const m of modes) cells.push(modeCell(row.modes.find((r) => r.mode === m)));
    cells.push(row.bestMode ?? '—');
    cells.push(typeof row.tflops === 'number' ? row.tflops.toFixed(1) : '—');
    cells.push(typeof row.floorMs === 'number' ? formatMs(row.floorMs) : '—');
    cells.push(
      typeof row.floorFraction === 'number' ? `${(row.floorFraction * 100).toFixed(0)}%` : '—',
    );
    if (hasTorch) {
      for (const c of TORCH_COLUMNS) {
        const ms = row.torch?.[c]?.medianMs;
        cells.push(typeof ms === 'number' ? formatMs(ms) : '—');
      }
      cells.push(torchCudnnCell(row));
      for (const c of TORCH_COLUMNS) cells.push(peerText(row.peers?.[c]));
      cells.push(spreadText(row));
    }
    cells.push(rowNotes(row));
    out.push(`| ${cells.map(mdCell).join(' | ')} |`);
  }

  const selection = selectionTimes(report.rows);
  if (selection.length > 0) {
    out.push('', '## Plan selection: wall time of select per group, all its passes', '');
    out.push(
      '| mode | groups | median ms | slowest ms | slowest group |',
      '|---|---:|---:|---:|---|',
    );
    for (const s of selection) {
      out.push(
        `| ${s.mode} | ${s.groups} | ${s.medianMs.toFixed(1)} | ${s.maxMs.toFixed(1)} | ${mdCell(s.slowest)} |`,
      );
    }
  }

  if (report.summary) {
    out.push('', '## Verdicts and geometric means of ours / PyTorch', '');
    out.push(
      'A win or a loss only when every round agrees and |1 − ratio| exceeds the round spread; otherwise parity.',
      '',
    );
    out.push('| comparison | scope | geomean | rows |', '|---|---|---:|---:|');
    for (const p of report.summary.peers) {
      for (const e of p.geomeans)
        out.push(
          `| ${p.mode} / torch ${p.column} | ${e.scope} | ${e.geomean.toFixed(3)}× | ${e.count} |`,
        );
    }
    out.push('');
    for (const p of report.summary.peers) {
      out.push(
        `- ${p.mode} / torch ${p.column}: ${p.wins} wins, ${p.losses} losses, ${p.parity} parity${p.lossRows.length > 0 ? `; losses: ${p.lossRows.join(', ')}` : ''}`,
      );
    }
  }
  if (report.notes.length > 0) {
    out.push('', '## Notes', '');
    for (const n of report.notes) out.push(`- ${mdCell(n)}`);
  }
  out.push('');
  return out.join('\n');
}

/**
 * Per mode, the plan-selection times of the groups (one figure per case × dtype × layout, read
 * from any of its rows): how many, the median, and the slowest with its group.
 */
export function selectionTimes(
  rows: readonly BenchRowResult[],
): { mode: string; groups: number; medianMs: number; maxMs: number; slowest: string }[] {
  const byMode = new Map<string, Map<string, number>>();
  for (const row of rows) {
    for (const m of row.modes) {
      if (typeof m.selectMs !== 'number') continue;
      const groups = byMode.get(m.mode) ?? new Map<string, number>();
      groups.set(`${row.case} ${row.dtype} ${row.layout}`, m.selectMs);
      byMode.set(m.mode, groups);
    }
  }
  return [...byMode].map(([mode, groups]) => {
    const entries = [...groups].sort((a, b) => a[1] - b[1]);
    const [slowest, maxMs] = entries[entries.length - 1]!;
    return {
      mode,
      groups: entries.length,
      medianMs: median(entries.map((e) => e[1])),
      maxMs,
      slowest,
    };
  });
}

/** Escape text for SVG. */
export function xmlEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const BAR_HEIGHT = 12;
const ROW_HEIGHT = 16;
const LABEL_WIDTH = 230;
const PLOT_WIDTH = 560;
const RIGHT_MARGIN = 120;

/**
 * A horizontal bar chart of best/torch per row, grouped by case, with a dashed 1.0 line.
 * Green: faster than PyTorch; red: slower; faded: parity by the verdict rule, or PyTorch did not
 * use cuDNN on that row. Charts our heuristic mode against PyTorch default (autotune against
 * tuned when a report has no default column).
 * Rows without a ratio are listed with the reason. Ratios past the axis are clipped and labelled.
 */
export function renderSvg(report: BenchReport): string {
  // The runner emits rows grouped by case already (case, then dtype, layout, pass).
  const rows = report.rows;
  const chartColumn: TorchColumn = rows.some((r) => r.peers?.default) ? 'default' : 'tuned';
  const ratioOf = (r: BenchRowResult) => r.peers?.[chartColumn]?.ratio;
  const ratios = rows.map(ratioOf).filter((v): v is number => typeof v === 'number');
  const maxRatio = ratios.length > 0 ? Math.max(...ratios) : 1;
  const axisMax = Math.min(4, Math.max(1.5, Math.ceil(maxRatio * 2) / 2));
  const scale = (v: number) => LABEL_WIDTH + (Math.min(v, axisMax) / axisMax) * PLOT_WIDTH;
  const overall = report.summary?.peers
    .find((p) => p.column === chartColumn)
    ?.geomeans.find((e) => e.scope === 'all');
  const title = `conv3d: ours (${PEER_MODE[chartColumn]}) / PyTorch ${chartColumn} time per row${report.label ? ` — ${report.label}` : ''}${overall ? ` — geomean ${overall.geomean.toFixed(3)}×` : ''}`;

  const body: string[] = [];
  let y = 50;
  let currentCase: string | null = null;
  for (const row of rows) {
    if (row.case !== currentCase) {
      currentCase = row.case;
      y += 6;
      body.push(`<text x="8" y="${y + 10}" font-weight="bold">${xmlEscape(row.case)}</text>`);
      y += ROW_HEIGHT;
    }
    const label = `${row.dtype} ${row.layout} ${row.pass}`;
    body.push(
      `<text x="${LABEL_WIDTH - 6}" y="${y + 10}" text-anchor="end">${xmlEscape(label)}</text>`,
    );
    const peer = row.peers?.[chartColumn];
    const used = row.torch?.[chartColumn]?.usedCudnn;
    if (peer) {
      const r = peer.ratio;
      const color = r <= 1 ? '#2e7d32' : '#c62828';
      const opacity = peer.verdict === 'parity' ? 0.45 : used === false ? 0.35 : 1;
      const width = Math.max(1, scale(r) - LABEL_WIDTH);
      const clipped = r > axisMax;
      body.push(
        `<rect x="${LABEL_WIDTH}" y="${y}" width="${width.toFixed(1)}" height="${BAR_HEIGHT}" fill="${color}" fill-opacity="${opacity}"><title>${xmlEscape(`${row.id}: ${r.toFixed(3)}×`)}</title></rect>`,
      );
      const suffix = `${clipped ? '▶ ' : ''}${r.toFixed(2)}× ${peer.verdict}${used === false ? ' (torch: no cuDNN)' : ''}`;
      body.push(`<text x="${(scale(r) + 4).toFixed(1)}" y="${y + 10}">${xmlEscape(suffix)}</text>`);
    } else {
      const why = row.bestMs === undefined ? 'no time from us' : 'no time from PyTorch';
      body.push(
        `<text x="${LABEL_WIDTH + 4}" y="${y + 10}" fill="#777">${xmlEscape(`n/a (${why})`)}</text>`,
      );
    }
    y += ROW_HEIGHT;
  }
  const plotBottom = y + 4;
  const height = plotBottom + 30;
  const width = LABEL_WIDTH + PLOT_WIDTH + RIGHT_MARGIN;

  const axis: string[] = [];
  for (let t = 0; t <= axisMax + 1e-9; t += 0.5) {
    const x = scale(t).toFixed(1);
    axis.push(`<line x1="${x}" y1="40" x2="${x}" y2="${plotBottom}" stroke="#ddd"/>`);
    axis.push(`<text x="${x}" y="${plotBottom + 16}" text-anchor="middle">${t.toFixed(1)}×</text>`);
  }
  const one = scale(1).toFixed(1);
  axis.push(
    `<line x1="${one}" y1="36" x2="${one}" y2="${plotBottom}" stroke="#000" stroke-width="1.5" stroke-dasharray="4 3"/>`,
  );
  axis.push(`<text x="${one}" y="34" text-anchor="middle">1.0 = PyTorch</text>`);

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="8" y="18" font-size="14" font-weight="bold">${xmlEscape(title)}</text>`,
    ...axis,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
