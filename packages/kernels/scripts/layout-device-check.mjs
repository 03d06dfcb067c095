#!/usr/bin/env node
// Device check of the layout transposes (cuda/layout.cu → src/layout-ptx.ts), run on the GPU
// machine (bundled by scripts/device/pack.sh):
//   node layout-device-check.mjs
// For 2-, 4- and 8-byte elements and odd shapes (tiles cut at every edge, a batch beyond the
// grid's 65535), fills the source with distinct random bit patterns, poisons the destination,
// transposes on the GPU and compares every element with the CPU transpose. Then times the
// transposes of c3d-conv2's operands (median of 30, CUDA events) against a device-to-device copy
// of the same bytes. Then the filter flips (baracuda_flip_filter_*) of odd and grouped filters in
// both layouts, likewise against the CPU's. Exit code 1 on any mismatch.
import { DeviceBuffer, Stream } from '../../driver/dist/index.js';
import {
  flipFilterHost,
  LayoutKernels,
  narrowTranspose,
  transposeHost,
  usesPairs,
  vectorTranspose,
} from '../src/layout.ts';
import { eventTimer } from './device-helpers.mjs';

const stream = Stream.create();
const device = stream.device;
const kernels = LayoutKernels.forDevice(device);
if (kernels instanceof Error) {
  console.log(`FAIL: the layout kernels did not load: ${kernels.message}`);
  process.exit(1);
}
let failures = 0;

const arrays = { 2: Uint16Array, 4: Uint32Array, 8: BigUint64Array };
function random(bytes, count) {
  const a = new arrays[bytes](count);
  const u8 = new Uint8Array(a.buffer);
  for (let i = 0; i < u8.length; i++) u8[i] = (Math.random() * 256) | 0;
  return a;
}

const shapes = [
  { batch: 1, rows: 1, cols: 1 },
  { batch: 3, rows: 33, cols: 65 },
  { batch: 2, rows: 64, cols: 50176 / 16 },
  { batch: 5, rows: 31, cols: 7 },
  { batch: 70000, rows: 3, cols: 5 },
  { batch: 1, rows: 16, cols: 100003 },
  { batch: 2, rows: 100003, cols: 16 },
  // Even extents: the paired 2-byte kernel (64×64 tiles), cut at every edge.
  { batch: 3, rows: 34, cols: 66 },
  { batch: 2, rows: 100002, cols: 16 },
  { batch: 4, rows: 130, cols: 62 },
  { batch: 70000, rows: 2, cols: 4 },
  // Multiples of 8: the 16-byte vector kernels (every element size), tiles cut at every edge.
  { batch: 3, rows: 136, cols: 264 },
  { batch: 70000, rows: 8, cols: 8 },
  { batch: 2, rows: 32, cols: 100000 },
  { batch: 1, rows: 100000, cols: 24 },
  { batch: 2, rows: 64, cols: 50176 / 4 },
  { batch: 2, rows: 50176 / 4, cols: 128 },
  // A side of at most 16 (narrow kernels; several shapes above are too): 3 channels both ways.
  { batch: 2, rows: 3, cols: 100003 },
  { batch: 2, rows: 100003, cols: 3 },
  { batch: 3, rows: 16, cols: 33 },
];
// Each shape at aligned pointers, and (2-byte elements) with the source 2 bytes off, which must
// take the plain kernel.
const runs = [];
for (const bytes of [2, 4, 8]) {
  for (const shape of shapes) runs.push({ bytes, shape, offset: 0 });
}
for (const shape of shapes.slice(-13, -9)) runs.push({ bytes: 2, shape, offset: 2 });
// The vector shapes with the source 4 bytes off 16: the narrow, paired or plain kernels.
for (const shape of shapes.slice(-9, -3)) {
  for (const bytes of [2, 4]) runs.push({ bytes, shape, offset: 4 });
}
/**
 * Upload `src` (`offset` bytes into its buffer), poison the destination, run `launch(from, to)`
 * on the GPU and compare every element with `expected`; `describe(from, to)` names the case.
 */
function checkExact(bytes, src, expected, offset, launch, describe) {
  const count = src.length;
  const a = DeviceBuffer.alloc(count * bytes + offset);
  const b = DeviceBuffer.alloc(count * bytes);
  a.uploadSync(src, offset);
  b.memsetSync(0xff);
  const from = a.devicePtr + BigInt(offset);
  const ok = launch(from, b.devicePtr);
  stream.synchronizeSync();
  const got = new arrays[bytes](count);
  b.downloadSync(got);
  let bad = 0;
  for (let i = 0; i < count; i++) if (got[i] !== expected[i]) bad++;
  const what = describe(from, b.devicePtr);
  if (!ok || bad > 0) {
    failures++;
    console.log(`FAIL ${what}: launched=${ok}, ${bad} of ${count} elements differ`);
  } else {
    console.log(`PASS ${what}: ${count} elements exact`);
  }
  a.dispose();
  b.dispose();
}

function kernelOf(from, to, shape, bytes) {
  if (vectorTranspose(from, to, shape, bytes) !== null) return ' (vector)';
  if (narrowTranspose(shape) !== null) return ' (narrow)';
  return usesPairs(from, to, shape, bytes) ? ' (pairs)' : '';
}

