/**
 * @baracuda/cublaslt-sys: every raw function, against the fake libcublasLt.so.13. Each function is
 * a row: its arguments as [slot kind, valid value]; a value given by name is made by VALUES below
 * (a fresh object per case). The matmul problem has m = 0 (A and C/D are 0×4), so the fake's
 * cublasLtMatmul never reads or writes the (possibly wild) pointers a case passes. Re-entrant
 * values destroy the call's first argument mid-call. Each function also has an `~extra` variant
 * whose one argument too many is swept (and must be ignored).
 */
import * as sys from '@baracuda/cublaslt-sys';
import type { Fixtures, PackageCorpus } from '../model.js';
import { track } from '../track.js';
import type { ValueMaker } from '../values.js';
import { arg, fixture, type TargetSpec, targetsOf } from './build.js';
import { DRIVER_VALUES } from './driver-values.js';

type Raw = (...args: unknown[]) => unknown;
const raw = sys as unknown as Record<string, Raw>;
const { CUDA_R_32F } = sys.cudaDataType;
const LAYOUT = sys.cublasLtMatrixLayoutAttribute;

/** Each object kind: how to create one and which function destroys it. */
const KINDS: Record<string, { create: () => unknown; destroy: string }> = {
  ltHandle: {
    create: () => sys.cublasLtCreate().lightHandle,
    destroy: 'cublasLtDestroy',
  },
  matmulDesc: {
    create: () =>
      sys.cublasLtMatmulDescCreate(sys.cublasComputeType.CUBLAS_COMPUTE_32F, CUDA_R_32F).matmulDesc,
    destroy: 'cublasLtMatmulDescDestroy',
  },
  /** 4×4 (B's shape). */
  layout: {
    create: () => sys.cublasLtMatrixLayoutCreate(CUDA_R_32F, 4, 4, 4).matLayout,
    destroy: 'cublasLtMatrixLayoutDestroy',
  },
  /** 0×4 (A's, C's and D's shape: m = 0, so the fake's matmul touches no element). */
  layoutEmpty: {
    create: () => sys.cublasLtMatrixLayoutCreate(CUDA_R_32F, 0, 4, 1).matLayout,
    destroy: 'cublasLtMatrixLayoutDestroy',
  },
  pref: {
    create: () => sys.cublasLtMatmulPreferenceCreate().pref,
    destroy: 'cublasLtMatmulPreferenceDestroy',
  },
};

const live = new WeakSet<object>();

function destroy(kind: string, object: unknown): void {
  if (object === null || typeof object !== 'object' || !live.has(object)) return;
  live.delete(object);
  raw[KINDS[kind]!.destroy]!(object);
}

function make(f: Fixtures, kind: string): object {
  const object = KINDS[kind]!.create();
  if (object === null || typeof object !== 'object') {
    throw new Error(`corpus: creating a ${kind} on the fake cuBLASLt returned ${String(object)}`);
  }
  live.add(object);
  track(f, object, (o) => destroy(kind, o));
  return object;
}

/** What the fake's heuristic answers for the row's problem: a real 64-byte algorithm. */
function heuristicAlgo(f: Fixtures): Uint8Array {
  const found = sys.cublasLtMatmulAlgoGetHeuristic(
    make(f, 'ltHandle') as sys.CublasLtHandle,
    make(f, 'matmulDesc') as sys.CublasLtMatmulDesc,
    make(f, 'layoutEmpty') as sys.CublasLtMatrixLayout,
    make(f, 'layout') as sys.CublasLtMatrixLayout,
    make(f, 'layoutEmpty') as sys.CublasLtMatrixLayout,
    make(f, 'layoutEmpty') as sys.CublasLtMatrixLayout,
    make(f, 'pref') as sys.CublasLtMatmulPreference,
    1,
  );
  const algo = found.heuristicResultsArray[0]?.algo;
  if (found.status !== 0 || algo === undefined) {
    throw new Error(`corpus: the fake cuBLASLt's heuristic returned status ${found.status}`);
  }
  return algo;
}

/** A real Int32Array whose JS-visible length, byteLength and buffer getters throw. */
function i32GettersThrow(): Int32Array {
  const view = new Int32Array(1);
  for (const key of ['length', 'byteLength', 'byteOffset', 'buffer']) {
    Object.defineProperty(view, key, {
      get() {
        throw new Error(`corpus: the getter of ${key} threw`);
      },
    });
  }
  return view;
}

