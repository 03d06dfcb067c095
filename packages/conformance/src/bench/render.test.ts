import { describe, expect, it } from 'vitest';
import { matchTorch, summarize } from './compare.js';
import { ok, PEAKS, row } from './fixtures.test-helpers.js';
import {
  formatMs,
  mdCell,
  modeCell,
  renderMarkdown,
  renderSvg,
  rowNotes,
  selectionTimes,
  xmlEscape,
} from './render.js';
import type { BenchReport } from './types.js';

function report(withTorch: boolean): BenchReport {
  const plain = [
    row(
      'c3d-conv2|f16|ndhwc|fw',
      [
        { mode: 'pinned', status: 'unsupported', note: 'IMPLICIT_GEMM has no NDHWC | path' },
        ok('heuristic', 0.25),
        ok('autotune', 0.2),
      ],
      {
        bestMs: 0.2,
        bestMode: 'autotune',
        tflops: 444.1,
        floorMs: 0.15,
        floorFraction: 0.75,
      },
    ),
    row(
      'c3d-conv2|bf16|ncdhw|bwData',
      [
        { mode: 'pinned', status: 'skipped', note: 'one call took 335.0 ms' },
        { mode: 'heuristic', status: 'capped', medianMs: 12.5, reps: 4, note: 'slow' },
        ok('autotune', 0.5),
      ],
      {
        bestMs: 0.5,
        bestMode: 'autotune',
      },
    ),
    row('pointwise|f32|ncdhw|bwFilter', [{ mode: 'heuristic', status: 'error', note: 'boom' }]),
  ];
  const rows = withTorch
    ? matchTorch(plain, {
        default: [
          { id: 'c3d-conv2|f16|ndhwc|fw', status: 'ok', medianMs: 0.25, usedCudnn: true },
          {
            id: 'c3d-conv2|bf16|ncdhw|bwData',
            status: 'ok',
            medianMs: 0.1,
            usedCudnn: false,
            backend: 'ConvBackend.Slow3d',
          },
        ],
        tuned: [{ id: 'c3d-conv2|f16|ndhwc|fw', status: 'ok', medianMs: 0.25, usedCudnn: true }],
      })
    : plain;
  const r: BenchReport = {
    label: 'torch-cudnn',
    startedAt: '2026-01-01T00:00:00.000Z',
    device: 'NVIDIA H200 (sm_90, 132 SMs)',
    ours: { cudnn: { version: '9.19.0', path: '/opt/libcudnn.so.9' } },
    settings: {
      reps: 30,
      warmup: 5,
      dtypes: ['f16', 'bf16', 'f32'],
      layouts: ['ncdhw', 'ndhwc'],
      passes: ['fw', 'bwData', 'bwFilter'],
      modes: ['pinned', 'heuristic', 'autotune'],
      f64MaxMacs: 4e9,
      pinnedBudgetMs: 1500,
      rotateBelowBytes: 128 * 2 ** 20,
    },
    peaks: { ...PEAKS, gemmNotes: { f16: 'autotune ndhwc, 0.2500 ms' } },
    overhead: [
      {
        id: 'tiny',
        side: 'ours:heuristic',
        dtype: 'f32',
        layout: 'ncdhw',
        usPerCall: 7.25,
        trialsUs: [7, 7.25, 8],
      },
      {
        id: 'tiny',
        side: 'ours:pinned',
        dtype: 'f16',
        layout: 'ndhwc',
        note: 'unsupported: no NDHWC',
      },
    ],
    rows,
    notes: ['f64 left out: big.'],
  };
  if (withTorch) {
    r.torch = {
      default: {
        torchVersion: '2.9.1+cu128',
        cudaVersion: '12.8',
        cudnn: { version: '9.19.0', path: '/opt/torch/libcudnn.so.9' },
        cudnnLibraries: [],
        cudnnEnabled: true,
        device: 'NVIDIA H200',
        column: 'default',
        benchmark: false,
        benchmarkLimit: 10,
      },
    };
    r.provenance = {
      commit: '8654548',
      date: r.startedAt,
      gpu: r.device,
      driver: '580.159.04',
      cudnnOurs: '9.19.0',
      cudnnTorch: '9.19.0',
    };
    r.summary = summarize(rows);
  }
  return r;
}

