import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEPTHWISE_PTX_NVCC } from './depthwise-ptx.js';
import { EPILOGUE_PTX_NVCC } from './epilogue-ptx.js';
import { LAYOUT_PTX_NVCC } from './layout-ptx.js';
import { SPACE_TO_DEPTH_PTX_NVCC } from './space-to-depth-ptx.js';
import { SPLIT_TF32_PTX_NVCC } from './split-tf32-ptx.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const nvcc = process.env.NVCC ?? '/usr/local/cuda/bin/nvcc';
function localNvcc(): string | null {
  if (!existsSync(nvcc)) return null;
  const m = /, (V\d+\.\d+\.\d+)/.exec(execFileSync(nvcc, ['--version'], { encoding: 'utf8' }));
  return m ? m[1]! : null;
}
const version = localNvcc();

describe.skipIf(
  version !== LAYOUT_PTX_NVCC ||
    version !== DEPTHWISE_PTX_NVCC ||
    version !== SPACE_TO_DEPTH_PTX_NVCC ||
    version !== EPILOGUE_PTX_NVCC ||
    version !== SPLIT_TF32_PTX_NVCC,
)(
  `src/*-ptx.ts (layout, depthwise, space-to-depth, epilogue, split-tf32; PTX, and cubins by their recorded inputs) are what nvcc ${LAYOUT_PTX_NVCC} makes of cuda/ (skipped: ${version === null ? `no nvcc at ${nvcc}` : `nvcc here is ${version}`})`,
  () => {
    it('is current', () => {
      const out = execFileSync(
        'node',
        [join(root, 'scripts', 'gen-ptx.mjs'), '--check', '--trust-sass'],
        {
          encoding: 'utf8',
          env: { ...process.env, NVCC: nvcc },
        },
      );
      expect(out.trim().split('\n')).toEqual([
        'src/layout-ptx.ts is current',
        'src/depthwise-ptx.ts is current',
        'src/space-to-depth-ptx.ts is current',
        'src/epilogue-ptx.ts is current',
        'src/split-tf32-ptx.ts is current',
      ]);
      // Five units compiled to PTX (proved by ptxas); their cubins kept where the inputs recorded
      // beside them (SASS_INPUTS) are unchanged, compiled otherwise (then about 3 min of CPU).
    }, 900_000);
  },
);
