/** The element kinds and reduction operations NCCL runs, and their NCCL enum values. */

import { ncclDataType, ncclRedOp } from '@baracuda/nccl-sys';
import { type ElementKind, elementInfo, InvalidArgumentError } from '@baracuda/types';

/** The element kinds NCCL moves and reduces (NCCL has no 16-bit integers and no bool). */
export type CollectiveKind = Extract<
  ElementKind,
  'f16' | 'bf16' | 'f32' | 'f64' | 'i8' | 'u8' | 'i32' | 'u32' | 'i64' | 'u64'
>;

/** A reduction: `avg` is the sum divided by the number of ranks (NCCL 2.10+). */
export type ReduceOp = 'sum' | 'prod' | 'max' | 'min' | 'avg';

const DATA_TYPES: Readonly<Record<CollectiveKind, number>> = Object.freeze({
  f16: ncclDataType.ncclFloat16,
  bf16: ncclDataType.ncclBfloat16,
  f32: ncclDataType.ncclFloat32,
  f64: ncclDataType.ncclFloat64,
  i8: ncclDataType.ncclInt8,
  u8: ncclDataType.ncclUint8,
  i32: ncclDataType.ncclInt32,
  u32: ncclDataType.ncclUint32,
  i64: ncclDataType.ncclInt64,
  u64: ncclDataType.ncclUint64,
});

const OPS: Readonly<Record<ReduceOp, number>> = Object.freeze({
  sum: ncclRedOp.ncclSum,
  prod: ncclRedOp.ncclProd,
  max: ncclRedOp.ncclMax,
  min: ncclRedOp.ncclMin,
  avg: ncclRedOp.ncclAvg,
});

/** Every {@link CollectiveKind}, in the order error messages list them. */
export const COLLECTIVE_KINDS: readonly CollectiveKind[] = Object.freeze(
  Object.keys(DATA_TYPES) as CollectiveKind[],
);
/** Every {@link ReduceOp}. */
export const REDUCE_OPS: readonly ReduceOp[] = Object.freeze(Object.keys(OPS) as ReduceOp[]);

/** @internal The checked kind, its NCCL data type and its byte size. */
export function collectiveKind(
  name: string,
  value: unknown,
): { kind: CollectiveKind; dataType: number; byteSize: number } {
  if (typeof value !== 'string' || !Object.hasOwn(DATA_TYPES, value)) {
    throw new InvalidArgumentError(
      name,
      `one of ${COLLECTIVE_KINDS.join(', ')} (the element kinds NCCL reduces)`,
      value,
    );
  }
  const kind = value as CollectiveKind;
  return { kind, dataType: DATA_TYPES[kind], byteSize: elementInfo(kind).byteSize };
}

/** @internal The checked op and its NCCL value. */
export function reduceOp(name: string, value: unknown): number {
  if (typeof value !== 'string' || !Object.hasOwn(OPS, value)) {
    throw new InvalidArgumentError(name, `one of ${REDUCE_OPS.join(', ')}`, value);
  }
  return OPS[value as ReduceOp];
}
