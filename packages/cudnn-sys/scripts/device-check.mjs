#!/usr/bin/env node
// GPU-machine check for @baracuda/cudnn-sys (issue 4). Plain Node ESM; needs the built packages
// (packages/cudnn-sys/dist + build/Release, packages/driver/dist + build/Release).
//
//   node packages/cudnn-sys/scripts/device-check.mjs                      # system cuDNN (9.14)
//   BARACUDA_CUDNN_LIBRARY=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9 \
//     EXPECT_CUDNN_VERSION=9.19 node packages/cudnn-sys/scripts/device-check.mjs
//
// Prints the probe, then runs a small forward convolution (n=1, c=3→4, 5×6×7, k=3, pad 1, f32,
// NCDHW) through the raw legacy bindings and compares it with a direct f64 CPU convolution.
// Exits non-zero on any failure. EXPECT_CUDNN_VERSION (e.g. "9.14") also fails on a mismatch.
import * as cudnn from '../dist/index.js';

let failed = false;
function fail(message) {
  console.log(`FAIL: ${message}`);
  failed = true;
}
function check(call, status) {
  if (status !== 0) {
    const name = cudnn.cudnnStatusName(status);
    let detail = '';
    try {
      detail = cudnn.cudnnGetLastErrorString();
    } catch {}
    throw new Error(`${call} failed: ${name} (${status})${detail ? `: ${detail}` : ''}`);
  }
}

// ---- 1. Probe ----
const found = cudnn.probe();
console.log(
  'probe:',
  JSON.stringify({ ...found, tried: undefined, preloaded: undefined }, null, 2),
);
console.log('tried:');
for (const attempt of found.tried) console.log(`  ${attempt.path}: ${attempt.error || 'OK'}`);
if (found.preloaded.length > 0) {
  console.log('preloaded siblings:');
  for (const entry of found.preloaded) console.log(`  ${entry.path}: ${entry.error || 'OK'}`);
}
if (!found.available) {
  fail(`cuDNN is not available: ${found.reason}`);
  process.exit(1);
}
const { major, minor, patch, raw } = found.version;
console.log(`cuDNN ${major}.${minor}.${patch} (raw ${raw}) from ${found.libraryPath}`);
console.log(
  `cudart ${found.cudartVersion}, max device version ${cudnn.cudnnGetMaxDeviceVersion()}`,
);
const expected = process.env.EXPECT_CUDNN_VERSION;
if (expected && `${major}.${minor}` !== expected && `${major}.${minor}.${patch}` !== expected) {
  fail(`expected cuDNN ${expected} but loaded ${major}.${minor}.${patch}`);
}

// ---- 2. Constants as the library sees them (spot check against the live library) ----
const property = (type) => cudnn.cudnnGetProperty(type).value;
if (
  property(cudnn.MAJOR_VERSION) !== major ||
  property(cudnn.MINOR_VERSION) !== minor ||
  property(cudnn.PATCH_LEVEL) !== patch
) {
  fail('cudnnGetProperty disagrees with cudnnGetVersion');
}
if (cudnn.cudnnGetErrorString(cudnn.CUDNN_STATUS_NOT_SUPPORTED) === '') {
  fail('cudnnGetErrorString returned nothing');
}

// ---- 3. A small forward convolution against a CPU reference ----
let driver;
try {
  driver = await import('../../driver/dist/index.js');
} catch (error) {
  fail(`cannot import @baracuda/driver (packages/driver/dist): ${error.message}`);
  process.exit(1);
}

const [n, cIn, cOut, d, h, w, k, pad] = [1, 3, 4, 5, 6, 7, 3, 1];
const xDims = [n, cIn, d, h, w];
const wDims = [cOut, cIn, k, k, k];
const packed = (dims) => dims.map((_, i) => dims.slice(i + 1).reduce((a, b) => a * b, 1));
const count = (dims) => dims.reduce((a, b) => a * b, 1);

let seed = 12345;
const random = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
};
const xHost = Float32Array.from({ length: count(xDims) }, random);
const wHost = Float32Array.from({ length: count(wDims) }, random);

