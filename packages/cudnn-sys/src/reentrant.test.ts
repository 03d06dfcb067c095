// Re-entrant JavaScript during argument conversion: a getter on an array element runs user code
// in the middle of a call. When that code destroys an object the call already checked, the addon
// must refuse the object (a TypeError) rather than hand cuDNN freed memory. Against the fake cuDNN.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as c from './index.js';
import { buildFakeCudnn, fakeCudnnLiveCounts } from './test-support.js';

const dir = buildFakeCudnn();
process.env.BARACUDA_CUDNN_LIBRARY = join(dir, 'libcudnn.so.9');

/** `values` as a plain array whose element `index` is a getter that first runs `sideEffect`. */
function withGetter<T>(values: T[], index: number, sideEffect: () => void): T[] {
  const array = [...values];
  const value = array[index];
  Object.defineProperty(array, index, {
    get() {
      sideEffect();
      return value;
    },
  });
  return array;
}

const destroyed = (kind: string, argument: string) =>
  new TypeError(`Expected a live ${kind} for ${argument} but received a destroyed ${kind}`);

describe('objects destroyed by JavaScript that runs during a call', () => {
  it('cudnnSetTensorNdDescriptor refuses a descriptor destroyed by a getter on dimA or strideA', () => {
    const before = fakeCudnnLiveCountsAfterLoad();
    const desc = c.cudnnCreateTensorDescriptor().tensorDesc!;
    const dims = withGetter([1, 2, 3], 1, () => c.cudnnDestroyTensorDescriptor(desc));
    expect(() =>
      c.cudnnSetTensorNdDescriptor(desc, c.CUDNN_DATA_FLOAT, 3, dims, [6, 3, 1]),
    ).toThrow(destroyed('CudnnTensorDescriptor', 'tensorDesc'));
    const other = c.cudnnCreateTensorDescriptor().tensorDesc!;
    const strides = withGetter([6, 3, 1], 2, () => c.cudnnDestroyTensorDescriptor(other));
    expect(() =>
      c.cudnnSetTensorNdDescriptor(other, c.CUDNN_DATA_FLOAT, 3, [1, 2, 3], strides),
    ).toThrow(destroyed('CudnnTensorDescriptor', 'tensorDesc'));
    expect(fakeCudnnLiveCounts(dir).tensors).toBe(before.tensors);
  });

  it('cudnnSetFilterNdDescriptor refuses a filter destroyed by a getter on filterDimA', () => {
    const filter = c.cudnnCreateFilterDescriptor().filterDesc!;
    const dims = withGetter([4, 4, 1, 3, 3], 0, () => c.cudnnDestroyFilterDescriptor(filter));
    expect(() =>
      c.cudnnSetFilterNdDescriptor(filter, c.CUDNN_DATA_FLOAT, c.CUDNN_TENSOR_NCHW, 5, dims),
    ).toThrow(destroyed('CudnnFilterDescriptor', 'filterDesc'));
  });

  it('cudnnSetConvolutionNdDescriptor refuses a descriptor destroyed by a getter on padA', () => {
    const conv = c.cudnnCreateConvolutionDescriptor().convDesc!;
    const pad = withGetter([0, 0, 0], 2, () => c.cudnnDestroyConvolutionDescriptor(conv));
    expect(() =>
      c.cudnnSetConvolutionNdDescriptor(
        conv,
        3,
        pad,
        [1, 1, 1],
        [1, 1, 1],
        c.CUDNN_CROSS_CORRELATION,
        c.CUDNN_DATA_FLOAT,
      ),
    ).toThrow(destroyed('CudnnConvolutionDescriptor', 'convDesc'));
  });

  it('cudnnBackendSetAttribute refuses a target or an element destroyed by a getter on values', () => {
    const create = (type: number) => c.cudnnBackendCreateDescriptor(type).descriptor!;
    const graph = create(c.CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    const op = create(c.CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const values = withGetter([op], 0, () => c.cudnnBackendDestroyDescriptor(graph));
    expect(() =>
      c.cudnnBackendSetAttribute(
        graph,
        c.CUDNN_ATTR_OPERATIONGRAPH_OPS,
        c.CUDNN_TYPE_BACKEND_DESCRIPTOR,
        values,
      ),
    ).toThrow(destroyed('CudnnBackendDescriptor', 'descriptor'));

    const target = create(c.CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    const first = create(c.CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const second = create(c.CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const elements = withGetter([first, second], 1, () => c.cudnnBackendDestroyDescriptor(first));
    expect(() =>
      c.cudnnBackendSetAttribute(
        target,
        c.CUDNN_ATTR_OPERATIONGRAPH_OPS,
        c.CUDNN_TYPE_BACKEND_DESCRIPTOR,
        elements,
      ),
    ).toThrow(destroyed('CudnnBackendDescriptor', 'values[0]'));

    const handle = c.cudnnCreate().handle!;
    const handles = withGetter([handle], 0, () => c.cudnnBackendDestroyDescriptor(target));
    expect(() =>
      c.cudnnBackendSetAttribute(
        target,
        c.CUDNN_ATTR_OPERATIONGRAPH_HANDLE,
        c.CUDNN_TYPE_HANDLE,
        handles,
      ),
    ).toThrow(destroyed('CudnnBackendDescriptor', 'descriptor'));
    for (const d of [op, second]) c.cudnnBackendDestroyDescriptor(d);
    c.cudnnDestroy(handle);
  });

  it('cudnnBackendGetAttribute refuses a descriptor destroyed by a getter on outDescriptors', () => {
    const before = fakeCudnnLiveCounts(dir);
    const plan = c.cudnnBackendCreateDescriptor(c.CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR)
      .descriptor!;
    const config = c.cudnnBackendCreateDescriptor(c.CUDNN_BACKEND_ENGINECFG_DESCRIPTOR).descriptor!;
    const out = withGetter([config], 0, () => c.cudnnBackendDestroyDescriptor(plan));
    expect(() =>
      c.cudnnBackendGetAttribute(
        plan,
        c.CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
        c.CUDNN_TYPE_BACKEND_DESCRIPTOR,
        1,
        out,
      ),
    ).toThrow(destroyed('CudnnBackendDescriptor', 'descriptor'));
    c.cudnnBackendDestroyDescriptor(config);
    expect(fakeCudnnLiveCounts(dir).backendDescriptors).toBe(before.backendDescriptors);
  });
});

describe('user code the addon never runs', () => {
  it('setters on Object.prototype and Array.prototype: results are defined, not assigned', () => {
    // A counter, not an array: pushing onto an array would run the Array.prototype setter.
    let ran = 0;
    const trap = (key: string) => ({
      configurable: true,
      set() {
        ran++;
        throw new Error(`setter ${key} ran`);
      },
    });
    Object.defineProperty(Object.prototype, 'status', trap('status'));
    Object.defineProperty(Object.prototype, 'tensorDesc', trap('tensorDesc'));
    Object.defineProperty(Array.prototype, '0', trap('0'));
    // Only the addon's calls run while the traps are set (the test framework's own code would
    // trip them); what they returned is checked afterwards.
    let created: ReturnType<typeof c.cudnnCreateTensorDescriptor>;
    let status: number;
    let got: ReturnType<typeof c.cudnnGetTensorNdDescriptor>;
    try {
      created = c.cudnnCreateTensorDescriptor();
      status = c.cudnnSetTensorNdDescriptor(
        created.tensorDesc!,
        c.CUDNN_DATA_FLOAT,
        2,
        [3, 4],
        [4, 1],
      );
      got = c.cudnnGetTensorNdDescriptor(created.tensorDesc!, 2);
    } finally {
      delete (Object.prototype as Record<string, unknown>).status;
      delete (Object.prototype as Record<string, unknown>).tensorDesc;
      delete (Array.prototype as unknown as Record<string, unknown>)['0'];
    }
    expect(created.status).toBe(0);
    expect(status).toBe(0);
    expect(got.dimA).toEqual([3, 4]);
    c.cudnnDestroyTensorDescriptor(created.tensorDesc!);
    expect(ran).toBe(0);
  });

  it('error messages do not depend on JSON.stringify or on a throwing constructor getter', () => {
    const desc = c.cudnnCreateTensorDescriptor().tensorDesc!;
    const stringify = JSON.stringify;
    JSON.stringify = () => {
      throw new Error('replaced JSON.stringify ran');
    };
    try {
      expect(() => c.cudnnSetTensorNdDescriptor(desc, 'fl"o\nat' as never, 1, [1], [1])).toThrow(
        new TypeError(
          'Expected a cudnnDataType_t for dataType but received "fl\\"o\\nat" of type string',
        ),
      );
    } finally {
      JSON.stringify = stringify;
    }
    const hostile = Object.defineProperty({}, 'constructor', {
      get() {
        throw new Error('constructor getter ran');
      },
    });
    expect(() => c.cudnnDestroyTensorDescriptor(hostile as never)).toThrow(
      new TypeError('Expected a live CudnnTensorDescriptor for tensorDesc but received an object'),
    );
    c.cudnnDestroyTensorDescriptor(desc);
  });
});

/** The counts once cuDNN is loaded (the first call loads it). */
function fakeCudnnLiveCountsAfterLoad() {
  c.cudnnGetVersion();
  return fakeCudnnLiveCounts(dir);
}
