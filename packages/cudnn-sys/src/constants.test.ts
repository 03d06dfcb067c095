import { describe, expect, it } from 'vitest';
import * as constants from './constants.js';
import { cudnnEnums, cudnnStatusName } from './constants.js';
import { nativeConstants } from './index.js';

const tsConstants = Object.entries(constants as Record<string, unknown>).filter(
  (entry): entry is [string, number] => typeof entry[1] === 'number',
);

describe('constants', () => {
  it('match the C++ table one by one (which abi_check.cc proves against <cudnn.h>)', () => {
    const native = nativeConstants();
    expect(tsConstants.length).toBeGreaterThan(300);
    for (const [name, value] of tsConstants) {
      expect(native[name], name).toBe(value);
    }
    // And the C++ table has nothing TypeScript lacks.
    expect(Object.keys(native).sort()).toEqual(tsConstants.map(([name]) => name).sort());
  });

  it('group every constant under its C enum exactly once', () => {
    const grouped = Object.values(cudnnEnums).flatMap((group) => Object.keys(group));
    expect(new Set(grouped).size).toBe(grouped.length);
    expect(grouped.length + 1).toBe(tsConstants.length); // + CUDNN_DIM_MAX
  });

  it('have the cuDNN 9 values the kernels rely on', () => {
    expect(constants.CUDNN_STATUS_SUCCESS).toBe(0);
    expect(constants.CUDNN_STATUS_BAD_PARAM_NULL_POINTER).toBe(2002);
    expect(constants.CUDNN_DATA_BFLOAT16).toBe(9);
    expect(constants.CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR).toBe(12);
    expect(constants.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY).toBe(717);
    expect(constants.CUDNN_TYPE_RNG_DISTRIBUTION).toBe(29);
  });

  it('name statuses, preferring current names over deprecated aliases', () => {
    expect(cudnnStatusName(0)).toBe('CUDNN_STATUS_SUCCESS');
    expect(cudnnStatusName(3000)).toBe('CUDNN_STATUS_NOT_SUPPORTED');
    expect(cudnnStatusName(4003)).toBe('CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED');
    expect(cudnnStatusName(2001)).toBe('CUDNN_STATUS_INVALID_VALUE');
    expect(cudnnStatusName(3999)).toBe('CUDNN_STATUS_NOT_SUPPORTED (3999)');
    expect(cudnnStatusName(-5)).toBe('CUDNN_STATUS_UNKNOWN (-5)');
  });
});
