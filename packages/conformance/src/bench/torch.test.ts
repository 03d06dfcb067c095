import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InvalidArgumentError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { toFileCase } from '../suite/load.js';
import { BIG, SMALL } from './fixtures.test-helpers.js';
import { outputDims } from './math.js';
import {
  buildTorchJob,
  findTorchScript,
  formatCudnnVersion,
  lineReader,
  parseTorchResults,
  spawnTorchScript,
} from './torch.js';
import type { BenchGroup } from './types.js';

const groups: BenchGroup[] = [
  { case: SMALL, dtype: 'f16', layout: 'ndhwc', passes: ['fw', 'bwData'], sets: 64 },
  { case: { ...BIG, groups: 8 }, dtype: 'tf32', layout: 'ncdhw', passes: ['bwFilter'], sets: 1 },
];
const scriptPath = path.resolve(__dirname, '../../bench/torch_conv3d_bench.py');

describe('buildTorchJob', () => {
  it('lists every row with the suite spelling, the same reps and rotation sets', () => {
    const job = buildTorchJob(groups, { label: 'system', warmup: 5, reps: 30, timeBudgetS: 0 });
    expect(job.version).toBe(1);
    expect(job.column).toBe('tuned');
    expect(
      buildTorchJob(groups, { label: 'x', warmup: 1, reps: 1, timeBudgetS: 0, column: 'default' })
        .column,
    ).toBe('default');
    // Host overhead: every pass on both layouts of a strict and a half dtype.
    expect(job.overhead.map((o) => `${o.dtype} ${o.layout} ${o.pass}`)).toHaveLength(16);
    expect(new Set(job.overhead.map((o) => o.layout))).toEqual(new Set(['ncdhw', 'ndhwc']));
    expect(new Set(job.overhead.map((o) => o.pass))).toEqual(
      new Set(['fw', 'bwData', 'bwFilter', 'bwStep']),
    );
    expect(job.rows.map((r) => [r.id, r.sets])).toEqual([
      ['small|f16|ndhwc|fw', 64],
      ['small|f16|ndhwc|bwData', 64],
      ['big|tf32|ncdhw|bwFilter', 1],
    ]);
    expect(job.rows[2]!.case).toEqual({
      name: 'big',
      n: 8,
      c_in: 64,
      c_out: 128,
      in: [16, 56, 56],
      k: [3, 3, 3],
      pad: [1, 1, 1],
      stride: [1, 1, 1],
      dil: [1, 1, 1],
      groups: 8,
    });
    expect(
      job.overhead
        .filter((o) => o.pass === 'fw')
        .map((o) => [o.dtype, o.layout, o.calls, o.trials]),
    ).toEqual([
      ['f32', 'ncdhw', 1000, 5],
      ['f32', 'ndhwc', 1000, 5],
      ['f16', 'ncdhw', 1000, 5],
      ['f16', 'ndhwc', 1000, 5],
    ]);
  });
});

