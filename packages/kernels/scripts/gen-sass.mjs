// Compiles one CUDA source to SASS cubins, one per architecture an ordinary GPU server has, for
// gen-ptx.mjs to write beside the unit's PTX. Why: the driver JIT-compiles PTX at module load,
// which took 6.2 s per fresh process on the H200 (run 73; the depthwise PTX alone is 1.7 MB) and
// landed in a user's first Conv3dPlan.select. A cubin for the device's exact architecture loads
// without the JIT; the PTX stays the fallback (other architectures, drivers older than nvcc).
//
// Each cubin is brotli-compressed at quality 11 and base64-encoded: brotli made the sm_90
// depthwise cubin 163 KB where gzip -9 made 347 KB, and Node decompresses it with node:zlib
// alone. nvcc writes the same cubin for the same source twice over (checked on V13.0.88), so
// gen-ptx --check compares the cubins too.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompressSync, constants } from 'node:zlib';

const run = promisify(execFile);

/**
 * The architectures we ship cubins for: Turing, A100, Ampere (RTX 30, A10/A40), Ada (L4, L40,
 * RTX 40), Hopper, Blackwell datacenter (B200), Blackwell consumer/workstation (RTX 50, RTX PRO).
 * nvcc 13 accepts all of them (`nvcc --list-gpu-arch`).
 */
export const SASS_ARCHS = ['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_100', 'sm_120'];

/** `bytes` brotli-compressed at the highest quality, as base64. */
export function packCubin(bytes) {
  return brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  }).toString('base64');
}

/** One nvcc per core at a time, across every unit's compiles (gen-ptx runs the units at once). */
let running = 0;
const waiting = [];
async function oneAtATimePerCore(job) {
  if (running >= Math.max(1, availableParallelism())) {
    await new Promise((resolve) => waiting.push(resolve));
  }
  running++;
  try {
    return await job();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * `{sm_75: base64, ...}`: `source` compiled with `-O3` for each of SASS_ARCHS, packed by
 * {@link packCubin}. Compiles run side by side, one per core.
 */
export async function compileSass(source, nvcc, archs = SASS_ARCHS) {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-sass-'));
  try {
    const packed = await Promise.all(
      archs.map((arch) =>
        oneAtATimePerCore(async () => {
          const out = join(dir, `${arch}.cubin`);
          await run(nvcc, ['-cubin', `-arch=${arch}`, '-O3', '-o', out, source]);
          return packCubin(readFileSync(out));
        }),
      ),
    );
    return Object.fromEntries(archs.map((arch, i) => [arch, packed[i]]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
