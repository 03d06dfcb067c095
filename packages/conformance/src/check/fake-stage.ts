/**
 * @internal The fake GPU's U-Net stage (fake-gpu.ts): the f64 reference step (stage/reference.ts)
 * run on the fake buffers' contents, rounded to the dtype as a GPU stores it, with the fake's
 * faults (perturbed or unwritten outputs), so the demo's stage check is tested in CI.
 */
import { type StageParams, stageBackward, stageForward } from '../stage/reference.js';
import { STAGE_TENSORS, type StageTensor, stageElementCounts } from '../stage/shape.js';
import type { StageAlgorithm } from '../stage/unet-stage.js';
import type { GpuBuffer, GpuStage, StageRequest } from './gpu-api.js';
import { decode, encode, storageArray } from './host.js';

/** @internal What of the fake's faults the stage honours. */
export interface FakeStageFaults {
  /** Leave the last N elements of every output unwritten. */
  readonly unwritten?: number;
  /** Scale every output by (1 + perturb). */
  readonly perturb?: number;
}

/** @internal A stage whose every tensor is a fake buffer from `alloc`. */
export function fakeStage(
  request: StageRequest,
  alloc: (byteLength: number) => GpuBuffer,
  faults: FakeStageFaults,
): GpuStage {
  const { shape, dtype } = request;
  const counts = stageElementCounts(shape);
  const bytes = dtype === 'f16' || dtype === 'bf16' ? 2 : 4;
  const tensors = {} as Record<StageTensor, GpuBuffer>;
  for (const name of STAGE_TENSORS) tensors[name] = alloc(counts[name] * bytes);
  const read = (name: StageTensor): Float64Array => {
    const storage = storageArray(dtype, counts[name]);
    tensors[name].downloadSync(storage);
    return decode(dtype, storage);
  };
  const write = (name: StageTensor, values: Float64Array) => {
    const scaled = values.map((v) => v * (1 + (faults.perturb ?? 0)));
    const { storage } = encode(dtype, scaled);
    const keep = Math.max(0, storage.length - (faults.unwritten ?? 0));
    tensors[name].uploadSync(storage.subarray(0, keep));
  };
  const params = (): StageParams => ({
    w1: read('w1'),
    b1: read('b1'),
    w2: read('w2'),
    b2: read('b2'),
    wd: read('wd'),
    bd: read('bd'),
    wu: read('wu'),
  });
  return {
    tensors,
    forward: () => {
      const acts = stageForward(shape, params(), read('x'));
      for (const [name, values] of Object.entries(acts)) write(name as StageTensor, values);
    },
    backward: () => {
      const acts = { a1: read('a1'), a2: read('a2'), a3: read('a3'), y: read('y') };
      const grads = stageBackward(shape, params(), read('x'), acts, read('dy'));
      for (const [name, values] of Object.entries(grads)) write(name as StageTensor, values);
    },
    algorithms: (): StageAlgorithm[] =>
      (['conv1', 'conv2', 'down', 'up'] as const).flatMap((layer) =>
        (['fw', 'bwData', 'bwFilter'] as const).map((pass) => ({
          layer,
          pass,
          name: `fake reference ${pass}`,
        })),
      ),
    dispose: () => {
      for (const name of STAGE_TENSORS) tensors[name].dispose();
    },
  };
}