describe('torch_conv3d_bench.py set-up (static)', () => {
  const source = readFileSync(path.resolve(__dirname, '../../bench/torch_conv3d_bench.py'), 'utf8');
  // The code after the module docstring (which says why there is no profiler).
  const code = source.slice(source.indexOf('"""', source.indexOf('"""') + 3) + 3);

  it('imports and calls no profiler anywhere: every process of it times', () => {
    expect(code).not.toMatch(/torch\.profiler|profiler|ProfilerActivity|\bprofile\(/);
    expect(code).not.toMatch(/\bcupti\b|autograd\.profiler/i);
  });

  it('sets the search per column once, for the life of the process', () => {
    const configure = code.slice(
      code.indexOf('def configure_column'),
      code.indexOf('class TorchSide'),
    );
    expect(configure).toContain('cudnn.benchmark = True');
    expect(configure).toContain('cudnn.benchmark_limit = 0');
    expect(configure).toContain('cudnn.benchmark = False');
    // Nothing else in the script touches the search settings.
    expect(code.match(/benchmark(_limit)? = /g)).toHaveLength(3);
  });
});

describe('parseTorchResults', () => {
  it('converts versions, rows and overhead', () => {
    const parsed = parseTorchResults({
      torch: '2.9.1+cu128',
      cuda: '12.8',
      device: 'NVIDIA H200',
      cudnn: {
        version: 91900,
        path: '/x/libcudnn.so.9',
        libraries: ['/x/libcudnn.so.9', 3],
        enabled: true,
        benchmark: true,
        benchmarkLimit: 0,
      },
      column: 'tuned',
      rows: [
        {
          id: 'a|f16|ndhwc|fw',
          status: 'ok',
          medianMs: 0.25,
          reps: 30,
          usedCudnn: true,
          backend: 'ConvBackend.Cudnn',
          firstCallMs: 812.5,
        },
        { id: 'a|f16|ndhwc|bwData', status: 'ok' },
        { id: 'a|f16|ndhwc|bwFilter', status: 'weird', note: 'RuntimeError: OOM' },
        { status: 'ok', medianMs: 1 },
        {
          id: 'b|f32|ncdhw|fw',
          status: 'skipped',
          note: 'time budget of 60 s reached',
          usedCudnn: null,
        },
      ],
      overhead: [
        {
          id: 'tiny',
          dtype: 'f32',
          layout: 'ncdhw',
          pass: 'bwStep',
          column: 'default',
          usPerCall: 31.5,
          trialsUs: [31, 31.5, 40],
        },
        { id: 'tiny', dtype: 'f16', layout: 'ndhwc', usPerCall: 20 },
        'x',
      ],
      errors: ['something odd'],
    });
    expect(parsed.info).toEqual({
      torchVersion: '2.9.1+cu128',
      cudaVersion: '12.8',
      cudnn: { version: '9.19.0', path: '/x/libcudnn.so.9' },
      cudnnLibraries: ['/x/libcudnn.so.9'],
      cudnnEnabled: true,
      device: 'NVIDIA H200',
      column: 'tuned',
      benchmark: true,
      benchmarkLimit: 0,
    });
    expect(parsed.rows).toEqual([
      {
        id: 'a|f16|ndhwc|fw',
        status: 'ok',
        medianMs: 0.25,
        reps: 30,
        usedCudnn: true,
        backend: 'ConvBackend.Cudnn',
        firstCallMs: 812.5,
      },
      { id: 'a|f16|ndhwc|bwData', status: 'error', note: 'no medianMs in the PyTorch results' },
      { id: 'a|f16|ndhwc|bwFilter', status: 'error', note: 'RuntimeError: OOM' },
      {
        id: 'b|f32|ncdhw|fw',
        status: 'skipped',
        usedCudnn: null,
        note: 'time budget of 60 s reached',
      },
    ]);
    expect(parsed.overhead).toEqual([
      {
        id: 'tiny',
        side: 'torch:default',
        dtype: 'f32',
        layout: 'ncdhw',
        pass: 'bwStep',
        usPerCall: 31.5,
        trialsUs: [31, 31.5, 40],
      },
      // A reply that does not say its column or pass: the tuned column's forward (the old format).
      { id: 'tiny', side: 'torch:tuned', dtype: 'f16', layout: 'ndhwc', pass: 'fw', usPerCall: 20 },
    ]);
    expect(parsed.errors).toEqual(['PyTorch row 3 has no id; ignored', 'something odd']);
  });

  it('rejects a result that is not an object with rows', () => {
    expect(() => parseTorchResults([])).toThrow(
      new InvalidArgumentError('PyTorch results', 'an object with a rows array', []),
    );
    expect(() => parseTorchResults({ rows: 3 })).toThrow(
      'Expected an object with a rows array for PyTorch results but received an object',
    );
  });

  it('formats cuDNN integer versions', () => {
    expect(formatCudnnVersion(91900)).toBe('9.19.0');
    expect(formatCudnnVersion(90802)).toBe('9.8.2');
  });
});

describe('findTorchScript', () => {
  it('finds the script from the repo root, the package, or an explicit path', () => {
    const repoRoot = path.resolve(__dirname, '../../../..');
    expect(findTorchScript(undefined, repoRoot, '/nowhere').path).toBe(scriptPath);
    expect(findTorchScript(undefined, path.resolve(__dirname, '../..'), '/nowhere').path).toBe(
      scriptPath,
    );
    expect(findTorchScript(scriptPath, '/').path).toBe(scriptPath);
    const missing = findTorchScript('nope.py', '/tmp');
    expect(missing.path).toBeNull();
    expect(missing.searched).toEqual(['/tmp/nope.py']);
  });
});

describe('lineReader', () => {
  it('hands on whole lines, however the chunks split them, and the rest on flush', () => {
    const lines: string[] = [];
    const reader = lineReader((l) => lines.push(l));
    reader.push('a\nb\nc');
    reader.push('d\n\ne');
    expect(lines).toEqual(['a', 'b', 'cd', '']);
    reader.flush();
    reader.flush();
    expect(lines).toEqual(['a', 'b', 'cd', '', 'e']);
  });
});

describe('spawnTorchScript', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-torch-'));
  it('runs the child asynchronously, forwards its lines and waits for its results', async () => {
    const fake = path.join(dir, 'fake.js');
    writeFileSync(
      fake,
      `const fs = require('fs');
const [job, flag, out] = process.argv.slice(2);
const parsed = JSON.parse(fs.readFileSync(job, 'utf8'));
console.error('[1/1] ' + parsed.rows.length + ' rows');
fs.writeFileSync(out, JSON.stringify({ rows: parsed.rows.map((r) => ({ id: r.id, status: 'ok', medianMs: 1 })) }));
process.stdout.write('no newline at end');
`,
    );
    const jobPath = path.join(dir, 'job.json');
    const resultPath = path.join(dir, 'out.json');
    writeFileSync(
      jobPath,
      JSON.stringify(buildTorchJob(groups, { label: '', warmup: 1, reps: 2, timeBudgetS: 0 })),
    );
    const lines: string[] = [];
    let ticked = false;
    const tick = setTimeout(() => {
      ticked = true;
    }, 0);
    const outcome = await spawnTorchScript(
      process.execPath,
      fake,
      jobPath,
      resultPath,
      20_000,
      (l) => lines.push(l),
    );
    clearTimeout(tick);
    expect(ticked).toBe(true);
    expect(outcome).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
    expect(lines).toContain('[1/1] 3 rows');
    expect(lines).toContain('no newline at end');
  });

  it('kills a child that runs past the timeout', async () => {
    const slow = path.join(dir, 'slow.js');
    writeFileSync(slow, 'setTimeout(() => {}, 60_000);');
    const outcome = await spawnTorchScript(process.execPath, slow, 'j', 'o', 200);
    expect(outcome.timedOut).toBe(true);
    expect(outcome.signal).toBe('SIGKILL');
  });

  it('says how to fix a missing interpreter', async () => {
    const outcome = await spawnTorchScript('/no/such/python3', 'x.py', 'j', 'o', 5_000);
    expect(outcome.spawnError).toBe(
      '/no/such/python3 was not found; pass --python with the interpreter that has torch',
    );
  });
});

