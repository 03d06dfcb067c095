import { describe, expect, it } from 'vitest';
import {
  BaracudaError,
  type BaracudaErrorCode,
  BufferTooSmallError,
  CudaError,
  CudnnError,
  DisposedError,
  describeValue,
  InvalidArgumentError,
  InvalidProblemError,
  LibraryNotFoundError,
  NcclError,
  ReportMismatchError,
  UnsupportedError,
  WorkspaceTooSmallError,
} from './errors.js';

/** What a BaracudaError from a second copy of this package looks like to this copy. */
function foreignError(code: BaracudaErrorCode): object {
  return { [Symbol.for('baracuda.error')]: true, code, message: 'from another copy' };
}

const CLASSES = [
  [UnsupportedError, 'BARACUDA_UNSUPPORTED'],
  [InvalidProblemError, 'BARACUDA_INVALID_PROBLEM'],
  [InvalidArgumentError, 'BARACUDA_INVALID_ARGUMENT'],
  [WorkspaceTooSmallError, 'BARACUDA_WORKSPACE_TOO_SMALL'],
  [BufferTooSmallError, 'BARACUDA_BUFFER_TOO_SMALL'],
  [DisposedError, 'BARACUDA_DISPOSED'],
  [LibraryNotFoundError, 'BARACUDA_LIBRARY_NOT_FOUND'],
  [CudaError, 'BARACUDA_CUDA_ERROR'],
  [CudnnError, 'BARACUDA_CUDNN_ERROR'],
  [NcclError, 'BARACUDA_NCCL_ERROR'],
  [ReportMismatchError, 'BARACUDA_REPORT_MISMATCH'],
] as const;

describe('isInstance', () => {
  it.each(CLASSES)('%o recognises its own code from any copy, and nothing else', (cls, code) => {
    expect(cls.isInstance(foreignError(code))).toBe(true);
    expect(BaracudaError.isInstance(foreignError(code))).toBe(true);
    for (const [, other] of CLASSES) {
      if (other !== code) expect(cls.isInstance(foreignError(other))).toBe(false);
    }
    expect(cls.isInstance({ code })).toBe(false); // no marker
    expect(cls.isInstance(new Error('plain'))).toBe(false);
    expect(cls.isInstance(null)).toBe(false);
    expect(cls.isInstance(code)).toBe(false);
  });

  it('works on real instances', () => {
    const error = new DisposedError('Stream');
    expect(BaracudaError.isInstance(error)).toBe(true);
    expect(DisposedError.isInstance(error)).toBe(true);
    expect(UnsupportedError.isInstance(error)).toBe(false);
    expect(error).toBeInstanceOf(BaracudaError);
    expect(error).toBeInstanceOf(Error);
  });
});

