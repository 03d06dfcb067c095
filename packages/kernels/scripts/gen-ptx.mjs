#!/usr/bin/env node
// Compiles our CUDA sources to PTX and to SASS cubins (gen-sass.mjs: one per architecture of
// SASS_ARCHS, compressed, as the map <NAME>_SASS beside the PTX) and writes each as a string
// constant: cuda/layout.cu to
// src/layout-ptx.ts (LAYOUT_PTX), cuda/depthwise.cu to src/depthwise-ptx.ts (DEPTHWISE_PTX) and
// cuda/space-to-depth.cu to src/space-to-depth-ptx.ts (SPACE_TO_DEPTH_PTX).
// cuda/epilogue.cu to src/epilogue-ptx.ts (EPILOGUE_PTX).
// cuda/split-tf32.cu to src/split-tf32-ptx.ts (SPLIT_TF32_PTX).
//
//   node scripts/gen-ptx.mjs           regenerate
//   node scripts/gen-ptx.mjs --check   exit 1 when a generated file is not what nvcc makes now
//   ... --check --trust-sass            the same, keeping a file's cubins where the inputs they
//                                       were made of (its SASS_INPUTS: nvcc, archs, the source and
//                                       its headers) are unchanged (the test's mode: seconds, not
//                                       minutes)
//
// nvcc: $NVCC, else /usr/local/cuda/bin/nvcc, else `nvcc` on PATH. The PTX targets compute_75 (the
// oldest architecture CUDA 13 supports); the driver compiles it for the GPU at load. Comment lines
// are dropped so the output depends on the source and the compiler only.
//
// nvcc 13 writes `.version 9.0`, which only r580+ (CUDA 13) drivers load. The PTX is declared as
// PTX ISA PTX_ISA (8.0, CUDA 12.0: every r525+ driver) instead, and then proved valid at that ISA
// by ptxas, which rejects any instruction or modifier the declared version lacks ("Feature '…'
// requires PTX ISA .version 8.x or later"); generation fails if it does.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileSass, SASS_ARCHS } from './gen-sass.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** What is generated: the CUDA source, the TS file, its constant's name and what the PTX is. */
export const UNITS = [
  { source: 'layout.cu', target: 'layout-ptx.ts', name: 'LAYOUT', what: 'the layout transposes' },
  {
    source: 'depthwise.cu',
    target: 'depthwise-ptx.ts',
    name: 'DEPTHWISE',
    what: 'the depthwise convolution kernels',
  },
  {
    source: 'space-to-depth.cu',
    target: 'space-to-depth-ptx.ts',
    name: 'SPACE_TO_DEPTH',
    what: 'the space-to-depth transforms',
  },
  {
    source: 'epilogue.cu',
    target: 'epilogue-ptx.ts',
    name: 'EPILOGUE',
    what: 'the epilogue kernels (bias, residual, activation; their backward)',
  },
  {
    source: 'split-tf32.cu',
    target: 'split-tf32-ptx.ts',
    name: 'SPLIT_TF32',
    what: 'the 3xTF32 split of an f32 tensor into TF32 high and low parts',
  },
];

/** The PTX ISA version the generated PTX declares (CUDA 12.0 = PTX ISA 8.0). */
export const PTX_ISA = '8.0';

/** `ptx` declaring PTX ISA `isa` when nvcc wrote a newer one. */
export function lowerPtxIsa(ptx, isa = PTX_ISA) {
  return ptx.replace(/^\.version (\d+)\.(\d+)$/m, (line, major, minor) => {
    const [wantMajor, wantMinor] = isa.split('.').map(Number);
    const newer =
      Number(major) > wantMajor || (Number(major) === wantMajor && Number(minor) > wantMinor);
    return newer ? `.version ${isa}` : line;
  });
}

/** Throws unless ptxas (beside nvcc) assembles `file` for sm_75 at the ISA it declares. */
function provePtx(file, nvcc) {
  const beside = join(dirname(nvcc), 'ptxas');
  const ptxas = existsSync(beside) ? beside : 'ptxas';
  try {
    execFileSync(ptxas, ['-arch=sm_75', '-o', join(dirname(file), 'out.cubin'), file], {
      stdio: 'pipe',
    });
  } catch (error) {
    throw new Error(
      `ptxas rejects the PTX at .version ${PTX_ISA}: ${String(error.stderr ?? error.message)}`,
    );
  }
}

function findNvcc() {
  if (process.env.NVCC) return process.env.NVCC;
  if (existsSync('/usr/local/cuda/bin/nvcc')) return '/usr/local/cuda/bin/nvcc';
  return 'nvcc';
}

export function nvccVersion(nvcc = findNvcc()) {
  const text = execFileSync(nvcc, ['--version'], { encoding: 'utf8' });
  const m = /, (V\d+\.\d+\.\d+)/.exec(text);
  if (!m)
    throw new Error(
      `Expected nvcc --version to name a version like V13.0.88 but received: ${text}`,
    );
  return m[1];
}

