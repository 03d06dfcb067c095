// Loads the three addons of one prebuilt platform package through the libraries' own lookup
// (BARACUDA_ADDON_DIR=<package folder>) and checks that each addon loaded and that what is missing
// is the GPU stack (libcuda, libcudnn, libnccl), not the addon. Run by qemu-arm64-smoke.sh under
// qemu-aarch64 with an arm64 Node; exits non-zero with the reason otherwise.
// With BARACUDA_CUDA_DRIVER_LIBRARY set to the fake libcuda (packages/driver/test/fake-libcuda.c
// built for the same architecture), the driver must instead report its fake devices: that runs the
// addon's dlopen/dlsym path, which the glibc baseline pins to old symbol versions. With
// BARACUDA_NCCL_LIBRARY set to the fake libnccl (packages/nccl-sys/native/testing/fake_nccl.c),
// nccl-sys must find it, and two communicators of one process must all-reduce through it.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const dir = process.env.BARACUDA_ADDON_DIR;
if (!dir) throw new Error('probe-addons: set BARACUDA_ADDON_DIR to a native-linux-* package');
const root = new URL('../../packages/', import.meta.url);
const require = createRequire(import.meta.url);
const failures = [];

// 1. The raw addons load here (right architecture, glibc, C++ runtime).
for (const file of [
  'baracuda_driver.node',
  'baracuda_cudnn.node',
  'baracuda_nccl.node',
  'baracuda_cublaslt.node',
]) {
  require(join(dir, file));
}
// 2. The libraries probe through them and report no GPU.
const driver = await import(new URL('driver/dist/index.js', root).href);
const cudnn = await import(new URL('cudnn-sys/dist/index.js', root).href);
const nccl = await import(new URL('nccl-sys/dist/index.js', root).href);
const gpu = driver.probe();
const dnn = cudnn.probe();
const coll = nccl.probe();
const cublaslt = await import(new URL('cublaslt-sys/dist/index.js', root).href);
const lt = cublaslt.probe();
console.log(`${process.arch} node ${process.version}`);
console.log(`driver: available=${gpu.available} devices=${gpu.deviceCount}`);
console.log(`  ${String(gpu.reason).split('\n')[0]}`);
console.log(`cudnn:  available=${dnn.available}`);
console.log(`  ${String(dnn.reason).split('\n')[0]}`);
console.log(`nccl:   available=${coll.available} (searched ${coll.tried.length} paths)`);
console.log(`  ${String(coll.reason ?? coll.libraryPath).split('\n')[0]}`);
console.log(`cublaslt: available=${lt.available}`);
console.log(`  ${String(lt.reason).split('\n')[0]}`);
const fake = Boolean(process.env.BARACUDA_CUDA_DRIVER_LIBRARY);
if (fake && !(gpu.available && gpu.deviceCount > 0)) failures.push('expected the fake driver');
if (!fake && gpu.available) failures.push('expected no CUDA driver under qemu');
if (dnn.available) failures.push('expected no cuDNN under qemu');
if (lt.available) failures.push('expected no cuBLASLt under qemu');
const fakeNccl = Boolean(process.env.BARACUDA_NCCL_LIBRARY);
if (fakeNccl !== coll.available) failures.push(`expected nccl available=${fakeNccl}`);
if (!coll.available && coll.tried.length === 0) failures.push('nccl: probe listed no search');
if (fakeNccl && coll.available && fake) {
  // Two ranks of the fake NCCL over two fake devices (device memory is host memory there).
  const { status, comms } = nccl.ncclCommInitAll(Int32Array.from([0, 1]));
  if (status !== 0) failures.push(`nccl: ncclCommInitAll returned ${status}`);
  else {
    const buffers = [0, 1].map((d) =>
      driver.DeviceBuffer.alloc(8, { device: driver.Device.get(d) }),
    );
    buffers[0].uploadSync(new Float32Array([1, 2]));
    buffers[1].uploadSync(new Float32Array([3, 4]));
    const { ncclFloat32 } = nccl.ncclDataType;
    nccl.ncclGroupStart();
    comms.forEach((comm, r) => {
      const ptr = buffers[r].devicePtr;
      nccl.ncclAllReduce(ptr, ptr, 2, ncclFloat32, nccl.ncclRedOp.ncclSum, comm, 0n);
    });
    nccl.ncclGroupEnd();
    const sum = new Float32Array(2);
    buffers[1].downloadSync(sum);
    console.log(
      `nccl:   allReduce of [1, 2] and [3, 4] over 2 fake ranks: [${[...sum].join(', ')}]`,
    );
    if (sum[0] !== 4 || sum[1] !== 6) failures.push(`nccl: allReduce gave [${[...sum]}]`);
    for (const comm of comms) nccl.ncclCommDestroy(comm);
    for (const buffer of buffers) buffer.dispose();
  }
}
for (const [name, reason] of [
  ['driver', gpu.reason],
  ['cudnn', dnn.reason],
  ['nccl', coll.reason],
  ['cublaslt', lt.reason],
]) {
  if (/Could not load baracuda_/.test(String(reason)))
    failures.push(`${name}: the addon did not load`);
}
if (failures.length > 0) {
  console.error(`probe-addons: ${failures.join('; ')}`);
  process.exit(1);
}
