import { describe, expect, it } from 'vitest';
import { DEPTHWISE_PTX } from './depthwise-ptx.js';
import { EPILOGUE_PTX } from './epilogue-ptx.js';
import { LAYOUT_PTX } from './layout-ptx.js';
import { SPACE_TO_DEPTH_PTX } from './space-to-depth-ptx.js';
import { SPLIT_TF32_PTX } from './split-tf32-ptx.js';

// scripts/gen-ptx.mjs declares PTX ISA 8.0 (CUDA 12.0) so that every CUDA 12 or 13 driver loads
// our kernels, and proves that with ptxas; this keeps a regenerated file from drifting back.
describe('the embedded PTX', () => {
  it.each([
    ['layout', LAYOUT_PTX],
    ['depthwise', DEPTHWISE_PTX],
    ['epilogue', EPILOGUE_PTX],
    ['space-to-depth', SPACE_TO_DEPTH_PTX],
    ['split-tf32', SPLIT_TF32_PTX],
  ])('%s declares PTX ISA 8.0 for sm_75', (_name, ptx) => {
    expect(ptx.split('\n').slice(0, 3)).toEqual([
      '.version 8.0',
      '.target sm_75',
      '.address_size 64',
    ]);
  });
});