const python = spawnSync('python3', ['--version']).status === 0;
describe.skipIf(!python)('torch_conv3d_bench.py --check-job (needs python3, not torch)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-job-'));
  it('accepts the job the Node side writes and agrees on ids and output dims', () => {
    const jobPath = path.join(dir, 'job.json');
    writeFileSync(
      jobPath,
      JSON.stringify(buildTorchJob(groups, { label: 'x', warmup: 1, reps: 2, timeBudgetS: 0 })),
    );
    const run = spawnSync('python3', [scriptPath, jobPath, '--check-job'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary.rows).toBe(3);
    expect(summary.groups).toBe(2);
    expect(summary.overhead).toBe(16);
    expect(summary.ids).toEqual([
      'small|f16|ndhwc|fw',
      'small|f16|ndhwc|bwData',
      'big|tf32|ncdhw|bwFilter',
    ]);
    expect(summary.outputDims).toEqual({ small: outputDims(SMALL), big: outputDims(BIG) });
    expect(toFileCase(SMALL).c_in).toBe(16);
  });

  it('torch_profile_row.py takes a suite case checked as a job case, and names what is wrong', () => {
    const profile = path.join(path.dirname(scriptPath), 'torch_profile_row.py');
    const suitePath = path.join(dir, 'suite.json');
    const good = { name: 'ok', n: 1, c_in: 2, c_out: 2, in: [2, 2, 2], k: [1, 1, 1] };
    const bad = { ...good, name: 'bad', c_in: 0 };
    const full = { pad: [0, 0, 0], stride: [1, 1, 1], dil: [1, 1, 1] };
    writeFileSync(
      suitePath,
      JSON.stringify({
        cases: [
          { ...good, ...full },
          { ...bad, ...full },
        ],
      }),
    );
    const profileRun = (name: string) =>
      spawnSync('python3', [profile, suitePath, name, 'f32', 'ncdhw', 'fw'], { encoding: 'utf8' });
    const missing = profileRun('nope');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe(`no case 'nope' in ${suitePath}\n`);
    const wrong = profileRun('bad');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toBe('Expected a positive integer for bad.c_in but received 0\n');
  });

  it('torch_pointwise_forms.py takes only 1x1x1, stride-1, unpadded, ungrouped cases, and names what is wrong', () => {
    const forms = path.join(path.dirname(scriptPath), 'torch_pointwise_forms.py');
    const suitePath = path.join(dir, 'forms-suite.json');
    const full = { pad: [0, 0, 0], stride: [1, 1, 1], dil: [1, 1, 1] };
    const good = { name: 'ok', n: 1, c_in: 2, c_out: 2, in: [2, 2, 2], k: [1, 1, 1], ...full };
    writeFileSync(
      suitePath,
      JSON.stringify({
        cases: [good, { ...good, name: 'k3', k: [3, 3, 3], pad: [1, 1, 1] }],
      }),
    );
    const run = (spec: string) =>
      spawnSync('python3', [forms, suitePath, spec], { encoding: 'utf8' });
    const cases: [string, string][] = [
      ['k3:f32:ncdhw:2', 'k3 is not a 1x1x1, stride-1, unpadded, ungrouped case\n'],
      ['nope:f32:ncdhw:2', `no case 'nope' in ${suitePath}\n`],
      ['ok:f32:ncdhw', "expected CASE:DTYPE:LAYOUT:SETS but received 'ok:f32:ncdhw'\n"],
      [
        'ok:f8:ncdhw:2',
        "expected a dtype of f32, tf32, f16, bf16, f64 and a layout of ncdhw, ndhwc in 'ok:f8:ncdhw:2'\n",
      ],
      ['ok:f32:ncdhw:0', "expected a positive number of sets in 'ok:f32:ncdhw:0'\n"],
    ];
    for (const [spec, message] of cases) {
      const result = run(spec);
      expect([result.status, result.stderr], spec).toEqual([2, message]);
    }
  });

  it('rejects a bad job naming the field', () => {
    const jobPath = path.join(dir, 'bad.json');
    const job = buildTorchJob(groups, { label: 'x', warmup: 1, reps: 2, timeBudgetS: 0 });
    (job.rows[1] as { pass: string }).pass = 'sideways';
    writeFileSync(jobPath, JSON.stringify(job));
    const run = spawnSync('python3', [scriptPath, jobPath, '--check-job'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      "Expected one of fw, bwData, bwFilter, bwStep for rows[1].pass but received 'sideways'",
    );
  });
});