for (const { bytes, shape, offset } of runs) {
  const count = shape.batch * shape.rows * shape.cols;
  const src = random(bytes, count);
  checkExact(
    bytes,
    src,
    transposeHost(src, new arrays[bytes](count), shape),
    offset,
    (from, to) => kernels.transpose(stream, from, to, shape, bytes),
    (from, to) =>
      `b${bytes * 8}${kernelOf(from, to, shape, bytes)} batch=${shape.batch} rows=${shape.rows} cols=${shape.cols} source offset ${offset}`,
  );
}

// Filter flips: [groups * kg][cg][taps] (or [..][taps][cg]) → [groups * cg][kg][taps reversed].
const flips = [
  { groups: 1, kg: 1, cg: 1, spatial: 1 },
  { groups: 1, kg: 64, cg: 256, spatial: 1 },
  { groups: 1, kg: 128, cg: 64, spatial: 27 },
  { groups: 8, kg: 16, cg: 16, spatial: 27 },
  { groups: 3, kg: 5, cg: 7, spatial: 2 * 3 * 5 },
  { groups: 192, kg: 1, cg: 1, spatial: 27 },
  // More elements than 65535 blocks of 256 threads: the grid-stride loop.
  { groups: 1, kg: 320, cg: 320, spatial: 175 },
];
for (const bytes of [2, 4, 8]) {
  for (const f of flips) {
    for (const layout of ['ncdhw', 'ndhwc']) {
      const total = f.groups * f.kg * f.cg * f.spatial;
      const flip = { kg: f.kg, cg: f.cg, spatial: f.spatial, total, layout };
      const src = random(bytes, total);
      checkExact(
        bytes,
        src,
        flipFilterHost(src, new arrays[bytes](total), flip),
        0,
        (from, to) => kernels.flipFilter(stream, from, to, flip, bytes),
        () =>
          `flip b${bytes * 8} ${layout} groups=${f.groups} kg=${f.kg} cg=${f.cg} taps=${f.spatial}`,
      );
    }
  }
}

// Speed on c3d-conv2 (n=8, c 64→128, 16×56×56), 2-byte elements.
const time = eventTimer(stream, { warmup: 3 });
// Each timed on the kernel the detour takes (16-byte aligned: the vector kernel where the extents
// allow) and, with the source 4 bytes off, on the kernel it took before (paired or plain).
for (const [what, shape] of [
  ['c3d-conv2 x NCDHW→NDHWC', { batch: 8, rows: 64, cols: 16 * 56 * 56 }],
  ['c3d-conv2 y NDHWC→NCDHW', { batch: 8, rows: 16 * 56 * 56, cols: 128 }],
  ['c3d-conv2 y NCDHW→NDHWC', { batch: 8, rows: 128, cols: 16 * 56 * 56 }],
  ['c3d-conv2 x NDHWC→NCDHW', { batch: 8, rows: 16 * 56 * 56, cols: 64 }],
  ['unet3d-enc1 x NCDHW→NDHWC', { batch: 2, rows: 32, cols: 128 ** 3 }],
  ['unet3d-enc1 x NDHWC→NCDHW', { batch: 2, rows: 128 ** 3, cols: 32 }],
  ['c3d-conv2 w NCDHW→NDHWC', { batch: 128, rows: 64, cols: 27 }],
  ['i3d-stem x NCDHW→NDHWC', { batch: 8, rows: 3, cols: 32 * 224 * 224 }],
  ['videomae-patch x NDHWC→NCDHW', { batch: 8, rows: 16 * 224 * 224, cols: 3 }],
]) {
  for (const bytes of [2, 4]) {
    const count = shape.batch * shape.rows * shape.cols;
    const a = DeviceBuffer.alloc(count * bytes + 16);
    const b = DeviceBuffer.alloc(count * bytes);
    a.memsetSync(1);
    const gbs = (ms) => ((2 * count * bytes) / (ms * 1e-3) / 1e9).toFixed(0);
    const timed = (offset) => {
      const from = a.devicePtr + BigInt(offset);
      const ms = time(() => kernels.transpose(stream, from, b.devicePtr, shape, bytes));
      return `${ms.toFixed(4)} ms (${gbs(ms)} GB/s${kernelOf(from, b.devicePtr, shape, bytes)})`;
    };
    const now = timed(0);
    const before = timed(4);
    const same = { devicePtr: a.devicePtr, byteLength: count * bytes };
    const c = time(() => b.copyFrom(same, stream));
    console.log(
      `TIME ${what} b${bytes * 8} (${((count * bytes) / 2 ** 20).toFixed(1)} MiB): transpose ${now}, off 16 bytes ${before}, copy ${c.toFixed(4)} ms (${gbs(c)} GB/s)`,
    );
    a.dispose();
    b.dispose();
  }
}
{
  // c3d-conv2's filter (128×64×27) flipped, the step before its backward-data as a forward pass.
  const flip = { kg: 128, cg: 64, spatial: 27, total: 128 * 64 * 27, layout: 'ncdhw' };
  for (const bytes of [2, 4]) {
    const a = DeviceBuffer.alloc(flip.total * bytes);
    const b = DeviceBuffer.alloc(flip.total * bytes);
    a.memsetSync(1);
    const t = time(() => kernels.flipFilter(stream, a.devicePtr, b.devicePtr, flip, bytes));
    console.log(`TIME c3d-conv2 w flip b${bytes * 8}: ${t.toFixed(4)} ms`);
    a.dispose();
    b.dispose();
  }
}
console.log(failures === 0 ? 'layout transposes: PASS' : `layout transposes: FAIL (${failures})`);
process.exit(failures === 0 ? 0 : 1);