const resources = [];
try {
  // The driver retains the primary context and makes it current first, so cuDNN (runtime API)
  // and our allocations share one context.
  const device = driver.Device.get(0);
  console.log(
    `device: ${device.name} (sm_${device.computeCapability.major}${device.computeCapability.minor})`,
  );
  const x = driver.DeviceBuffer.alloc(xHost.byteLength);
  const wBuf = driver.DeviceBuffer.alloc(wHost.byteLength);
  resources.push(() => {
    x.dispose();
    wBuf.dispose();
  });

  const created = cudnn.cudnnCreate();
  check('cudnnCreate', created.status);
  const handle = created.handle;
  resources.push(() => cudnn.cudnnDestroy(handle));
  check('cudnnSetStream', cudnn.cudnnSetStream(handle, 0n));

  const xDesc = cudnn.cudnnCreateTensorDescriptor().tensorDesc;
  const yDesc = cudnn.cudnnCreateTensorDescriptor().tensorDesc;
  const wDesc = cudnn.cudnnCreateFilterDescriptor().filterDesc;
  const convDesc = cudnn.cudnnCreateConvolutionDescriptor().convDesc;
  resources.push(
    () => cudnn.cudnnDestroyTensorDescriptor(xDesc),
    () => cudnn.cudnnDestroyTensorDescriptor(yDesc),
    () => cudnn.cudnnDestroyFilterDescriptor(wDesc),
    () => cudnn.cudnnDestroyConvolutionDescriptor(convDesc),
  );
  check(
    'cudnnSetTensorNdDescriptor(x)',
    cudnn.cudnnSetTensorNdDescriptor(xDesc, cudnn.CUDNN_DATA_FLOAT, 5, xDims, packed(xDims)),
  );
  check(
    'cudnnSetFilterNdDescriptor',
    cudnn.cudnnSetFilterNdDescriptor(
      wDesc,
      cudnn.CUDNN_DATA_FLOAT,
      cudnn.CUDNN_TENSOR_NCHW,
      5,
      wDims,
    ),
  );
  check(
    'cudnnSetConvolutionNdDescriptor',
    cudnn.cudnnSetConvolutionNdDescriptor(
      convDesc,
      3,
      [pad, pad, pad],
      [1, 1, 1],
      [1, 1, 1],
      cudnn.CUDNN_CROSS_CORRELATION,
      cudnn.CUDNN_DATA_FLOAT,
    ),
  );
  // Plain FP32 FMA math: no TF32, so the comparison can be tight.
  check(
    'cudnnSetConvolutionMathType',
    cudnn.cudnnSetConvolutionMathType(convDesc, cudnn.CUDNN_FMA_MATH),
  );
  const out = cudnn.cudnnGetConvolutionNdForwardOutputDim(convDesc, xDesc, wDesc, 5);
  check('cudnnGetConvolutionNdForwardOutputDim', out.status);
  const yDims = out.tensorOuputDimA;
  console.log(`output dims ${yDims.join('x')}`);
  if (yDims.join(',') !== [n, cOut, d, h, w].join(',')) fail(`unexpected output dims ${yDims}`);
  check(
    'cudnnSetTensorNdDescriptor(y)',
    cudnn.cudnnSetTensorNdDescriptor(yDesc, cudnn.CUDNN_DATA_FLOAT, 5, yDims, packed(yDims)),
  );

  const maxCount = cudnn.cudnnGetConvolutionForwardAlgorithmMaxCount(handle);
  check('cudnnGetConvolutionForwardAlgorithmMaxCount', maxCount.status);
  const algos = cudnn.cudnnGetConvolutionForwardAlgorithm_v7(
    handle,
    xDesc,
    wDesc,
    convDesc,
    yDesc,
    maxCount.count,
  );
  check('cudnnGetConvolutionForwardAlgorithm_v7', algos.status);
  console.log(`algorithms (${algos.returnedAlgoCount}):`, JSON.stringify(algos.perfResults));
  const choice = algos.perfResults.find((perf) => perf.status === 0);
  if (!choice) throw new Error('no forward algorithm reported CUDNN_STATUS_SUCCESS');
  const size = cudnn.cudnnGetConvolutionForwardWorkspaceSize(
    handle,
    xDesc,
    wDesc,
    convDesc,
    yDesc,
    choice.algo,
  );
  check('cudnnGetConvolutionForwardWorkspaceSize', size.status);
  console.log(`using algo ${choice.algo}, workspace ${size.sizeInBytes} bytes`);

  const y = driver.DeviceBuffer.alloc(count(yDims) * 4);
  const workspace = size.sizeInBytes > 0 ? driver.DeviceBuffer.alloc(size.sizeInBytes) : null;
  resources.push(() => {
    y.dispose();
    workspace?.dispose();
  });
  x.uploadSync(xHost);
  wBuf.uploadSync(wHost);
  y.memsetSync(0xff); // poison: NaN everywhere, so an output never written shows up

  check(
    'cudnnConvolutionForward',
    cudnn.cudnnConvolutionForward(
      handle,
      Float32Array.of(1),
      xDesc,
      x.devicePtr,
      wDesc,
      wBuf.devicePtr,
      convDesc,
      choice.algo,
      workspace ? workspace.devicePtr : 0n,
      size.sizeInBytes,
      Float32Array.of(0),
      yDesc,
      y.devicePtr,
    ),
  );
  const yHost = new Float32Array(count(yDims));
  y.downloadSync(yHost);

  // Direct f64 cross-correlation, NCDHW.
  let maxAbs = 0;
  let errSq = 0;
  let refSq = 0;
  for (let o = 0; o < cOut; o++)
    for (let z = 0; z < d; z++)
      for (let r = 0; r < h; r++)
        for (let s = 0; s < w; s++) {
          let sum = 0;
          for (let ci = 0; ci < cIn; ci++)
            for (let kz = 0; kz < k; kz++)
              for (let kr = 0; kr < k; kr++)
                for (let ks = 0; ks < k; ks++) {
                  const iz = z + kz - pad;
                  const ir = r + kr - pad;
                  const is = s + ks - pad;
                  if (iz < 0 || iz >= d || ir < 0 || ir >= h || is < 0 || is >= w) continue;
                  sum +=
                    xHost[((ci * d + iz) * h + ir) * w + is] *
                    wHost[(((o * cIn + ci) * k + kz) * k + kr) * k + ks];
                }
          const got = yHost[((o * d + z) * h + r) * w + s];
          const diff = Number.isFinite(got) ? Math.abs(got - sum) : Number.POSITIVE_INFINITY;
          maxAbs = Math.max(maxAbs, diff);
          errSq += diff * diff;
          refSq += sum * sum;
        }
  const relL2 = Math.sqrt(errSq / refSq);
  console.log(
    `forward conv: max abs error ${maxAbs.toExponential(3)}, rel L2 ${relL2.toExponential(3)}`,
  );
  if (!(maxAbs < 1e-4 && relL2 < 1e-5))
    fail('forward convolution does not match the CPU reference');
  else console.log('forward conv: PASS');
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
} finally {
  for (const release of resources.reverse()) {
    try {
      release();
    } catch (error) {
      fail(`cleanup: ${error.message}`);
    }
  }
}

console.log(failed ? 'FAIL' : 'PASS');
process.exit(failed ? 1 : 0);
