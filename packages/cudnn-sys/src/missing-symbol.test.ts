// A cuDNN that lacks functions the addon binds (the fake built without its legacy backward
// functions): calling one is an UnsupportedError naming the function and the library, before any
// argument is read; the functions it has still work. Its own file: the library loads once a process.
import { join } from 'node:path';
import { UnsupportedError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import * as c from './index.js';
import { buildFakeCudnn } from './test-support.js';

const dir = buildFakeCudnn({ noBackward: true });
process.env.BARACUDA_CUDNN_LIBRARY = join(dir, 'libcudnn.so.9');

const BACKWARD = [
  'cudnnGetConvolutionBackwardDataAlgorithmMaxCount',
  'cudnnGetConvolutionBackwardDataAlgorithm_v7',
  'cudnnFindConvolutionBackwardDataAlgorithmEx',
  'cudnnGetConvolutionBackwardDataWorkspaceSize',
  'cudnnConvolutionBackwardData',
  'cudnnGetConvolutionBackwardFilterAlgorithmMaxCount',
  'cudnnGetConvolutionBackwardFilterAlgorithm_v7',
  'cudnnFindConvolutionBackwardFilterAlgorithmEx',
  'cudnnGetConvolutionBackwardFilterWorkspaceSize',
  'cudnnConvolutionBackwardFilter',
] as const;

describe('a cuDNN without the legacy backward functions', () => {
  it('probe lists them as missing', () => {
    expect([...c.probe().missingSymbols].sort()).toEqual([...BACKWARD].sort());
  });

  it('calling one is an UnsupportedError naming it and the library, whatever the arguments', () => {
    for (const name of BACKWARD) {
      const fn = Reflect.get(c, name) as (...args: unknown[]) => unknown;
      for (const args of [[], [null], ['not a handle', 1n, Symbol('x')]]) {
        let thrown: unknown;
        try {
          fn(...args);
        } catch (error) {
          thrown = error;
        }
        expect(UnsupportedError.isInstance(thrown), name).toBe(true);
        expect((thrown as Error).message).toBe(
          `${name} is not exported by ${join(dir, 'libcudnn.so.9')} (cuDNN 9.14.0): this cuDNN cannot run it (probe().missingSymbols lists every such function)`,
        );
      }
    }
  });

  it('the functions it has still work', () => {
    const created = c.cudnnCreate();
    expect(created.status).toBe(0);
    expect(c.cudnnGetConvolutionForwardAlgorithmMaxCount(created.handle!)).toEqual({
      status: 0,
      count: 8,
    });
    expect(c.cudnnDestroy(created.handle!)).toBe(0);
  });
});
