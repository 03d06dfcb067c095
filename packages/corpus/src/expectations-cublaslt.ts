/**
 * What the slots of the cublaslt-sys targets accept (see expectations.ts, which spreads these into
 * SLOT_KINDS). The binding's TypeError and a non-zero cublasStatus_t count as refusals; an
 * attribute value of the wrong size is refused by cuBLASLt's status (the binding passes
 * `byteLength` as sizeInBytes).
 */
import type { SlotKind } from './expectations.js';

const BYTES_BAD = [
  'u8',
  'u8Empty',
  'dataView',
  'sharedU8',
  'sharedDataView',
  'detachedU8',
  'detachedDataView',
  'arrayBuffer',
  'sharedArrayBuffer',
  'nodeBuffer',
  'f32View',
  'f64View',
  'i32Proxy',
];
const EXTRA_OK = [
  'undefined',
  'string',
  'object',
  'bigint1',
  'nan',
  'ltHandle',
  'ltHandleDestroyed',
];

export const CUBLASLT_SLOT_KINDS: Record<string, SlotKind> = {
  ltHandle: {
    extras: ['ltHandleDestroyed', 'ltHandleProtoMimic', 'matmulDesc', 'pref', 'stream0'],
    accepts: [],
  },
  ltMatmulDesc: { extras: ['matmulDescDestroyed', 'layout', 'ltHandle', 'stream0'], accepts: [] },
  ltLayout: {
    extras: ['layoutDestroyed', 'matmulDesc', 'pref', 'layoutEmptyDestroyed'],
    accepts: [],
  },
  ltPref: { extras: ['prefDestroyed', 'layout', 'ltHandle'], accepts: [] },
  /** An int32 attribute (4 bytes): any 4-byte view is its value. */
  ltInt32Value: {
    extras: [
      ...BYTES_BAD,
      'i32Zero',
      'i32Shared',
      'i32GettersThrow',
      'u8Four',
      'dataView4',
      'i64View',
    ],
    accepts: ['i32Zero', 'i32Shared', 'i32GettersThrow', 'u8Four', 'dataView4'],
    reentrant: true,
  },
  /** A 64-bit attribute (8 bytes). */
  ltInt64Value: {
    extras: [...BYTES_BAD, 'u64Zero', 'u64Shared', 'i64View', 'dataView8', 'i32Zero'],
    accepts: ['u64Zero', 'u64Shared', 'i64View', 'dataView8'],
    reentrant: true,
  },
  /** Rows and columns: non-negative safe integers (cuBLASLt takes uint64). */
  ltExtent: {
    extras: ['pow31minus1', 'pow40'],
    accepts: ['zero', 'one', 'pow31', 'pow31minus1', 'pow32', 'pow40'],
  },
  /** The leading dimension: a safe integer (int64; cuBLASLt judges it against the shape later). */
  ltLd: {
    extras: ['pow31minus1', 'pow40'],
    accepts: ['zero', 'one', 'negative', 'pow31', 'pow31minus1', 'pow32', 'pow40'],
  },
  ltRequested: {
    extras: ['two', 'n256', 'n1024', 'n1025'],
    accepts: ['one', 'two', 'n256', 'n1024'],
  },
  /** alpha and beta: a Float32Array or Float64Array holding the scalar. */
  ltScalar: {
    extras: [
      'f32One',
      'f64One',
      'f32Zero',
      'f32Empty',
      'u8One',
      'sharedF32',
      'f64Shared',
      'detachedF32',
      'i64View',
      ...BYTES_BAD,
    ],
    accepts: ['f32One', 'f64One', 'f32Zero', 'sharedF32', 'f64Shared', 'f32View', 'f64View'],
    reentrant: true,
  },
  ltAlgo: {
    extras: [
      'algoHeuristic',
      'algoZeros',
      'algoShared',
      'algoBuffer',
      'algoShort',
      'algoLong',
      'algoI8',
      'algoU64',
      'detachedU8',
      'u8',
    ],
    accepts: ['null', 'algoHeuristic', 'algoZeros', 'algoShared', 'algoBuffer'],
  },
  /** One argument too many: ignored, whatever it is. */
  ltExtraArg: { universal: false, extras: EXTRA_OK, accepts: EXTRA_OK },
};
