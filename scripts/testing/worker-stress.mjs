/**
 * Worker threads against the native addons (and the C fakes): proves that
 * terminating a worker in the middle of a native call never takes the process
 * down, and that several workers can use the addons at once.
 *
 *   node worker-stress.mjs terminate <driver|cudnn|both> [rounds=100]
 *   node worker-stress.mjs concurrent <driver|cudnn|both> [workers=4]
 *
 * The addons are BARACUDA_DRIVER_ADDON / BARACUDA_CUDNN_ADDON (the .node
 * files), else those in BARACUDA_ADDON_DIR, else the packages' build/Release;
 * the fakes are BARACUDA_CUDA_DRIVER_LIBRARY / BARACUDA_CUDNN_LIBRARY, else
 * built by build-fake.mjs. Prints one summary line and exits 0; a crash shows
 * as a signal or a non-zero exit. The driver's and cudnn-sys's tests run it (see
 * src/workers.test.ts there); CI runs the `both` forms once both are built.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { buildFakeCudnnLibrary, buildFakeLibcudaLibrary, REPO_ROOT } from './build-fake.mjs';

const [mode = 'terminate', which = 'both', countText] = process.argv.slice(2);
const count = Number(countText ?? (mode === 'terminate' ? 100 : 4));
const useDriver = which === 'driver' || which === 'both';
const useCudnn = which === 'cudnn' || which === 'both';

// Each pattern is a worker body: it loads the addons, posts 'ready' after its
// first round, and keeps calling until terminated (or, in concurrent mode, for
// `rounds` rounds, then posts its counts).
const prelude = `
const { parentPort, workerData } = require('node:worker_threads');
const driver = workerData.driver ? require(workerData.driver) : null;
const cudnn = workerData.cudnn ? require(workerData.cudnn) : null;
const bytes = new Uint8Array(64);
let ready = false;
function round(i) { if (!ready) { ready = true; parentPort.postMessage('ready'); } }
`;

const driverPatterns = {
  // Calls that succeed: streams, buffers, copies, events.
  driverCalls: `
    for (let i = 0; ; i++) {
      const stream = driver.streamCreate(0, false);
      const buffer = driver.memAlloc(0, 64, i % 2 ? stream : null);
      bytes.fill(i & 255);
      driver.memcpyHtoD(buffer.handle, 0, bytes);
      const back = new Uint8Array(64);
      driver.memcpyDtoH(buffer.handle, 0, back);
      if (back[63] !== (i & 255)) throw new Error('a copy read back wrong bytes');
      const event = driver.eventCreate(0, true, false);
      driver.eventRecord(event, stream);
      driver.memFree(buffer.handle);
      driver.eventDestroy(event);
      driver.streamDestroy(stream);
      round(i);
    }`,
  // Calls that throw: TypeErrors, RangeErrors and CUDA errors built in C++.
  driverThrows: `
    const dead = driver.memAlloc(0, 16, null).handle;
    driver.memFree(dead);
    const image = new TextEncoder().encode('FAKE_INVALID_PTX');
    for (let i = 0; ; i++) {
      try { driver.memcpyHtoD(dead, 0, bytes); } catch {}
      try { driver.deviceInfo(1 << 19); } catch {}
      try { driver.moduleLoadData(0, image); } catch {}
      try { driver.memcpyDtoD(dead, 0, 0n, 1, null); } catch {}
      round(i);
    }`,
  // Promises settled from libuv's thread pool, many pending at termination.
  driverAsync: `
    const stream = driver.streamCreate(0, true);
    const buffer = driver.memAlloc(0, 64, null);
    (async () => {
      for (let i = 0; ; i++) {
        const pending = [];
        for (let j = 0; j < 8; j++) {
          pending.push(driver.memcpyHtoDAsync(buffer.handle, 0, bytes, stream));
          pending.push(driver.streamSynchronizeAsync(stream));
        }
        if (i % 4 === 0) await Promise.all(pending);
        round(i);
      }
    })();`,
  // Page-locked memory, freed by hostFree or left to the GC.
  driverPinned: `
    for (let i = 0; ; i++) {
      const pinned = driver.hostAlloc(0, 4096);
      pinned.buffer.byteLength;
      if (i % 2) driver.hostFree(pinned.handle, pinned.buffer);
      round(i);
    }`,
};

const cudnnPatterns = {
  cudnnCalls: `
    const handle = cudnn.cudnnCreate().handle;
    for (let i = 0; ; i++) {
      const t = cudnn.cudnnCreateTensorDescriptor().tensorDesc;
      cudnn.cudnnSetTensorNdDescriptor(t, 0, 3, [1, 2, 3], [6, 3, 1]);
      if (cudnn.cudnnGetTensorNdDescriptor(t, 3).dimA[2] !== 3) throw new Error('wrong dims');
      const d = cudnn.cudnnBackendCreateDescriptor(3).descriptor;
      cudnn.cudnnBackendDestroyDescriptor(d);
      cudnn.cudnnDestroyTensorDescriptor(t);
      round(i);
    }`,
  // TypeErrors whose messages describe the value (strings, objects, getters).
  cudnnThrows: `
    const t = cudnn.cudnnCreateTensorDescriptor().tensorDesc;
    const getter = [1, 2];
    Object.defineProperty(getter, 2, { get() { return 3; } });
    for (let i = 0; ; i++) {
      try { cudnn.cudnnSetTensorNdDescriptor(t, 'float', 3, [1, 2, 3], [6, 3, 1]); } catch {}
      try { cudnn.cudnnSetTensorNdDescriptor(t, 0, 3, getter, { length: 3 }); } catch {}
      try { cudnn.cudnnDestroy({}); } catch {}
      round(i);
    }`,
};

const patterns = {
  ...(useDriver ? driverPatterns : {}),
  ...(useCudnn ? cudnnPatterns : {}),
};
const names = Object.keys(patterns);
if (names.length === 0) throw new Error(`unknown addon set: ${which}`);
const workerData = {
  driver: useDriver ? addonPath('BARACUDA_DRIVER_ADDON', 'driver', 'baracuda_driver.node') : null,
  cudnn: useCudnn ? addonPath('BARACUDA_CUDNN_ADDON', 'cudnn-sys', 'baracuda_cudnn.node') : null,
};
// Workers read process.env as it is when they start.
if (useDriver) process.env.BARACUDA_CUDA_DRIVER_LIBRARY ||= buildFakeLibcudaLibrary();
if (useCudnn) process.env.BARACUDA_CUDNN_LIBRARY ||= buildFakeCudnnLibrary();

function addonPath(variable, pkg, file) {
  if (process.env[variable]) return process.env[variable];
  if (process.env.BARACUDA_ADDON_DIR) return join(process.env.BARACUDA_ADDON_DIR, file);
  return join(REPO_ROOT, 'packages', pkg, 'build', 'Release', file);
}

function start(body) {
  return new Worker(prelude + body, { eval: true, workerData });
}

async function terminateRounds() {
  const seen = new Map(names.map((name) => [name, 0]));
  for (let i = 0; i < count; i++) {
    const name = names[i % names.length];
    const worker = start(patterns[name]);
    await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) =>
        reject(new Error(`${name} exited with ${code} before it was ready`)),
      );
    });
    worker.removeAllListeners('exit');
    worker.removeAllListeners('error');
    // Vary where in its loop the worker is when it stops: 0-3 ms after 'ready'.
    await new Promise((resolve) => setTimeout(resolve, i % 4));
    await worker.terminate();
    seen.set(name, seen.get(name) + 1);
  }
  console.log(
    `survived ${count} terminations mid-call (${[...seen].map(([n, k]) => `${n} ${k}`).join(', ')})`,
  );
}

async function concurrentRounds() {
  // Several workers at once, each running every pattern for a while, then exiting by itself.
  const bounded = (body) =>
    body.replace('for (let i = 0; ; i++) {', 'for (let i = 0; i < 300; i++) {') +
    "\nparentPort.postMessage('done');";
  const runs = [];
  for (let w = 0; w < count; w++) {
    for (const name of names) {
      if (name === 'driverAsync') continue; // never ends by itself
      const worker = start(bounded(patterns[name]));
      runs.push(
        new Promise((resolve, reject) => {
          worker.on('message', (message) => {
            if (message === 'done') resolve(name);
          });
          worker.once('error', reject);
          worker.once('exit', (code) => {
            if (code !== 0) reject(new Error(`${name} exited with ${code}`));
          });
        }).then(async (done) => {
          await worker.terminate();
          return done;
        }),
      );
    }
  }
  const done = await Promise.all(runs);
  console.log(
    `${done.length} workers ran ${names.filter((n) => n !== 'driverAsync').join(', ')} at once`,
  );
}

await (mode === 'terminate' ? terminateRounds() : concurrentRounds());