describe('cells', () => {
  it('formats milliseconds to about four significant digits', () => {
    expect(formatMs(335.04)).toBe('335.0');
    expect(formatMs(12.345)).toBe('12.35');
    expect(formatMs(1.23456)).toBe('1.235');
    expect(formatMs(0.018)).toBe('0.0180');
  });
  it('escapes markdown and XML', () => {
    expect(mdCell('a|b\n c')).toBe('a\\|b c');
    expect(xmlEscape('<a & "b">')).toBe('&lt;a &amp; &quot;b&quot;&gt;');
  });
  it('shows each mode status', () => {
    expect(modeCell(undefined)).toBe('—');
    expect(modeCell(ok('heuristic', 0.25))).toBe('0.2500');
    expect(modeCell({ mode: 'pinned', status: 'capped', medianMs: 12.5, reps: 4 })).toBe(
      '12.50 (capped, 4 reps)',
    );
    expect(modeCell({ mode: 'pinned', status: 'unsupported' })).toBe('unsupported');
  });
  it('lists why modes did not simply succeed', () => {
    expect(rowNotes(report(false).rows[1]!)).toBe(
      'pinned: skipped (one call took 335.0 ms); heuristic: capped (slow)',
    );
  });
});

describe('renderMarkdown', () => {
  it('without PyTorch: header, peaks, overhead, rows, no torch columns', () => {
    const md = renderMarkdown(report(false));
    expect(md).toContain('# conv3d benchmark — torch-cudnn');
    expect(md).toContain('- cuDNN (ours): 9.19.0 (/opt/libcudnn.so.9)');
    expect(md).toContain('- copy bandwidth: 4.00 TB/s');
    expect(md).toContain('peak achieved by a GEMM-shaped conv');
    expect(md).toContain('  - f16: 600.0 TFLOP/s (autotune ndhwc, 0.2500 ms)');
    expect(md).toContain('| tiny f32 ncdhw | fw | ours:heuristic | 7.3 | 7.0, 7.3, 8.0 |  |');
    expect(md).toContain('- commit: not recorded');
    expect(md).toContain(
      '| case | dtype | layout | pass | pinned ms | heuristic ms | autotune ms | best | TFLOP/s | floor ms | % floor | notes |',
    );
    expect(md).toContain(
      '| c3d-conv2 | f16 | ndhwc | fw | unsupported | 0.2500 | 0.2000 | autotune | 444.1 | 0.1500 | 75% | pinned: unsupported (IMPLICIT_GEMM has no NDHWC \\| path) |',
    );
    expect(md).toContain(
      '| pointwise | f32 | ncdhw | bwFilter | — | error | — | — | — | — | — | heuristic: error (boom) |',
    );
    expect(md).not.toContain('/torch');
    expect(md).not.toContain('## Verdicts');
    expect(md).toContain('- f64 left out: big.');
    // A report from before outputs were recorded rotated them; a shared run says so.
    expect(md).toContain('; our outputs rotated with the inputs;');
    const shared = renderMarkdown({
      ...report(false),
      settings: { ...report(false).settings, outputs: 'shared' },
    });
    expect(shared).toContain('; our outputs one buffer per group, overwritten by every call');
    const mixed = renderMarkdown({
      ...report(false),
      settings: { ...report(false).settings, outputs: 'mixed' },
    });
    expect(mixed).toContain('; our outputs shared in some merged reports, rotated in others');
  });

  it('with PyTorch: versions, both columns, verdicts and geomeans', () => {
    const md = renderMarkdown(report(true));
    expect(md).toContain('- commit: 8654548');
    expect(md).toContain('- device: NVIDIA H200 (sm_90, 132 SMs); driver 580.159.04');
    expect(md).toContain(
      '- PyTorch default: cuDNN 9.19.0 (/opt/torch/libcudnn.so.9); torch 2.9.1+cu128, CUDA 12.8, cudnn.enabled=true, benchmark=false, benchmark_limit=10',
    );
    expect(md).toContain(
      '| torch default ms | torch tuned ms | torch cuDNN | heuristic/torch default | autotune/torch tuned | round spread | notes |',
    );
    // One round: parity, whatever the ratio.
    expect(md).toContain('| 0.2500 | 0.2500 | yes | 1.000× parity | 0.800× parity | 0.00% |');
    expect(md).toContain('| 0.1000 | — | no (ConvBackend.Slow3d) | 125.000× parity | — |');
    expect(md).toContain('| heuristic / torch default | all | 11.180× | 2 |');
    expect(md).toContain('| autotune / torch tuned | all | 0.800× | 1 |');
    expect(md).toContain('- heuristic / torch default: 0 wins, 0 losses, 2 parity');
  });
});

