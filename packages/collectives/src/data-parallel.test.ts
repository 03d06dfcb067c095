/**
 * The data-parallel step end to end on the fakes (fake libcuda, fake cuDNN, fake NCCL): one plan
 * per device, fw/bwFilter/bwData enqueued per device, the filter gradient all-reduced in buckets.
 * The fake cuDNN records calls but computes nothing, so each device's dw keeps what the test put
 * there and the all-reduce's result is checked exactly; the numbers of a real step are checked
 * against the single-GPU step on GPUs (scripts/nccl-device-check.mjs).
 */
import { Device } from '@baracuda/driver';
import { Conv3dDescriptor } from '@baracuda/kernels';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFakeCudnnLibrary } from '../../../scripts/testing/build-fake.mjs';
import { download, ncclLive, poisoned, upload, useFakes } from './fakes.test-helpers.js';
import { DataParallelConv3d, shardDescriptor, splitBatch } from './index.js';

const library = useFakes(2);
process.env.BARACUDA_CUDNN_LIBRARY = buildFakeCudnnLibrary();
// One scripted graph-API engine (see the fake's header): its legacy heuristic offers no FMA-only
// algorithm, which strict f32 refuses.
process.env.FAKE_CUDNN_ENGINES = '28';
const devices = [Device.get(0), Device.get(1)];
const layer = Conv3dDescriptor.create({
  batch: 4,
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

const made: DataParallelConv3d[] = [];
afterAll(() => {
  for (const dp of made) dp.dispose();
});

function shardTensors(dp: DataParallelConv3d, dwValues: number[][]) {
  const s = dp.shard;
  return devices.map((_, r) => ({
    x: poisoned('f32', s.xElements, r),
    w: upload('f32', Array(s.wElements).fill(0.5), r),
    y: poisoned('f32', s.yElements, r),
    dy: upload('f32', Array(s.yElements).fill(1), r),
    dx: poisoned('f32', s.xElements, r),
    dw: upload('f32', dwValues[r] as number[], r),
  }));
}

describe('DataParallelConv3d', () => {
  it('splits the batch: shard descriptors and host views', () => {
    const shard = shardDescriptor(layer, 2);
    expect([shard.batch, shard.cIn, shard.hFilt, shard.layout]).toEqual([2, 4, 3, 'ncdhw']);
    const halves = splitBatch(
      Float32Array.from({ length: 8 }, (_, i) => i),
      2,
    );
    expect(halves.map((h) => [...h])).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
    expect(() => shardDescriptor(layer, 3)).toThrow(
      'Expected a multiple of 3 (the number of devices) for descriptor.batch but received 4 of type number',
    );
  });

  for (const [reduce, bucketBytes] of [
    ['sum', 40],
    ['avg', undefined],
  ] as const) {
    it(`a step all-reduces every bucket of dw (${reduce}, ${bucketBytes ?? 'default'} bytes a bucket)`, async () => {
      const dp = await DataParallelConv3d.create({
        devices,
        descriptor: layer,
        bucketBytes,
        reduce,
      });
      made.push(dp);
      const n = dp.shard.wElements; // 4*4*9 = 144 f32: 15 buckets of 40 bytes
      const dwValues = devices.map((_, r) =>
        Array.from({ length: n }, (_, i) => (r + 1) * (i + 1)),
      );
      const tensors = shardTensors(dp, dwValues);
      dp.step(tensors);
      await dp.synchronize({ timeoutMs: 10_000 });
      const factor = reduce === 'sum' ? 3 : 1.5;
      const expected = Array.from({ length: n }, (_, i) => factor * (i + 1));
      for (const t of tensors) expect(download('f32', t.dw)).toEqual(expected);
      expect(ncclLive(library).pending).toBe(0);
      for (const t of tensors) for (const b of Object.values(t)) b.dispose();
    });
  }

  it('refuses shards on the wrong device, the wrong number of shards, and use after dispose', async () => {
    const dp = await DataParallelConv3d.create({
      devices,
      descriptor: layer,
    });
    const tensors = shardTensors(dp, [
      Array(dp.shard.wElements).fill(1),
      Array(dp.shard.wElements).fill(1),
    ]);
    expect(() => dp.step([tensors[0]!])).toThrow(
      'Expected an array of 2 shards (one per device) for shards but received an array of length 1',
    );
    expect(() => dp.step([tensors[0]!, tensors[0]!])).toThrow(
      "Expected a DeviceBuffer on device 1 (the communicator's device) for shards[1].x but received an instance of DeviceBuffer",
    );
    expect(() => dp.computeStream(2)).toThrow(
      'Expected an integer from 0 to 1 for i but received 2 of type number',
    );
    expect(() => Reflect.construct(DataParallelConv3d, [])).toThrow(
      'DataParallelConv3d cannot be constructed with new: use DataParallelConv3d.create(options)',
    );
    dp.dispose();
    dp.dispose();
    expect(() => dp.step(tensors)).toThrow(
      'DataParallelConv3d has been disposed and cannot be used',
    );
    for (const t of tensors) for (const b of Object.values(t)) b.dispose();
    await expect(
      DataParallelConv3d.create({ devices, descriptor: layer, reduce: 'max' as never }),
    ).rejects.toThrow(
      `Expected 'sum' or 'avg' for options.reduce but received "max" of type string`,
    );
  });
});
