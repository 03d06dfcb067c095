// Every collective × element kind on live communicators against the f64 host reference, with
// outputs poisoned (NaN) first. Used by nccl-device-check.mjs on GPUs, and on the fakes by
// src/device-check-host.test.ts (so the check itself is checked on CPU).
import { DeviceBuffer } from '@baracuda/driver';
import {
  elementArray,
  loadElement,
  relL2,
  storeElement,
} from '../../kernels/scripts/device-helpers.mjs';
import { group } from '../src/index.ts';
import {
  allGatherHost,
  allReduceHost,
  randomValues,
  reduceScatterHost,
} from './nccl-host-reference.mjs';

/**
 * Per kind: bytes and the tolerance of one rounding; a reduction over n ranks may round n - 1
 * times in the element type (NCCL reduces in it), so reductions allow tol · max(1, n - 1).
 */
export const KINDS = {
  f32: { bytes: 4, tol: 1e-6 },
  f64: { bytes: 8, tol: 1e-13 },
  f16: { bytes: 2, tol: 1e-3 },
  bf16: { bytes: 2, tol: 8e-3 },
};

function upload(kind, values, device) {
  const host = elementArray(kind, values.length);
  const stored = values.map((v, i) => storeElement(kind, host, i, v));
  const buffer = DeviceBuffer.alloc(host.byteLength, { device });
  buffer.uploadSync(host);
  return { buffer, stored };
}
function poisoned(kind, count, device) {
  return upload(kind, Array(count).fill(Number.NaN), device).buffer;
}
function download(kind, buffer) {
  const host = elementArray(kind, buffer.byteLength / KINDS[kind].bytes);
  buffer.downloadSync(host);
  return Array.from(host, (_, i) => loadElement(kind, host, i));
}

/**
 * Runs every case, calls report(name, relL2, tolerance) for each, and returns the number that
 * failed. `count` must divide by the number of ranks.
 */
export async function runCollectiveChecks({ comms, streams, count = 4096, report }) {
  const n = comms.length;
  let failed = 0;
  let seed = 1;
  const check = (name, got, want, tol) => {
    const error = relL2(got, want);
    const ok = error <= tol; // NaN (an unwritten output) fails
    if (!ok) failed++;
    report(name, error, tol, ok);
  };
  const finish = async () =>
    Promise.all(comms.map((c, r) => c.synchronize(streams[r], { timeoutMs: 60_000 })));
  for (const kind of Object.keys(KINDS)) {
    const tol = KINDS[kind].tol * Math.max(1, n - 1);
    const inputs = comms.map((c) => upload(kind, randomValues(count, ++seed), c.device));
    const values = inputs.map((x) => x.stored);
    for (const op of ['sum', 'avg', 'max', 'min']) {
      const out = comms.map((c) => poisoned(kind, count, c.device));
      group(() =>
        comms.forEach((c, r) => {
          c.allReduce(inputs[r].buffer, out[r], streams[r], { kind, op });
        }),
      );
      await finish();
      const want = allReduceHost(op, values);
      for (let r = 0; r < n; r++) {
        check(`allReduce ${op} ${kind} rank ${r}`, download(kind, out[r]), want, tol);
      }
      for (const b of out) b.dispose();
    }
    const root = n - 1;
    const bcast = comms.map((c) => poisoned(kind, count, c.device));
    group(() =>
      comms.forEach((c, r) => {
        c.broadcast(inputs[r].buffer, bcast[r], streams[r], { kind, root });
      }),
    );
    const block = count / n;
    const scattered = comms.map((c) => poisoned(kind, block, c.device));
    group(() =>
      comms.forEach((c, r) => {
        c.reduceScatter(inputs[r].buffer, scattered[r], streams[r], { kind, op: 'sum' });
      }),
    );
    const gathered = comms.map((c) => poisoned(kind, count * n, c.device));
    group(() =>
      comms.forEach((c, r) => {
        c.allGather(inputs[r].buffer, gathered[r], streams[r], { kind });
      }),
    );
    const ring = comms.map((c) => poisoned(kind, count, c.device));
    group(() =>
      comms.forEach((c, r) => {
        c.send(inputs[r].buffer, (r + 1) % n, streams[r], { kind });
        c.recv(ring[r], (r + n - 1) % n, streams[r], { kind });
      }),
    );
    await finish();
    comms.forEach((_, r) => {
      check(`broadcast root ${root} ${kind} rank ${r}`, download(kind, bcast[r]), values[root], 0);
      check(
        `reduceScatter sum ${kind} rank ${r}`,
        download(kind, scattered[r]),
        reduceScatterHost('sum', values, r, block),
        tol,
      );
      check(`allGather ${kind} rank ${r}`, download(kind, gathered[r]), allGatherHost(values), 0);
      check(`send/recv ${kind} rank ${r}`, download(kind, ring[r]), values[(r + n - 1) % n], 0);
    });
    for (const b of [...inputs.map((x) => x.buffer), ...bcast, ...scattered, ...gathered, ...ring])
      b.dispose();
  }
  return failed;
}
