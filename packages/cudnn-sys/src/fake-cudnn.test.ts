/**
 * Exercises loading and every marshalling path through real C calls, against the fake
 * libcudnn.so.9 in native/testing/fake_cudnn.c. The fake writes a text record of each call,
 * which it returns from cudnnGetLastErrorString.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CudnnBackendDescriptor, CudnnHandle, CudnnTensorDescriptor } from './index.js';
import * as c from './index.js';
import { buildFakeCudnn, builtAddonPath } from './test-support.js';

const dir = buildFakeCudnn();
process.env.BARACUDA_CUDNN_LIBRARY = join(dir, 'libcudnn.so.9');

const last = () => c.cudnnGetLastErrorString();
const idOf = (record: string) => Number(/#(\d+)$/.exec(record)?.[1]);

function handle(): CudnnHandle {
  const created = c.cudnnCreate();
  expect(created.status).toBe(0);
  return created.handle!;
}
function backend(type: number): { descriptor: CudnnBackendDescriptor; id: number } {
  const created = c.cudnnBackendCreateDescriptor(type);
  expect(created.status).toBe(0);
  return { descriptor: created.descriptor!, id: idOf(last()) };
}
function tensor(): CudnnTensorDescriptor {
  const created = c.cudnnCreateTensorDescriptor();
  expect(created.status).toBe(0);
  return created.tensorDesc!;
}

describe('loading a cuDNN 9 through BARACUDA_CUDNN_LIBRARY', () => {
  it('probe decodes the version and reports the path and missing symbols', () => {
    const found = c.load();
    expect(found.available).toBe(true);
    expect(found.version).toEqual({ major: 9, minor: 14, patch: 0, raw: 91400 });
    expect(found.cudartVersion).toBe(13000);
    expect(found.libraryPath).toBe(join(dir, 'libcudnn.so.9'));
    expect(found.tried).toEqual([{ path: join(dir, 'libcudnn.so.9'), error: '' }]);
    expect(found.reason).toBeNull();
    // The fake exports every function the addon binds (missing-symbol.test.ts uses one that does not).
    expect(found.missingSymbols).toEqual([]);
  });

  it('version, property and error-string calls', () => {
    expect(c.cudnnGetVersion()).toBe(91400);
    expect(c.cudnnGetCudartVersion()).toBe(13000);
    expect(c.cudnnGetMaxDeviceVersion()).toBe(1200);
    expect(c.cudnnGetProperty(c.MINOR_VERSION)).toEqual({ status: 0, value: 14 });
    expect(c.cudnnGetProperty(7)).toEqual({ status: 2000, value: 0 });
    expect(c.cudnnGetErrorString(0)).toBe('CUDNN_STATUS_SUCCESS');
  });

  it('the rest of the legacy API reaches the library, which checks its arguments', () => {
    const h = handle();
    const created = c.cudnnCreateActivationDescriptor();
    expect(created.status).toBe(0);
    const act = created.activationDesc!;
    expect(c.cudnnSetActivationDescriptor(act, 1, 0, 0.5)).toBe(0);
    expect(c.cudnnGetActivationDescriptor(act)).toEqual({
      status: 0,
      mode: 1,
      reluNanOpt: 0,
      coef: 0.5,
    });
    expect(c.cudnnSetActivationDescriptor(act, 99, 0, 0)).toBe(c.CUDNN_STATUS_BAD_PARAM);
    const t = tensor();
    expect(c.cudnnGetTensorSizeInBytes(t)).toEqual({ status: c.CUDNN_STATUS_BAD_PARAM, size: 0 });
    expect(c.cudnnSetTensorNdDescriptorEx(t, 1, 0, 5, [1, 4, 2, 2, 2])).toBe(0);
    expect(c.cudnnGetTensorSizeInBytes(t)).toEqual({ status: 0, size: 128 });
    expect(c.cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h)).toEqual({ status: 0, count: 6 });
    expect(c.cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h)).toEqual({
      status: 0,
      count: 7,
    });
    expect(c.cudnnDestroyActivationDescriptor(act)).toBe(0);
    expect(c.cudnnDestroyTensorDescriptor(t)).toBe(0);
    expect(c.cudnnDestroy(h)).toBe(0);
  });
});

describe('handles', () => {
  it('create, stream round trip, destroy once', () => {
    const h = handle();
    expect(h.constructor.name).toBe('CudnnHandle');
    const id = idOf(last());
    expect(c.cudnnSetStream(h, 0x1234n)).toBe(0);
    expect(c.cudnnGetStream(h)).toEqual({ status: 0, streamId: 0x1234n });
    expect(c.cudnnDestroy(h)).toBe(0);
    expect(last()).toBe(`cudnnDestroy #${id}`);
    expect(() => c.cudnnDestroy(h)).toThrow(
      new TypeError('Expected a live CudnnHandle for handle but received a destroyed CudnnHandle'),
    );
    expect(() => c.cudnnSetStream(h, 0n)).toThrow(TypeError);
  });

  it('rejects foreign objects and wrong kinds before dereferencing them', () => {
    expect(() => c.cudnnSetStream({} as CudnnHandle, 0n)).toThrow(
      new TypeError('Expected a live CudnnHandle for handle but received an object'),
    );
    expect(() => c.cudnnSetStream(null as unknown as CudnnHandle, 0n)).toThrow(
      new TypeError('Expected a live CudnnHandle for handle but received null'),
    );
    expect(() => c.cudnnSetStream(tensor() as unknown as CudnnHandle, 0n)).toThrow(
      new TypeError(
        'Expected a live CudnnHandle for handle but received an instance of CudnnTensorDescriptor',
      ),
    );
    expect(() => c.cudnnSetStream(new Map() as unknown as CudnnHandle, 0n)).toThrow(
      new TypeError('Expected a live CudnnHandle for handle but received an instance of Map'),
    );
  });

  it('takes streams only as bigints in range', () => {
    const h = handle();
    expect(() => c.cudnnSetStream(h, 5 as unknown as bigint)).toThrow(
      new TypeError(
        'Expected a device pointer as a bigint for streamId but received 5 of type number',
      ),
    );
    expect(() => c.cudnnSetStream(h, -1n)).toThrow(
      new RangeError(
        'Expected a bigint from 0n to 2n ** 64n - 1n for streamId but received -1n of type bigint',
      ),
    );
    expect(c.cudnnSetStream(h, 2n ** 64n - 1n)).toBe(0);
  });
});

describe('tensor, filter and convolution descriptors', () => {
  it('marshal dims and strides both ways', () => {
    const t = tensor();
    const id = idOf(last());
    expect(
      c.cudnnSetTensorNdDescriptor(
        t,
        c.CUDNN_DATA_FLOAT,
        5,
        [1, 3, 5, 6, 7],
        Int32Array.of(630, 210, 42, 7, 1),
      ),
    ).toBe(0);
    expect(last()).toBe(
      `cudnnSetTensorNdDescriptor #${id} type=0 dims=1x3x5x6x7 strides=630,210,42,7,1`,
    );
    expect(c.cudnnGetTensorNdDescriptor(t, 8)).toEqual({
      status: 0,
      dataType: 0,
      nbDims: 5,
      dimA: [1, 3, 5, 6, 7],
      strideA: [630, 210, 42, 7, 1],
    });
    expect(c.cudnnGetTensorNdDescriptor(t, 2).dimA).toEqual([1, 3]);
    // A cuDNN status is returned, not thrown.
    expect(c.cudnnSetTensorNdDescriptor(t, 0, 0, [], [])).toBe(c.CUDNN_STATUS_BAD_PARAM);
  });

  it('reject wrong types and sizes with exact messages', () => {
    const t = tensor();
    expect(() => c.cudnnSetTensorNdDescriptor(t, 0, 5, [1, 3, 5, 6], [1, 1, 1, 1, 1])).toThrow(
      new RangeError(
        'Expected an Int32Array or an array of 5 int32 values for dimA but received an array of length 4',
      ),
    );
    expect(() => c.cudnnSetTensorNdDescriptor(t, 0, 2, [1, 3.5], Int32Array.of(1, 1, 1))).toThrow(
      new TypeError('Expected an int32 for dimA[1] but received 3.5 of type number'),
    );
    expect(() => c.cudnnSetTensorNdDescriptor(t, 0, 1, [1], Int32Array.of(1, 1))).toThrow(
      new RangeError(
        'Expected an Int32Array or an array of 1 int32 values for strideA but received an Int32Array of length 2',
      ),
    );
    expect(() => c.cudnnSetTensorNdDescriptor(t, 0, '5' as unknown as number, [], [])).toThrow(
      new TypeError('Expected an int32 for nbDims but received "5" of type string'),
    );
    expect(() => c.cudnnSetTensorNdDescriptor(t, 1n as unknown as number, 1, [1], [1])).toThrow(
      new TypeError('Expected a cudnnDataType_t for dataType but received 1n of type bigint'),
    );
    expect(() => c.cudnnGetTensorNdDescriptor(t, 9)).toThrow(
      new RangeError(
        'Expected an integer from 0 to 8 for nbDimsRequested but received 9 of type number',
      ),
    );
  });

  it('compute the output shape and keep conv settings', () => {
    const x = tensor();
    c.cudnnSetTensorNdDescriptor(x, 0, 5, [1, 3, 5, 6, 7], [630, 210, 42, 7, 1]);
    const w = c.cudnnCreateFilterDescriptor().filterDesc!;
    expect(c.cudnnSetFilterNdDescriptor(w, 0, c.CUDNN_TENSOR_NCHW, 5, [4, 3, 3, 3, 3])).toBe(0);
    expect(c.cudnnGetFilterNdDescriptor(w, 8)).toEqual({
      status: 0,
      dataType: 0,
      format: 0,
      nbDims: 5,
      filterDimA: [4, 3, 3, 3, 3],
    });
    const conv = c.cudnnCreateConvolutionDescriptor().convDesc!;
    expect(
      c.cudnnSetConvolutionNdDescriptor(
        conv,
        3,
        [1, 1, 1],
        [1, 1, 1],
        [1, 1, 1],
        c.CUDNN_CROSS_CORRELATION,
        c.CUDNN_DATA_FLOAT,
      ),
    ).toBe(0);
    expect(c.cudnnGetConvolutionNdDescriptor(conv, 6)).toEqual({
      status: 0,
      arrayLength: 3,
      padA: [1, 1, 1],
      strideA: [1, 1, 1],
      dilationA: [1, 1, 1],
      mode: 1,
      computeType: 0,
    });
    expect(c.cudnnSetConvolutionGroupCount(conv, 3)).toBe(0);
    expect(c.cudnnGetConvolutionGroupCount(conv)).toEqual({ status: 0, groupCount: 3 });
    expect(c.cudnnSetConvolutionMathType(conv, c.CUDNN_FMA_MATH)).toBe(0);
    expect(c.cudnnGetConvolutionMathType(conv)).toEqual({ status: 0, mathType: 3 });
    const out = c.cudnnGetConvolutionNdForwardOutputDim(conv, x, w, 5);
    expect(out.status).toBe(0);
    expect(out.tensorOuputDimA).toEqual([1, 4, 5, 6, 7]);
    expect(out.tensorOutputDimA).toEqual([1, 4, 5, 6, 7]);
    expect(() => c.cudnnGetConvolutionNdForwardOutputDim(conv, x, x as never, 5)).toThrow(
      new TypeError(
        'Expected a live CudnnFilterDescriptor for filterDesc but received an instance of CudnnTensorDescriptor',
      ),
    );
  });
});

describe('cudnnTransformTensor', () => {
  it('passes the scaling factors, both descriptors and both pointers through', () => {
    const h = handle();
    const src = tensor();
    const srcId = idOf(last());
    const dst = tensor();
    const dstId = idOf(last());
    c.cudnnSetTensorNdDescriptor(src, c.CUDNN_DATA_HALF, 5, [1, 3, 5, 6, 7], [630, 210, 42, 7, 1]);
    c.cudnnSetTensorNdDescriptor(dst, c.CUDNN_DATA_HALF, 5, [1, 3, 5, 6, 7], [630, 1, 126, 21, 3]);
    expect(
      c.cudnnTransformTensor(
        h,
        Float32Array.of(1.5),
        src,
        0x1000n,
        Float32Array.of(1),
        dst,
        0x2000n,
      ),
    ).toBe(0);
    expect(last()).toBe(
      `cudnnTransformTensor alpha=1.5 x=#${srcId} 0x1000 beta=1 y=#${dstId} 0x2000`,
    );
  });

  it('rejects a bad scaling factor, descriptor or pointer before calling cuDNN', () => {
    const h = handle();
    const t = tensor();
    expect(() =>
      c.cudnnTransformTensor(h, Float32Array.of(1), t, 0n, new Float32Array(2), t, 0n),
    ).toThrow(
      new RangeError(
        'Expected a Float32Array(1) or Float64Array(1) for beta but received a Float32Array of length 2',
      ),
    );
    expect(() =>
      c.cudnnTransformTensor(h, Float32Array.of(1), h as never, 0n, Float32Array.of(0), t, 0n),
    ).toThrow(
      new TypeError(
        'Expected a live CudnnTensorDescriptor for xDesc but received an instance of CudnnHandle',
      ),
    );
    expect(() =>
      c.cudnnTransformTensor(h, Float32Array.of(1), t, 0n, Float32Array.of(0), t, 5 as never),
    ).toThrow(
      new TypeError('Expected a device pointer as a bigint for y but received 5 of type number'),
    );
  });
});

describe('forward convolution calls', () => {
  const h = handle();
  const x = tensor();
  const y = tensor();
  const w = c.cudnnCreateFilterDescriptor().filterDesc!;
  const conv = c.cudnnCreateConvolutionDescriptor().convDesc!;

  it('marshal perf results into objects', () => {
    expect(c.cudnnGetConvolutionForwardAlgorithmMaxCount(h)).toEqual({ status: 0, count: 8 });
    expect(c.cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, conv, y, 5)).toEqual({
      status: 0,
      returnedAlgoCount: 2,
      perfResults: [
        { algo: 1, status: 0, time: 0.5, memory: 1024, determinism: 1, mathType: 1 },
        { algo: 0, status: 0, time: 2.25, memory: 0, determinism: 0, mathType: 0 },
      ],
    });
    expect(c.cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, conv, y, 1).perfResults).toHaveLength(
      1,
    );
    expect(() => c.cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, conv, y, -1)).toThrow(
      new RangeError(
        'Expected an integer from 0 to 1024 for requestedAlgoCount but received -1 of type number',
      ),
    );
  });

  it('return the workspace size as a number', () => {
    expect(c.cudnnGetConvolutionForwardWorkspaceSize(h, x, w, conv, y, 1)).toEqual({
      status: 0,
      sizeInBytes: 8192,
    });
  });

  it('pass scaling factors and device pointers to the run call', () => {
    const status = c.cudnnConvolutionForward(
      h,
      Float32Array.of(2),
      x,
      0x1000n,
      w,
      0x2000n,
      conv,
      1,
      0x3000n,
      8192,
      Float32Array.of(0),
      y,
      0x4000n,
    );
    expect(status).toBe(0);
    expect(last()).toBe(
      'cudnnConvolutionForward alpha=2 beta=0 x=0x1000 w=0x2000 algo=1 ws=0x3000 wsSize=8192 y=0x4000',
    );
  });

  it('reject bad scaling factors, sizes and pointers', () => {
    const run = (alpha: unknown, size: unknown, xPtr: unknown) => () =>
      c.cudnnConvolutionForward(
        h,
        alpha as Float32Array,
        x,
        xPtr as bigint,
        w,
        0n,
        conv,
        0,
        0n,
        size as number,
        Float32Array.of(0),
        y,
        0n,
      );
    expect(run(new Float32Array(2), 0, 0n)).toThrow(
      new RangeError(
        'Expected a Float32Array(1) or Float64Array(1) for alpha but received a Float32Array of length 2',
      ),
    );
    expect(run([1], 0, 0n)).toThrow(
      new TypeError(
        'Expected a Float32Array(1) or Float64Array(1) for alpha but received an array of length 1',
      ),
    );
    expect(run(new Int32Array(1), 0, 0n)).toThrow(
      new TypeError(
        'Expected a Float32Array(1) or Float64Array(1) for alpha but received an instance of Int32Array',
      ),
    );
    expect(run(Float64Array.of(1), -1, 0n)).toThrow(
      new RangeError(
        'Expected a non-negative safe integer for workSpaceSizeInBytes but received -1 of type number',
      ),
    );
    expect(run(Float64Array.of(1), 1n, 0n)).toThrow(
      new TypeError(
        'Expected a non-negative safe integer for workSpaceSizeInBytes but received 1n of type bigint',
      ),
    );
    expect(run(Float64Array.of(1), 0, 4096)).toThrow(
      new TypeError('Expected a device pointer as a bigint for x but received 4096 of type number'),
    );
  });
});

describe('backend (graph) API', () => {
  it('sets and gets typed-array attributes byte for byte, with the element count', () => {
    const { descriptor: pack, id } = backend(c.CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    const set = (
      name: number,
      type: number,
      values: Parameters<typeof c.cudnnBackendSetAttribute>[3],
    ) => c.cudnnBackendSetAttribute(pack, name, type, values);

    expect(
      set(
        c.CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
        c.CUDNN_TYPE_VOID_PTR,
        BigUint64Array.of(0x10n, 0x20n),
      ),
    ).toBe(0);
    expect(last()).toBe(
      `set #${id} name=1001 type=6 count=2 bytes=10000000000000002000000000000000`,
    );
    const got = c.cudnnBackendGetAttribute(pack, 1001, c.CUDNN_TYPE_VOID_PTR, 4);
    expect(got.status).toBe(0);
    expect(got.elementCount).toBe(2);
    expect(got.values).toEqual(BigUint64Array.of(0x10n, 0x20n));

    set(c.CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, c.CUDNN_TYPE_INT64, BigInt64Array.of(1n, -2n));
    expect(last()).toBe(
      `set #${id} name=1000 type=3 count=2 bytes=0100000000000000feffffffffffffff`,
    );
    expect(c.cudnnBackendGetAttribute(pack, 1000, c.CUDNN_TYPE_INT64, 1).values).toEqual(
      BigInt64Array.of(1n),
    );

    set(700, c.CUDNN_TYPE_FLOAT, Float32Array.of(1));
    expect(last()).toBe(`set #${id} name=700 type=4 count=1 bytes=0000803f`);
    set(700, c.CUDNN_TYPE_DOUBLE, Float64Array.of(1));
    expect(last()).toBe(`set #${id} name=700 type=5 count=1 bytes=000000000000f03f`);
    set(907, c.CUDNN_TYPE_BOOLEAN, Uint8Array.of(1));
    expect(last()).toBe(`set #${id} name=907 type=2 count=1 bytes=01`);
    set(901, c.CUDNN_TYPE_DATA_TYPE, Int32Array.of(c.CUDNN_DATA_HALF));
    expect(last()).toBe(`set #${id} name=901 type=1 count=1 bytes=02000000`);
    expect(c.cudnnBackendGetAttribute(pack, 901, c.CUDNN_TYPE_DATA_TYPE, 1).values).toEqual(
      Int32Array.of(2),
    );
    set(1003, c.CUDNN_TYPE_VOID_PTR, new BigUint64Array(0));
    expect(last()).toBe(`set #${id} name=1003 type=6 count=0 bytes=`);
  });

  it('sets CHAR from a string, gets it back as a string, and pairs FRACTION values', () => {
    const { descriptor, id } = backend(c.CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    expect(c.cudnnBackendSetAttribute(descriptor, 405, c.CUDNN_TYPE_CHAR, 'abc')).toBe(0);
    expect(last()).toBe(`set #${id} name=405 type=24 count=3 bytes=616263`);
    expect(c.cudnnBackendGetAttribute(descriptor, 405, c.CUDNN_TYPE_CHAR, 16)).toEqual({
      status: 0,
      elementCount: 3,
      values: 'abc',
    });
    c.cudnnBackendSetAttribute(descriptor, 1, c.CUDNN_TYPE_FRACTION, BigInt64Array.of(1n, 2n));
    expect(last()).toBe(`set #${id} name=1 type=26 count=1 bytes=01000000000000000200000000000000`);
    expect(c.cudnnBackendGetAttribute(descriptor, 1, c.CUDNN_TYPE_FRACTION, 1).values).toEqual(
      BigInt64Array.of(1n, 2n),
    );
    expect(() =>
      c.cudnnBackendSetAttribute(
        descriptor,
        1,
        c.CUDNN_TYPE_FRACTION,
        BigInt64Array.of(1n, 2n, 3n),
      ),
    ).toThrow(
      new RangeError(
        'Expected a BigInt64Array of (numerator, denominator) pairs for values but received a BigInt64Array of odd length 3',
      ),
    );
  });

  it('never coerces a typed array of the wrong kind', () => {
    const { descriptor } = backend(c.CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    expect(() =>
      c.cudnnBackendSetAttribute(descriptor, 1001, c.CUDNN_TYPE_VOID_PTR, BigInt64Array.of(1n)),
    ).toThrow(
      new TypeError(
        'Expected a BigUint64Array for values but received an instance of BigInt64Array',
      ),
    );
    expect(() =>
      c.cudnnBackendSetAttribute(descriptor, 1000, c.CUDNN_TYPE_INT64, [
        1,
      ] as unknown as BigInt64Array),
    ).toThrow(
      new TypeError('Expected a BigInt64Array for values but received an array of length 1'),
    );
    expect(() =>
      c.cudnnBackendSetAttribute(
        descriptor,
        901,
        c.CUDNN_TYPE_DATA_TYPE,
        Uint32Array.of(1) as never,
      ),
    ).toThrow(
      new TypeError('Expected an Int32Array for values but received an instance of Uint32Array'),
    );
    expect(() => c.cudnnBackendSetAttribute(descriptor, 1, 99, Int32Array.of(1))).toThrow(
      new RangeError(
        'Expected a cudnnBackendAttributeType_t this addon can marshal for attributeType but received 99 of type number',
      ),
    );
  });

  it('passes descriptor and handle arrays, and fills caller-created descriptors on get', () => {
    const a = backend(c.CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    const b = backend(c.CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    const graph = backend(c.CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    expect(
      c.cudnnBackendSetAttribute(
        graph.descriptor,
        c.CUDNN_ATTR_OPERATIONGRAPH_OPS,
        c.CUDNN_TYPE_BACKEND_DESCRIPTOR,
        [a.descriptor, b.descriptor],
      ),
    ).toBe(0);
    expect(last()).toBe(`set #${graph.id} name=801 type=15 count=2 ids=[#${a.id},#${b.id}]`);

    const outA = backend(c.CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    const outB = backend(c.CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    const got = c.cudnnBackendGetAttribute(
      graph.descriptor,
      801,
      c.CUDNN_TYPE_BACKEND_DESCRIPTOR,
      2,
      [outA.descriptor, outB.descriptor],
    );
    expect(got.status).toBe(0);
    expect(got.elementCount).toBe(2);
    expect(got.values).toEqual([outA.descriptor, outB.descriptor]);
    expect((got.values as unknown[])[0]).toBe(outA.descriptor);
    expect(last()).toBe(
      `get #${graph.id} name=801 type=15 requested=2 filled=#${outA.id}<-#${a.id},#${outB.id}<-#${b.id}`,
    );
    expect(() =>
      c.cudnnBackendGetAttribute(graph.descriptor, 801, c.CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, [
        outA.descriptor,
      ]),
    ).toThrow(
      new RangeError(
        'Expected an array of 2 CudnnBackendDescriptor (requestedElementCount) for outDescriptors but received an array of length 1',
      ),
    );

    const h = handle();
    const hId = idOf(last());
    expect(() =>
      c.cudnnBackendSetAttribute(graph.descriptor, 801, c.CUDNN_TYPE_BACKEND_DESCRIPTOR, [
        a.descriptor,
        h as never,
      ]),
    ).toThrow(
      new TypeError(
        'Expected a live CudnnBackendDescriptor for values[1] but received an instance of CudnnHandle',
      ),
    );
    const plan = backend(c.CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    c.cudnnBackendSetAttribute(
      plan.descriptor,
      c.CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
      c.CUDNN_TYPE_HANDLE,
      [h],
    );
    expect(last()).toBe(`set #${plan.id} name=400 type=0 count=1 ids=[#${hId}]`);
    const raw = c.cudnnBackendGetAttribute(plan.descriptor, 400, c.CUDNN_TYPE_HANDLE, 1);
    expect(raw.values).toBeInstanceOf(BigUint64Array);
    expect((raw.values as BigUint64Array)[0]).not.toBe(0n);

    const pack = backend(c.CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    expect(c.cudnnBackendFinalize(plan.descriptor)).toBe(0);
    expect(last()).toBe(`cudnnBackendFinalize #${plan.id}`);
    expect(c.cudnnBackendExecute(h, plan.descriptor, pack.descriptor)).toBe(0);
    expect(last()).toBe(`cudnnBackendExecute #${hId} #${plan.id} #${pack.id}`);
    expect(() => c.cudnnBackendExecute(h, pack.descriptor, h as never)).toThrow(
      new TypeError(
        'Expected a live CudnnBackendDescriptor for variantPack but received an instance of CudnnHandle',
      ),
    );
  });

  it('returns a failed create as a status with a null descriptor, and destroys once', () => {
    expect(c.cudnnBackendCreateDescriptor(999)).toEqual({ status: 2000, descriptor: null });
    const { descriptor, id } = backend(c.CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    expect(c.cudnnBackendDestroyDescriptor(descriptor)).toBe(0);
    expect(last()).toBe(`cudnnBackendDestroyDescriptor #${id}`);
    const destroyed = new TypeError(
      'Expected a live CudnnBackendDescriptor for descriptor but received a destroyed CudnnBackendDescriptor',
    );
    expect(() => c.cudnnBackendDestroyDescriptor(descriptor)).toThrow(destroyed);
    expect(() =>
      c.cudnnBackendSetAttribute(descriptor, 900, c.CUDNN_TYPE_INT64, BigInt64Array.of(16n)),
    ).toThrow(destroyed);
  });
});

describe('the garbage-collection safety net', () => {
  it('destroys descriptors JavaScript dropped, without crashing', () => {
    const addon = builtAddonPath();
    const script = `
      const b = require(${JSON.stringify(addon)});
      for (let i = 0; i < 200; i++) b.cudnnCreateTensorDescriptor();
      globalThis.gc();
      setImmediate(() => { globalThis.gc(); setImmediate(() => console.log(b.cudnnGetLastErrorString())); });
    `;
    const output = execFileSync(process.execPath, ['--expose-gc', '-e', script], {
      env: { ...process.env, BARACUDA_CUDNN_LIBRARY: join(dir, 'libcudnn.so.9') },
      encoding: 'utf8',
    });
    expect(output).toMatch(/^cudnnDestroyTensorDescriptor #\d+\n$/);
  });
});
