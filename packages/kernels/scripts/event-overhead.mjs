#!/usr/bin/env node
// Does the kind of timing event change what one call measures? (run on the GPU machine)
//   node packages/kernels/scripts/event-overhead.mjs
// For two benchmark rows whose kernels ran as long as PyTorch's under Nsight Compute, yet whose
// calls measured 1.5-3 µs longer than PyTorch's in the bench, time one call between two events
// made with CU_EVENT_BLOCKING_SYNC (the driver's default), between two made without it (as
// torch.cuda.Event makes them), and a loop of calls between one pair; in alternating rounds, each
// the median of REPS calls. Also an empty pair of events of each kind, nothing between them.
import { DeviceBuffer, Event, Stream } from '../../driver/dist/index.js';
import { Conv3dDescriptor, Conv3dPlan, median } from '../dist/index.js';

const REPS = 200;
const ROUNDS = 5;
const stream = Stream.create();

const ROWS = [
  {
    name: 'pointwise f32 ncdhw bwData',
    pass: 'bwData',
    sets: 3,
    desc: Conv3dDescriptor.create({
      batch: 8,
      cIn: 256,
      dIn: 8,
      hIn: 28,
      wIn: 28,
      cOut: 64,
      dFilt: 1,
      hFilt: 1,
      wFilt: 1,
      element: 'f32',
    }),
  },
  {
    name: 'dilated bf16 ndhwc bwFilter',
    pass: 'bwFilter',
    sets: 2,
    desc: Conv3dDescriptor.create({
      batch: 2,
      cIn: 64,
      dIn: 32,
      hIn: 64,
      wIn: 64,
      cOut: 64,
      dFilt: 3,
      hFilt: 3,
      wFilt: 3,
      element: 'bf16',
    })
      .withPadding(2, 2, 2)
      .withDilation(2, 2, 2)
      .withLayout('ndhwc'),
  },
];

/** A device buffer of `elements` random values in [-1, 1) (bf16: the top half of an f32). */
function randomBuffer(element, elements) {
  const f = new Float32Array(elements);
  for (let i = 0; i < elements; i++) f[i] = Math.random() * 2 - 1;
  const bytes = element === 'bf16' ? new Uint16Array(f.buffer).filter((_, i) => i % 2 === 1) : f;
  const buffer = DeviceBuffer.alloc(bytes.byteLength, { stream });
  buffer.uploadSync(bytes);
  return buffer;
}

async function perCall(events, call) {
  for (let i = 0; i < 10; i++) call(i);
  for (let i = 0; i < REPS; i++) {
    events[2 * i].record(stream);
    call(i);
    events[2 * i + 1].record(stream);
  }
  await stream.synchronize();
  const t = [];
  for (let i = 0; i < REPS; i++) t.push(Event.elapsedMs(events[2 * i], events[2 * i + 1]));
  return median(t) * 1e3;
}

async function loop(events, call) {
  for (let i = 0; i < 10; i++) call(i);
  events[0].record(stream);
  for (let i = 0; i < REPS; i++) call(i);
  events[1].record(stream);
  await stream.synchronize();
  return (Event.elapsedMs(events[0], events[1]) / REPS) * 1e3;
}

const kinds = {
  blocking: Array.from({ length: 2 * REPS }, () => Event.create(undefined, { timing: true })),
  plain: Array.from({ length: 2 * REPS }, () =>
    Event.create(undefined, { timing: true, blockingSync: false }),
  ),
};

for (const row of ROWS) {
  const d = row.desc;
  const plan = await Conv3dPlan.select(
    stream,
    d,
    { algorithm: 'heuristic' },
    { passes: [row.pass] },
  );
  const sets = Array.from({ length: row.sets }, () => ({
    x: randomBuffer(d.element, d.xElements),
    w: randomBuffer(d.element, d.wElements),
    y: randomBuffer(d.element, d.yElements),
  }));
  const call = (i) => {
    const s = sets[i % sets.length];
    if (row.pass === 'bwData') plan.runBwData({ w: s.w, dy: s.y, dx: s.x, stream });
    else plan.runDw({ x: s.x, dy: s.y, dw: s.w, stream });
  };
  const empty = () => {};
  const results = { blocking: [], plain: [], loop: [], emptyBlocking: [], emptyPlain: [] };
  for (let round = 0; round < ROUNDS; round++) {
    results.blocking.push(await perCall(kinds.blocking, call));
    results.plain.push(await perCall(kinds.plain, call));
    results.loop.push(await loop(kinds.plain, call));
    results.emptyBlocking.push(await perCall(kinds.blocking, empty));
    results.emptyPlain.push(await perCall(kinds.plain, empty));
  }
  const a = plan.algorithm(row.pass);
  console.log(`${row.name}: ${a.name} (median of ${REPS} per round, µs)`);
  for (const [k, v] of Object.entries(results)) {
    console.log(
      `  ${k.padEnd(14)} ${v.map((x) => x.toFixed(2)).join(' ')}  median ${median(v).toFixed(2)}`,
    );
  }
  plan.dispose();
  for (const s of sets) for (const b of Object.values(s)) b.dispose();
}