const VALUES: Record<string, ValueMaker> = {
  ...DRIVER_VALUES,
  n1024: () => 1024,
  n1025: () => 1025,
  ltHandleProtoMimic: (ctx) =>
    Object.create(Object.getPrototypeOf(make(ctx.fixtures, 'ltHandle')) as object) as unknown,
  i32Zero: () => new Int32Array(1),
  i32Shared: () => new Int32Array(new SharedArrayBuffer(4)),
  i32Proxy: () =>
    new Proxy(new Int32Array(1), {
      get() {
        throw new Error('corpus: the proxy trap threw');
      },
    }),
  i32GettersThrow,
  u64Zero: () => new BigUint64Array(1),
  u64Shared: () => new BigUint64Array(new SharedArrayBuffer(8)),
  i64View: () => new BigInt64Array(1),
  u8Four: () => new Uint8Array(4),
  dataView4: () => new DataView(new ArrayBuffer(4)),
  dataView8: () => new DataView(new ArrayBuffer(8)),
  f32Zero: () => new Float32Array(1),
  f64Shared: () => new Float64Array(new SharedArrayBuffer(8)),
  algoHeuristic: (ctx) => heuristicAlgo(ctx.fixtures),
  algoZeros: () => new Uint8Array(sys.CUBLASLT_ALGO_BYTES),
  algoShared: () => new Uint8Array(new SharedArrayBuffer(sys.CUBLASLT_ALGO_BYTES)),
  algoBuffer: () => Buffer.alloc(sys.CUBLASLT_ALGO_BYTES),
  algoShort: () => new Uint8Array(sys.CUBLASLT_ALGO_BYTES - 1),
  algoLong: () => new Uint8Array(sys.CUBLASLT_ALGO_BYTES + 1),
  algoI8: () => new Int8Array(sys.CUBLASLT_ALGO_BYTES),
  algoU64: () => new BigUint64Array(sys.CUBLASLT_ALGO_BYTES / 8),
};
for (const kind of Object.keys(KINDS)) {
  VALUES[kind] = (ctx) => make(ctx.fixtures, kind);
  VALUES[`${kind}Destroyed`] = (ctx) => {
    const object = make(ctx.fixtures, kind);
    destroy(kind, object);
    return object;
  };
}

type Row = [kind: string, valid: unknown];
const H: Row = ['ltHandle', 'ltHandle'];
const MD: Row = ['ltMatmulDesc', 'matmulDesc'];
const LB: Row = ['ltLayout', 'layout'];
const LE: Row = ['ltLayout', 'layoutEmpty'];
const PR: Row = ['ltPref', 'pref'];
const PTR: Row = ['voidPtr', 0x1000n];
const I = (value: number): Row => ['i32', value];

/** A raw function and its arguments, each [slot kind, valid value or a fixture name / maker]. */
const ROWS: [name: string, args: Row[]][] = [
  ['cublasLtGetVersion', []],
  ['cublasLtGetStatusString', [I(7)]],
  ['cublasLtCreate', []],
  ['cublasLtDestroy', [H]],
  ['cublasLtMatmulDescCreate', [I(sys.cublasComputeType.CUBLAS_COMPUTE_32F), I(CUDA_R_32F)]],
  [
    'cublasLtMatmulDescSetAttribute',
    [
      MD,
      I(sys.cublasLtMatmulDescAttributes.CUBLASLT_MATMUL_DESC_TRANSA),
      ['ltInt32Value', () => new Int32Array(1)],
    ],
  ],
  ['cublasLtMatmulDescDestroy', [MD]],
  ['cublasLtMatrixLayoutCreate', [I(CUDA_R_32F), ['ltExtent', 4], ['ltExtent', 4], ['ltLd', 4]]],
  [
    'cublasLtMatrixLayoutSetAttribute',
    [LB, I(LAYOUT.CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT), ['ltInt32Value', () => new Int32Array([1])]],
  ],
  [
    'cublasLtMatrixLayoutSetAttribute~stride',
    [
      LB,
      I(LAYOUT.CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET),
      ['ltInt64Value', () => new BigInt64Array(1)],
    ],
  ],
  ['cublasLtMatrixLayoutDestroy', [LB]],
  ['cublasLtMatmulPreferenceCreate', []],
  [
    'cublasLtMatmulPreferenceSetAttribute',
    [
      PR,
      I(sys.cublasLtMatmulPreferenceAttributes.CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES),
      ['ltInt64Value', () => new BigUint64Array(1)],
    ],
  ],
  ['cublasLtMatmulPreferenceDestroy', [PR]],
  ['cublasLtMatmulAlgoGetHeuristic', [H, MD, LE, LB, LE, LE, PR, ['ltRequested', 1]]],
  [
    'cublasLtMatmul',
    [
      H,
      MD,
      ['ltScalar', () => new Float32Array([1])],
      PTR,
      LE,
      PTR,
      LB,
      ['ltScalar', () => new Float32Array([0])],
      PTR,
      LE,
      PTR,
      LE,
      ['ltAlgo', null],
      ['voidPtr', 0n],
      ['sizeT', 0],
      ['voidPtr', 0n],
    ],
  ],
];

