// The cubins scripts/gen-sass.mjs packed into src/*-ptx.ts: every unit ships one per
// architecture, and each unpacks (as module-cache.ts unpacks it) to a CUDA ELF image.
import { describe, expect, it } from 'vitest';
import { DEPTHWISE_SASS } from './depthwise-ptx.js';
import { EPILOGUE_SASS } from './epilogue-ptx.js';
import { LAYOUT_SASS } from './layout-ptx.js';
import { cubinFor } from './module-cache.js';
import { SPACE_TO_DEPTH_SASS } from './space-to-depth-ptx.js';
import { SPLIT_TF32_SASS } from './split-tf32-ptx.js';

const ARCHS = ['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_100', 'sm_120'];
/** ELF's e_machine for NVIDIA CUDA (EM_CUDA). */
const EM_CUDA = 190;

describe.each([
  ['layout', LAYOUT_SASS],
  ['depthwise', DEPTHWISE_SASS],
  ['epilogue', EPILOGUE_SASS],
  ['space-to-depth', SPACE_TO_DEPTH_SASS],
  ['split-tf32', SPLIT_TF32_SASS],
])('the %s cubins', (_name, sass) => {
  it('cover every architecture we ship', () => {
    expect(Object.keys(sass)).toEqual(ARCHS);
  });

  it.each(ARCHS)('%s unpacks to a 64-bit little-endian CUDA ELF', (arch) => {
    const [major, minor] = [Number(arch.slice(3, -1)), Number(arch.slice(-1))];
    const found = cubinFor(sass, { ordinal: 0, name: arch, computeCapability: { major, minor } });
    expect(found?.arch).toBe(arch);
    const image = found!.image;
    expect([...image.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    expect([image[4], image[5]]).toEqual([2, 1]); // ELFCLASS64, ELFDATA2LSB
    expect(image[18]! | (image[19]! << 8)).toBe(EM_CUDA);
  });
});
