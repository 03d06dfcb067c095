/**
 * NCCL's enums, from the documented values (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/types.html).
 * `constants.test.ts` checks them against the addon's table (`native/nccl_decls.h`), which
 * `native/abi_check.cc` proves against `<nccl.h>`.
 */

/** `ncclResult_t`. */
export const ncclResult = Object.freeze({
  ncclSuccess: 0,
  ncclUnhandledCudaError: 1,
  ncclSystemError: 2,
  ncclInternalError: 3,
  ncclInvalidArgument: 4,
  ncclInvalidUsage: 5,
  ncclRemoteError: 6,
  ncclInProgress: 7,
} as const);

/** `ncclRedOp_t` (the built-in operations). */
export const ncclRedOp = Object.freeze({
  ncclSum: 0,
  ncclProd: 1,
  ncclMax: 2,
  ncclMin: 3,
  ncclAvg: 4,
} as const);

/** `ncclDataType_t` (up to bfloat16, NCCL 2.10). */
export const ncclDataType = Object.freeze({
  ncclInt8: 0,
  ncclUint8: 1,
  ncclInt32: 2,
  ncclUint32: 3,
  ncclInt64: 4,
  ncclUint64: 5,
  ncclFloat16: 6,
  ncclFloat32: 7,
  ncclFloat64: 8,
  ncclBfloat16: 9,
} as const);

/** `NCCL_UNIQUE_ID_BYTES`: the size of an `ncclUniqueId`. */
export const NCCL_UNIQUE_ID_BYTES = 128;

const RESULT_NAMES: readonly string[] = Object.keys(ncclResult);

/**
 * The name of an `ncclResult_t`, e.g. 2 → `ncclSystemError`; `ncclResult_t(99)` when unknown. A
 * value that is not an int32 is a TypeError / RangeError, as the addon's arguments are.
 */
export function ncclResultName(result: number): string {
  if (typeof result !== 'number' || !Number.isInteger(result)) {
    const what = typeof result === 'number' ? String(result) : `a value of type ${typeof result}`;
    throw new TypeError(`Expected an int32 for result but received ${what}`);
  }
  if (result < -(2 ** 31) || result > 2 ** 31 - 1) {
    throw new RangeError(
      `Expected an int32 from -2147483648 to 2147483647 for result but received ${result}`,
    );
  }
  return result >= 0 && result < RESULT_NAMES.length
    ? (RESULT_NAMES[result] as string)
    : `ncclResult_t(${result})`;
}
