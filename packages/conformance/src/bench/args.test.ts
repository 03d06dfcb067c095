import { InvalidArgumentError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { parseBenchArgs, QUICK_CASES } from './args.js';

describe('parseBenchArgs', () => {
  it('has the documented defaults', () => {
    const o = parseBenchArgs([]);
    expect(o.dtypes).toEqual(['f32', 'tf32', 'f16', 'bf16', 'f64']);
    // 3xtf32 only when named.
    expect(parseBenchArgs(['--dtypes', '3xtf32,f32']).dtypes).toEqual(['3xtf32', 'f32']);
    expect(o.layouts).toEqual(['ncdhw', 'ndhwc']);
    expect(o.passes).toEqual(['fw', 'bwData', 'bwFilter', 'bwStep']);
    expect(o.shard).toBeUndefined();
    expect(o.commit).toBeUndefined();
    expect(o.modes).toEqual(['pinned', 'heuristic', 'autotune']);
    expect(o.reps).toBe(30);
    expect(o.warmup).toBe(5);
    expect(o.vsTorch).toBe(false);
    expect(o.python).toBe('python3');
    expect(o.label).toBe('');
    expect(o.cases).toBeUndefined();
    expect(o.f64MaxMacs).toBe(4e9);
    expect(o.pinnedBudgetMs).toBe(1500);
    expect(o.timeBudgetS).toBe(0);
    expect(o.torchTimeoutS).toBe(420);
    expect(o.suite).toBeUndefined();
    expect(o.out).toBeUndefined();
    expect(o.outputs).toBe('shared');
    expect(o.rounds).toBe(1);
    expect(parseBenchArgs(['--rounds', '5']).rounds).toBe(5);
  });

  it('reads every flag, in both --flag value and --flag=value forms', () => {
    const o = parseBenchArgs([
      '--suite',
      's.json',
      '--dtypes=f16,bf16',
      '--layouts',
      'ndhwc',
      '--passes',
      'fw,bwFilter',
      '--algos',
      'heuristic',
      '--reps',
      '40',
      '--warmup=0',
      '--vs-torch',
      '--python',
      '/opt/torch/.venv/bin/python',
      '--torch-script',
      'x.py',
      '--out',
      'res',
      '--label',
      'torch-cudnn',
      '--cases',
      'c3d-conv2, pointwise',
      '--f64-max-macs',
      '1e9',
      '--pinned-budget-ms',
      '250',
      '--time-budget-s',
      '90',
      '--torch-timeout-s',
      '60',
      '--max-workspace-mib',
      '16384',
      '--outputs',
      'rotated',
    ]);
    expect(o).toMatchObject({
      suite: 's.json',
      dtypes: ['f16', 'bf16'],
      layouts: ['ndhwc'],
      passes: ['fw', 'bwFilter'],
      modes: ['heuristic'],
      reps: 40,
      warmup: 0,
      vsTorch: true,
      python: '/opt/torch/.venv/bin/python',
      torchScript: 'x.py',
      out: 'res',
      label: 'torch-cudnn',
      cases: ['c3d-conv2', 'pointwise'],
      f64MaxMacs: 1e9,
      pinnedBudgetMs: 250,
      timeBudgetS: 90,
      torchTimeoutS: 60,
      maxWorkspaceBytes: 16384 * 2 ** 20,
      outputs: 'rotated',
    });
  });

  it('--quick narrows cases and budgets unless overridden', () => {
    const quick = parseBenchArgs(['--quick']);
    expect(quick.cases).toEqual([...QUICK_CASES]);
    expect(quick.warmup).toBe(3);
    expect(quick.pinnedBudgetMs).toBe(500);
    expect(quick.timeBudgetS).toBe(150);
    expect(quick.reps).toBe(30);
    const overridden = parseBenchArgs(['--quick', '--cases', 'dilated', '--time-budget-s', '0']);
    expect(overridden.cases).toEqual(['dilated']);
    expect(overridden.timeBudgetS).toBe(0);
  });

  it('dedupes list entries', () => {
    expect(parseBenchArgs(['--dtypes', 'f16,f16,f32']).dtypes).toEqual(['f16', 'f32']);
  });

  const bad: Array<[string[], string]> = [
    [
      ['--dtypes', 'f8'],
      'Expected one of f32, tf32, 3xtf32, f16, bf16, f64 for --dtypes but received "f8" of type string',
    ],
    [
      ['--dtypes', ','],
      'Expected a comma-separated list of f32, tf32, 3xtf32, f16, bf16, f64 for --dtypes but received "," of type string',
    ],
    [
      ['--layouts', 'nchw'],
      'Expected one of ncdhw, ndhwc for --layouts but received "nchw" of type string',
    ],
    [
      ['--passes', 'bw'],
      'Expected one of fw, bwData, bwFilter, bwStep for --passes but received "bw" of type string',
    ],
    [
      ['--algos', 'fastest'],
      'Expected one of pinned, heuristic, autotune for --algos but received "fastest" of type string',
    ],
    [['--reps', '3.5'], 'Expected a positive integer for --reps but received "3.5" of type string'],
    [['--reps', '0'], 'Expected a positive integer for --reps but received "0" of type string'],
    [
      ['--reps', 'many'],
      'Expected a positive integer for --reps but received "many" of type string',
    ],
    [
      ['--warmup', '-1'],
      'Expected a non-negative integer for --warmup but received "-1" of type string',
    ],
    [
      ['--warmup=-1'],
      'Expected a non-negative integer for --warmup but received "-1" of type string',
    ],
    [
      ['--f64-max-macs', 'NaN'],
      'Expected a non-negative number for --f64-max-macs but received "NaN" of type string',
    ],
    [
      ['--max-workspace-mib', '1.5'],
      'Expected a positive integer for --max-workspace-mib but received "1.5" of type string',
    ],
    [['--rounds', '0'], 'Expected a positive integer for --rounds but received "0" of type string'],
    [
      ['--rounds', '2.5'],
      'Expected a positive integer for --rounds but received "2.5" of type string',
    ],
    [
      ['--rounds', '-3'],
      'Expected a positive integer for --rounds but received "-3" of type string',
    ],
    [
      ['--groups', 'a:b:c,d:e'],
      'Expected a comma-separated list of case:dtype:layout for --groups but received "a:b:c,d:e" of type string',
    ],
    [
      ['--groups', ','],
      'Expected a comma-separated list of case:dtype:layout for --groups but received "," of type string',
    ],
    [
      ['--rounds', '51'],
      'Expected a positive integer up to 50 for --rounds but received 51 of type number',
    ],
    [
      ['--outputs', 'fresh'],
      "Expected 'shared' or 'rotated' for --outputs but received \"fresh\" of type string",
    ],
    [
      ['--pinned-budget-ms', '0'],
      'Expected a positive number for --pinned-budget-ms but received "0" of type string',
    ],
    [['--reps'], 'Expected a value for --reps but received undefined'],
    [
      ['--out', '--vs-torch'],
      'Expected a value for --out but received "--vs-torch" of type string',
    ],
    [
      ['--fast'],
      'Expected a known bench flag (see --help) for argument 1 but received "--fast" of type string',
    ],
    [
      ['c3d'],
      'Expected a flag starting with -- (see --help) for argument 1 but received "c3d" of type string',
    ],
    [['--vs-torch=yes'], 'Expected no value for --vs-torch but received "yes" of type string'],
    [
      ['--label', 'a b'],
      'Expected letters, digits, dot, dash or underscore for --label but received "a b" of type string',
    ],
    [
      ['--cases', ' , '],
      'Expected a comma-separated list of case names for --cases but received " , " of type string',
    ],
    [
      ['--shard', '4/3'],
      'Expected k/M with 1 ≤ k ≤ M ≤ 64 (e.g. 2/3) for --shard but received "4/3" of type string',
    ],
    [
      ['--shard', '0/3'],
      'Expected k/M with 1 ≤ k ≤ M ≤ 64 (e.g. 2/3) for --shard but received "0/3" of type string',
    ],
    [
      ['--shard', '2'],
      'Expected k/M with 1 ≤ k ≤ M ≤ 64 (e.g. 2/3) for --shard but received "2" of type string',
    ],
    [
      ['--tuned-on', 'f16:nhwc'],
      'Expected dtype:layout with a dtype of f32, tf32, 3xtf32, f16, bf16, f64 and a layout of ncdhw, ndhwc for --tuned-on but received "f16:nhwc" of type string',
    ],
    [
      ['--commit', 'HEAD'],
      'Expected a hex commit id of 7 to 40 digits, optionally -dirty for --commit but received "HEAD" of type string',
    ],
  ];
  it.each(bad)('rejects %j with an exact message', (argv, message) => {
    let caught: unknown;
    try {
      parseBenchArgs(argv);
    } catch (error) {
      caught = error;
    }
    expect(InvalidArgumentError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toBe(message);
  });
});

describe('--shard and --commit', () => {
  it('parse k/M and a commit id', () => {
    expect(parseBenchArgs(['--shard', '2/3']).shard).toEqual({ index: 2, count: 3 });
    expect(parseBenchArgs(['--shard=1/1']).shard).toEqual({ index: 1, count: 1 });
    expect(parseBenchArgs(['--commit', '8654548']).commit).toBe('8654548');
    expect(parseBenchArgs(['--tuned-on', 'f16:ndhwc,f32:ncdhw']).tunedOn).toEqual([
      'f16:ndhwc',
      'f32:ncdhw',
    ]);
    expect(parseBenchArgs(['--commit', `${'a'.repeat(40)}-dirty`]).commit).toBe(
      `${'a'.repeat(40)}-dirty`,
    );
  });
});