describe('renderSvg', () => {
  it('draws one bar per compared row, a 1.0 line, and n/a for the rest', () => {
    const svg = renderSvg(report(true));
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<rect x=/g)?.length).toBe(2);
    // Both rows are parity (one round): faded.
    expect(svg).toContain('fill="#c62828" fill-opacity="0.45"');
    expect(svg).toContain('stroke-dasharray="4 3"');
    expect(svg).toContain('1.0 = PyTorch');
    expect(svg).toContain('▶ 125.00× parity (torch: no cuDNN)');
    expect(svg).toContain('n/a (no time from us)');
    expect(svg).toContain(
      'ours (heuristic) / PyTorch default time per row — torch-cudnn — geomean 11.180×',
    );
    // Each case heading once.
    expect(svg.match(/font-weight="bold">c3d-conv2</g)?.length).toBe(1);
    // Balanced tags (a cheap well-formedness check).
    const opens = (svg.match(/<(rect|text|line|title)\b/g) ?? []).length;
    const closes = (svg.match(/<\/(rect|text|line|title)>|\/>/g) ?? []).length;
    expect(opens).toBe(closes);
  });
  it('renders without any PyTorch data', () => {
    const svg = renderSvg(report(false));
    expect(svg.match(/<rect x=/g)).toBeNull();
    expect(svg).toContain('n/a (no time from PyTorch)');
  });
});

describe('selectionTimes', () => {
  it('takes one figure per group and mode: count, median, slowest', () => {
    const sel = (mode: 'heuristic' | 'autotune', selectMs: number) => ({
      ...ok(mode, 1),
      selectMs,
    });
    const rows = [
      row('a|f32|ncdhw|fw', [sel('heuristic', 2), sel('autotune', 900)]),
      row('a|f32|ncdhw|bwData', [sel('heuristic', 2), sel('autotune', 900)]),
      row('b|f16|ndhwc|fw', [sel('heuristic', 4), sel('autotune', 100)]),
      row('c|f16|ndhwc|fw', [sel('heuristic', 3), ok('autotune', 1)]),
    ];
    expect(selectionTimes(rows)).toEqual([
      { mode: 'heuristic', groups: 3, medianMs: 3, maxMs: 4, slowest: 'b f16 ndhwc' },
      { mode: 'autotune', groups: 2, medianMs: 500, maxMs: 900, slowest: 'a f32 ncdhw' },
    ]);
    const md = renderMarkdown({ ...report(false), rows });
    expect(md).toContain('| autotune | 2 | 500.0 | 900.0 | a f32 ncdhw |');
    expect(renderMarkdown(report(false))).not.toContain('## Plan selection');
  });
});