/** The text of one unit's generated file. */
/**
 * What the unit's cubins are a function of: nvcc's version, the architectures, and the text of
 * its source and of every local header it includes (recursively), as a sha256.
 */
export function sassInputs(unit, version) {
  const hash = createHash('sha256').update(`${version}\n${SASS_ARCHS.join(',')}\n-O3\n`);
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    const text = readFileSync(join(root, 'cuda', name), 'utf8');
    hash.update(`${name}\n${text}\n`);
    for (const m of text.matchAll(/^#include "([^"]+)"/gm)) visit(m[1]);
  };
  visit(unit.source);
  return hash.digest('hex');
}

/** The cubins of `unit`'s generated file as it is, when made from `inputs`; else null. */
function currentSass(unit, inputs) {
  const target = join(root, 'src', unit.target);
  if (!existsSync(target)) return null;
  const text = readFileSync(target, 'utf8');
  if (!text.includes(`_SASS_INPUTS = '${inputs}';`)) return null;
  const m = /_SASS: Record<string, string> = \{\n([\s\S]*?)\n\};/.exec(text);
  if (!m) return null;
  return Object.fromEntries(
    m[1].split('\n').map((line) => {
      const [, arch, packed] = /^ {2}(\w+): '([^']*)',$/.exec(line) ?? [];
      return [arch, packed];
    }),
  );
}

/**
 * The text of one unit's generated file. `trustSass`: where the file's recorded cubin inputs
 * (SASS_INPUTS) equal the current ones, keep its cubins instead of compiling them again (nvcc
 * makes the same cubin of the same inputs; compiling 7 architectures of 5 units took 110 s of a
 * two-core CI run's test, twice); the PTX is made and proved either way.
 */
export async function generate(unit, nvcc = findNvcc(), { trustSass = false } = {}) {
  const inputs = sassInputs(unit, nvccVersion(nvcc));
  const kept = trustSass ? currentSass(unit, inputs) : null;
  // The cubins compile in child processes while this thread makes and proves the PTX.
  const cubins =
    kept !== null ? Promise.resolve(kept) : compileSass(join(root, 'cuda', unit.source), nvcc);
  cubins.catch(() => {}); // awaited below; a PTX failure first must not leave it unhandled
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-ptx-'));
  try {
    const out = join(dir, 'out.ptx');
    execFileSync(
      nvcc,
      ['-ptx', '-arch=compute_75', '-O3', '-o', out, join(root, 'cuda', unit.source)],
      {
        stdio: 'pipe',
      },
    );
    const ptx = lowerPtxIsa(
      readFileSync(out, 'utf8')
        .split('\n')
        .filter((line) => !line.trimStart().startsWith('//') && line.trim() !== '')
        .join('\n'),
    );
    const lowered = join(dir, 'lowered.ptx');
    writeFileSync(lowered, `${ptx}\n`);
    provePtx(lowered, nvcc);
    const version = nvccVersion(nvcc);
    const sass = await cubins;
    return [
      `// Generated by scripts/gen-ptx.mjs from cuda/${unit.source} with nvcc ${version}. Do not edit.`,
      `/** @internal The nvcc that made {@link ${unit.name}_PTX}. */`,
      `export const ${unit.name}_PTX_NVCC = '${version}';`,
      `/** @internal PTX of ${unit.what} (cuda/${unit.source}). */`,
      `export const ${unit.name}_PTX = ${JSON.stringify(`${ptx}\n`)};`,
      `/**`,
      ` * @internal SASS cubins of the same source (-O3), keyed by architecture ('sm_90'): each`,
      ` * brotli-compressed and base64-encoded (module-cache.ts unpacks the device's own).`,
      ` */`,
      `/** @internal What {@link ${unit.name}_SASS} was made of (gen-ptx.mjs sassInputs). */`,
      `export const ${unit.name}_SASS_INPUTS = '${inputs}';`,
      `export const ${unit.name}_SASS: Record<string, string> = {`,
      ...Object.entries(sass).map(([arch, packed]) => `  ${arch}: '${packed}',`),
      '};',
      '',
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let stale = false;
  // All units at once (gen-sass keeps one nvcc per core); reported in UNITS order.
  const trustSass = process.argv.includes('--trust-sass');
  const texts = UNITS.map((unit) => generate(unit, undefined, { trustSass }));
  for (const [i, unit] of UNITS.entries()) {
    const target = join(root, 'src', unit.target);
    const text = await texts[i];
    if (process.argv.includes('--check')) {
      const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
      if (current !== text) {
        console.error(
          `src/${unit.target} is stale: run \`node scripts/gen-ptx.mjs\` in packages/kernels`,
        );
        stale = true;
      } else {
        console.log(`src/${unit.target} is current`);
      }
    } else {
      writeFileSync(target, text);
      console.log(`wrote ${target}`);
    }
  }
  if (stale) process.exit(1);
}
