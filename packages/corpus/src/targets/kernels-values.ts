/** Values made of @baracuda/kernels objects and files: descriptors, plans' operands, cache paths. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as kernels from '@baracuda/kernels';
import { Workspace } from '@baracuda/types';
import type { Fixtures } from '../model.js';
import type { ValueMaker } from '../values.js';
import { DRIVER_VALUES, newBuffer } from './driver-values.js';

const { Conv3dDescriptor, CONV3D_ERRATA, AUTOTUNE_CACHE_VERSION } = kernels;

/** n=1, 4→4 channels, 4×4×4, filter 1×3×3, f32 NCDHW. */
export function smallDescriptor(): kernels.Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch: 1,
    cIn: 4,
    dIn: 4,
    hIn: 4,
    wIn: 4,
    cOut: 4,
    dFilt: 1,
    hFilt: 3,
    wFilt: 3,
    element: 'f32',
  });
}

/** A plain DeviceSlice of exactly `bytes` over a fresh buffer on `ordinal`. */
export function operand(
  f: Fixtures,
  bytes: number,
  ordinal = 0,
): { devicePtr: bigint; byteLength: number } {
  return { devicePtr: newBuffer(f, 4096, ordinal).devicePtr, byteLength: bytes };
}

let files = 0;
/** The corpus's scratch folder ($BARACUDA_CORPUS_WORK, set by the runner), one name per call. */
function scratch(name: string): string {
  const work = process.env.BARACUDA_CORPUS_WORK ?? '.';
  const dir = join(work, `p${process.pid}`);
  mkdirSync(dir, { recursive: true });
  files += 1;
  return join(dir, `${files}-${name}`);
}

function file(name: string, text: string): string {
  const path = scratch(name);
  writeFileSync(path, text);
  return path;
}

export const KERNELS_VALUES: Record<string, ValueMaker> = {
  ...DRIVER_VALUES,
  descriptorMimic: () => ({ ...smallDescriptor() }),
  layoutNcdhw: () => 'ncdhw',
  layoutNdhwc: () => 'ndhwc',
  layoutBogus: () => 'nchw',
  algoHeuristic: () => 'heuristic',
  algoPinned: () => 'pinned',
  algoBogus: () => 'fastest',
  tuned: () => 'tuned',
  always: () => 'always',
  never: () => 'never',
  passesAll: () => ['fw', 'bwData', 'bwFilter'],
  passesBogus: () => ['fwd'],
  passesSparse: () => {
    const passes = new Array(2);
    passes[1] = 'fw';
    return passes;
  },
  stringArray: () => ['NONDETERMINISTIC'],
  tmpPath: () => scratch('autotune.json'),
  passFw: () => 'fw',
  passBogus: () => 'bw',
  erratumMimic: () => ({ id: 'corpus' }),
  envWithPath: () => ({ BARACUDA_AUTOTUNE_CACHE: scratch('env.json') }),
  cacheMissing: () => scratch('missing.json'),
  cacheValid: () =>
    file('valid.json', JSON.stringify({ version: AUTOTUNE_CACHE_VERSION, entries: {} })),
  cacheCorrupt: () => file('corrupt.json', '{"version": 5, "entries": {'),
  cacheDirectory: () => {
    const path = scratch('directory');
    mkdirSync(path);
    return path;
  },
  cacheFifo: () => {
    const path = scratch('fifo');
    execFileSync('mkfifo', [path]);
    return path;
  },
  cacheDevZero: () => '/dev/zero',
  cacheSymlink: () => {
    const path = scratch('link.json');
    symlinkSync('/dev/zero', path);
    return path;
  },
  tensorOtherDevice: (ctx) => newBuffer(ctx.fixtures, 4096, 1),
  workspaceNone: () => Workspace.none(),
  workspaceBorrowed: (ctx) => Workspace.borrowed(operand(ctx.fixtures, 4096)),
  workspaceCyclic: (ctx) => {
    const workspace: Record<string, unknown> = { kind: 'borrowed', ...operand(ctx.fixtures, 4096) };
    workspace.slice = workspace;
    return workspace;
  },
  erratum: () => CONV3D_ERRATA[0],
};
