#!/usr/bin/env node
// Our side of the layer benchmark (scripts/device/bench-layer.sh runs it in turns with
// packages/conformance/bench/torch_layer_bench.py):
//   node layer-bench.mjs SUITE.json ROUND CASE:DTYPE:LAYOUT ...
// For each row: the convolution with the epilogue bias + ReLU in one runFw (a fused cuDNN graph
// where the heuristics offer one, else the convolution and our epilogue kernel: the `algorithm`
// field says which), and the plain convolution for reference; heuristic plans, TF32 off (the
// default). CUDA events around each call after 5 warm-up calls (device-helpers' eventTimer), the
// median of 30. One JSON line per row on stdout, tagged with ROUND.
import { readFileSync } from 'node:fs';
import { DeviceBuffer, Stream } from '../../driver/dist/index.js';
import { Conv3dDescriptor, Conv3dPlan } from '../dist/index.js';
import { eventTimer } from './device-helpers.mjs';

const [suitePath, roundText, ...rows] = process.argv.slice(2);
const cases = new Map(JSON.parse(readFileSync(suitePath, 'utf8')).cases.map((c) => [c.name, c]));
const stream = Stream.create();
const BYTES = { f32: 4, f16: 2, bf16: 2 };

for (const row of rows) {
  const [name, element, layout] = row.split(':');
  const c = cases.get(name);
  const base = Conv3dDescriptor.create({
    batch: c.n,
    cIn: c.c_in,
    dIn: c.in[0],
    hIn: c.in[1],
    wIn: c.in[2],
    cOut: c.c_out,
    dFilt: c.k[0],
    hFilt: c.k[1],
    wFilt: c.k[2],
    element,
  })
    .withPadding(...c.pad)
    .withStride(...c.stride)
    .withDilation(...(c.dil ?? [1, 1, 1]))
    .withGroups(c.groups ?? 1)
    .withLayout(layout);
  const layer = base.withEpilogue({ bias: true, activation: 'relu' });
  const bytes = BYTES[element];
  const buffers = [base.xElements, base.wElements, base.yElements, base.cOut].map((n) =>
    DeviceBuffer.alloc(n * bytes),
  );
  // Small values (not zeros: a kernel may skip work on zeros; not NaN): 0x2c2c... is ~0.06 in f16.
  for (const b of buffers) b.memsetSync(0x2c);
  const [x, w, y, bias] = buffers;
  const fused = await Conv3dPlan.select(stream, layer);
  const plain = await Conv3dPlan.select(stream, base);
  const time = eventTimer(stream, { warmup: 5, reps: 30 });
  const layerMs = time(() => fused.runFw({ x, w, y, bias }));
  const convMs = time(() => plain.runFw({ x, w, y }));
  console.log(
    JSON.stringify({
      side: 'ours',
      round: Number(roundText),
      row,
      layer_ms: layerMs,
      conv_ms: convMs,
      algorithm: fused.algorithm('fw').name,
      conv_algorithm: plain.algorithm('fw').name,
    }),
  );
  fused.dispose();
  plain.dispose();
  for (const b of buffers) b.dispose();
}
stream.dispose();