/** The first argument, when it is a cuBLASLt object: what a re-entrant value destroys. */
function victimOf(rows: Row[], args: unknown[]): (() => void) | undefined {
  const fixtureName = rows[0]?.[1];
  if (typeof fixtureName !== 'string' || !(fixtureName in KINDS)) return undefined;
  return () => destroy(fixtureName, args[0]);
}

const CREATED: Record<string, string> = {
  lightHandle: 'ltHandle',
  matmulDesc: 'matmulDesc',
  matLayout: 'layout',
  pref: 'pref',
};

/** Destroys, after the case, what a create call returned. */
function freeCreated(f: Fixtures, result: unknown): void {
  if (typeof result !== 'object' || result === null) return;
  for (const [field, kind] of Object.entries(CREATED)) {
    const object = (result as Record<string, unknown>)[field];
    if (typeof object === 'object' && object !== null) {
      live.add(object);
      track(f, object, (o) => destroy(kind, o));
    }
  }
}

function rowSpec(id: string, rows: Row[], extra: boolean): TargetSpec {
  const fn = raw[id.replace(/~.*$/, '')]!;
  const kinds = extra ? [...rows, ['ltExtraArg', 'string'] as Row] : rows;
  return {
    id: extra ? `${id}~extra` : id,
    // The ~extra variant sweeps its extra argument only (the others are swept by the plain row).
    slots: extra ? [arg(rows.length, 'ltExtraArg')] : rows.map(([kind], i) => arg(i, kind)),
    hasVictim: victimOf(rows, []) !== undefined,
    prepare: (f) => {
      const args = kinds.map(([kind, valid]) =>
        typeof valid === 'function'
          ? valid()
          : typeof valid === 'string' && kind !== 'ltExtraArg'
            ? fixture(f, valid)
            : valid,
      );
      return {
        self: undefined,
        args,
        call: (_s, a) => {
          const result = fn(...a);
          freeCreated(f, result);
          return result;
        },
        victim: victimOf(rows, args),
      };
    },
  };
}

const SPECS: TargetSpec[] = [
  ...ROWS.map(([id, rows]) => rowSpec(id, rows, false)),
  ...ROWS.filter(([id]) => !id.includes('~')).map(([id, rows]) => rowSpec(id, rows, true)),
  { id: 'probe', prepare: () => ({ self: undefined, args: [], call: () => sys.probe() }) },
  { id: 'load', prepare: () => ({ self: undefined, args: [], call: () => sys.load() }) },
  {
    id: 'nativeConstants',
    prepare: () => ({ self: undefined, args: [], call: () => sys.nativeConstants() }),
  },
  {
    id: 'cublasStatusName',
    slots: [arg(0, 'i32')],
    prepare: () => ({
      self: undefined,
      args: [7],
      call: (_s, a) => sys.cublasStatusName(a[0] as number),
    }),
  },
];

export const CUBLASLT_SYS_CORPUS: PackageCorpus = {
  pkg: 'cublaslt-sys',
  load: async () => ({ values: VALUES }),
  targets: targetsOf('cublaslt-sys', SPECS),
  data: [
    'cublasStatus',
    'cublasComputeType',
    'cudaDataType',
    'cublasOperation',
    'cublasLtMatmulDescAttributes',
    'cublasLtEpilogue',
    'cublasLtMatrixLayoutAttribute',
    'cublasLtOrder',
    'cublasLtMatmulPreferenceAttributes',
    'CUBLASLT_ALGO_BYTES',
    'CUBLAS_DOCS',
  ],
};