describe('error classes', () => {
  it('ReportMismatchError names both reports and both values', () => {
    const error = new ReportMismatchError(
      'different commits',
      { source: 'shard-1.json', value: '31b3975' },
      { source: 'shard-2.json', value: '8654548' },
    );
    expect(error.message).toBe(
      'Cannot merge bench reports of different commits: 31b3975 in shard-1.json, 8654548 in shard-2.json',
    );
    expect(error).toMatchObject({
      code: 'BARACUDA_REPORT_MISMATCH',
      name: 'ReportMismatchError',
      what: 'different commits',
      first: { source: 'shard-1.json', value: '31b3975' },
      second: { source: 'shard-2.json', value: '8654548' },
    });
  });

  it('UnsupportedError', () => {
    const error = new UnsupportedError('conv3d i8 is not supported by cudnn');
    expect(error.message).toBe('conv3d i8 is not supported by cudnn');
    expect(error.code).toBe('BARACUDA_UNSUPPORTED');
    expect(error.name).toBe('UnsupportedError');
  });

  it('InvalidProblemError', () => {
    const error = new InvalidProblemError('groups 3 does not divide cIn 64', 'groups');
    expect(error.message).toBe('groups 3 does not divide cIn 64');
    expect(error.field).toBe('groups');
    expect(error.code).toBe('BARACUDA_INVALID_PROBLEM');
    expect(error.name).toBe('InvalidProblemError');
    expect(new InvalidProblemError('bad').field).toBeUndefined();
  });

  it('InvalidArgumentError', () => {
    const error = new InvalidArgumentError('padD', 'a positive integer', -1);
    expect(error.message).toBe(
      'Expected a positive integer for padD but received -1 of type number',
    );
    expect(error).toMatchObject({
      code: 'BARACUDA_INVALID_ARGUMENT',
      name: 'InvalidArgumentError',
      argument: 'padD',
      expected: 'a positive integer',
      received: '-1 of type number',
    });
  });

  it('WorkspaceTooSmallError', () => {
    const error = new WorkspaceTooSmallError(4096, 1024);
    expect(error.message).toBe('workspace too small: needed 4096 bytes but received 1024 bytes');
    expect(error).toMatchObject({ code: 'BARACUDA_WORKSPACE_TOO_SMALL', needed: 4096, got: 1024 });
    expect(new WorkspaceTooSmallError(2, 1, 'bw-filter workspace').message).toBe(
      'bw-filter workspace too small: needed 2 bytes but received 1 bytes',
    );
  });

  it('BufferTooSmallError', () => {
    const error = new BufferTooSmallError('y', 800, 400);
    expect(error.message).toBe('y too small: needed 800 bytes but received 400 bytes');
    expect(error).toMatchObject({
      code: 'BARACUDA_BUFFER_TOO_SMALL',
      buffer: 'y',
      needed: 800,
      got: 400,
    });
  });

  it('DisposedError', () => {
    const error = new DisposedError('Conv3dPlan');
    expect(error.message).toBe('Conv3dPlan has been disposed and cannot be used');
    expect(error).toMatchObject({ code: 'BARACUDA_DISPOSED', object: 'Conv3dPlan' });
  });

  it('LibraryNotFoundError lists every attempt and fix, and chains the cause', () => {
    const cause = new Error('dlopen failed');
    const searched = [
      { path: 'libcudnn.so.9', error: 'libcudnn.so.9: cannot open shared object file' },
      { path: '/usr/lib/x86_64-linux-gnu/libcudnn.so.9', error: 'not found' },
    ];
    const error = new LibraryNotFoundError(
      'cuDNN 9 (libcudnn.so.9)',
      searched,
      ['Install cuDNN 9: pip install nvidia-cudnn-cu12', 'Set BARACUDA_CUDNN_PATH'],
      { cause },
    );
    expect(error.message).toBe(
      [
        'Could not load cuDNN 9 (libcudnn.so.9).',
        'Searched:',
        '  - libcudnn.so.9: libcudnn.so.9: cannot open shared object file',
        '  - /usr/lib/x86_64-linux-gnu/libcudnn.so.9: not found',
        'Possible solutions:',
        '  - Install cuDNN 9: pip install nvidia-cudnn-cu12',
        '  - Set BARACUDA_CUDNN_PATH',
      ].join('\n'),
    );
    expect(error.cause).toBe(cause);
    expect(error).toMatchObject({
      code: 'BARACUDA_LIBRARY_NOT_FOUND',
      library: 'cuDNN 9 (libcudnn.so.9)',
    });
    expect(error.searched).toEqual(searched);
    expect(new LibraryNotFoundError('libcuda.so.1', [], []).message).toBe(
      'Could not load libcuda.so.1.\nSearched:\n  (nothing)\nPossible solutions:\n',
    );
  });

  it('CudaError', () => {
    const error = new CudaError('cuMemAlloc_v2', 2, 'CUDA_ERROR_OUT_OF_MEMORY', 'out of memory');
    expect(error.message).toBe(
      '`cuMemAlloc_v2` failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory',
    );
    expect(error).toMatchObject({
      code: 'BARACUDA_CUDA_ERROR',
      call: 'cuMemAlloc_v2',
      result: 2,
      resultName: 'CUDA_ERROR_OUT_OF_MEMORY',
    });
    expect(new CudaError('cuInit', 100, 'CUDA_ERROR_NO_DEVICE').message).toBe(
      '`cuInit` failed: CUDA_ERROR_NO_DEVICE (100)',
    );
  });

  it('CudnnError', () => {
    const error = new CudnnError(
      'cudnnConvolutionForward',
      3000,
      'CUDNN_STATUS_NOT_SUPPORTED',
      'no engine',
      'conv3d n=8 c=64→128 in=16×56×56 k=3×3×3 f16 ndhwc',
    );
    expect(error.message).toBe(
      '`cudnnConvolutionForward` failed: CUDNN_STATUS_NOT_SUPPORTED (no engine) for conv3d n=8 c=64→128 in=16×56×56 k=3×3×3 f16 ndhwc',
    );
    expect(error).toMatchObject({
      code: 'BARACUDA_CUDNN_ERROR',
      call: 'cudnnConvolutionForward',
      status: 3000,
      statusName: 'CUDNN_STATUS_NOT_SUPPORTED',
      lastError: 'no engine',
      problem: 'conv3d n=8 c=64→128 in=16×56×56 k=3×3×3 f16 ndhwc',
    });
    expect(
      new CudnnError('cudnnCreate', 1001, 'CUDNN_STATUS_NOT_INITIALIZED', '', '').message,
    ).toBe('`cudnnCreate` failed: CUDNN_STATUS_NOT_INITIALIZED');
  });

  it('NcclError', () => {
    const error = new NcclError(
      'ncclAllReduce',
      2,
      'ncclSystemError',
      'unhandled system error; socket closed',
      'rank 1 of 2 on device 1',
    );
    expect(error.message).toBe(
      '`ncclAllReduce` failed: ncclSystemError (unhandled system error; socket closed) on rank 1 of 2 on device 1',
    );
    expect(error).toMatchObject({
      code: 'BARACUDA_NCCL_ERROR',
      call: 'ncclAllReduce',
      result: 2,
      resultName: 'ncclSystemError',
      ncclMessage: 'unhandled system error; socket closed',
      where: 'rank 1 of 2 on device 1',
    });
    expect(new NcclError('ncclGroupEnd', 5, 'ncclInvalidUsage', '', '').message).toBe(
      '`ncclGroupEnd` failed: ncclInvalidUsage',
    );
  });

  it('chains a cause on every class, and leaves it unset otherwise', () => {
    const cause = new Error('root');
    const errors = [
      new UnsupportedError('u', { cause }),
      new InvalidProblemError('p', 'x', { cause }),
      new InvalidArgumentError('a', 'b', 1, { cause }),
      new WorkspaceTooSmallError(2, 1, 'workspace', { cause }),
      new BufferTooSmallError('x', 2, 1, { cause }),
      new DisposedError('Stream', { cause }),
      new CudaError('cuInit', 1, 'CUDA_ERROR_INVALID_VALUE', undefined, { cause }),
      new CudnnError('cudnnCreate', 1, 'X', '', '', { cause }),
      new NcclError('ncclGroupEnd', 5, 'X', '', '', { cause }),
    ];
    for (const error of errors) expect(error.cause).toBe(cause);
    expect('cause' in new UnsupportedError('u')).toBe(false);
  });
});

describe('describeValue', () => {
  it.each([
    [-1, '-1 of type number'],
    [Number.NaN, 'NaN of type number'],
    ['abc', '"abc" of type string'],
    ['x'.repeat(50), `"${'x'.repeat(40)}…" of type string`],
    [3n, '3n of type bigint'],
    [false, 'false of type boolean'],
    [null, 'null'],
    [undefined, 'undefined'],
    [() => 1, 'a function'],
    [Symbol('s'), 'Symbol(s) of type symbol'],
    [[1, 2, 3], 'an array of length 3'],
    [{}, 'an object'],
    [new Map(), 'an instance of Map'],
    [Object.create(null), 'an object'],
  ])('%o → %s', (value, text) => {
    expect(describeValue(value)).toBe(text);
  });
});
