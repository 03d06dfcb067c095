import { type Device, type DeviceBuffer, Event, Stream } from '@baracuda/driver';
import { Conv3dDescriptor, Conv3dPlan } from '@baracuda/kernels';
import {
  DisposedError,
  InvalidArgumentError,
  type PlanPreference,
  UnsupportedError,
} from '@baracuda/types';
import { requireBuffer, requireOptions, requirePositiveInteger } from './args.js';
import { Communicator } from './communicator.js';
import { group } from './group.js';
import { collectiveKind } from './kinds.js';
import type { WaitOptions } from './options.js';
import { guardReceivers } from './receivers.js';

/** Options of {@link DataParallelConv3d.create}. */
export interface DataParallelConv3dOptions {
  /** The GPUs, one shard of the batch each (rank i on `devices[i]`). */
  devices: readonly Device[];
  /** The layer for the whole batch; its `batch` must divide by the number of devices. */
  descriptor: Conv3dDescriptor;
  /** Plan selection, for every device's plan. Defaults to the kernels' default preference. */
  preference?: Partial<PlanPreference>;
  /**
   * Bytes of filter gradient per all-reduce: the gradient goes out in buckets of this size, as
   * PyTorch DDP's `bucket_cap_mb`. Defaults to `26214400` (25 MiB).
   */
  bucketBytes?: number;
  /**
   * `'sum'` makes every device's `dw` the gradient of the whole batch, as one GPU would compute
   * it; `'avg'` divides it by the number of devices. Defaults to `'sum'`.
   */
  reduce?: 'sum' | 'avg';
}

/** One device's tensors for a step, dense in the descriptor's layout, on that device. */
export interface DataParallelShard {
  x: DeviceBuffer;
  w: DeviceBuffer;
  y: DeviceBuffer;
  dy: DeviceBuffer;
  dx: DeviceBuffer;
  dw: DeviceBuffer;
}

const TOKEN: unique symbol = Symbol('DataParallelConv3d');

interface Replica {
  readonly device: Device;
  readonly communicator: Communicator;
  readonly plan: Conv3dPlan;
  readonly compute: Stream;
  readonly comm: Stream;
  readonly dwReady: Event;
  readonly reduced: Event;
}

/** The descriptor of one shard: `descriptor` with `batch / parts`. */
export function shardDescriptor(descriptor: Conv3dDescriptor, parts: number): Conv3dDescriptor {
  if (!(descriptor instanceof Conv3dDescriptor)) {
    throw new InvalidArgumentError('descriptor', 'a Conv3dDescriptor', descriptor);
  }
  requirePositiveInteger('parts', parts);
  if (descriptor.batch % parts !== 0) {
    throw new InvalidArgumentError(
      'descriptor.batch',
      `a multiple of ${parts} (the number of devices)`,
      descriptor.batch,
    );
  }
  return Conv3dDescriptor.create({ ...descriptor, batch: descriptor.batch / parts })
    .withPadding(descriptor.padD, descriptor.padH, descriptor.padW)
    .withStride(descriptor.strideD, descriptor.strideH, descriptor.strideW)
    .withDilation(descriptor.dilationD, descriptor.dilationH, descriptor.dilationW)
    .withGroups(descriptor.groups)
    .withLayout(descriptor.layout);
}

/**
 * Splits a host batch (batch-major: NCDHW and NDHWC both are) into `parts` equal views, one per
 * device, without copying.
 */
export function splitBatch<T extends Float32Array | Float64Array | Uint16Array>(
  batch: T,
  parts: number,
): T[] {
  if (
    !(
      batch instanceof Float32Array ||
      batch instanceof Float64Array ||
      batch instanceof Uint16Array
    )
  ) {
    throw new InvalidArgumentError(
      'batch',
      'a Float32Array, Float64Array or Uint16Array (f16 / bf16 bits)',
      batch,
    );
  }
  requirePositiveInteger('parts', parts);
  if (batch.length % parts !== 0) {
    throw new InvalidArgumentError(
      'batch',
      `a typed array whose length divides by ${parts}`,
      batch,
    );
  }
  const size = batch.length / parts;
  return Array.from({ length: parts }, (_, i) => batch.subarray(i * size, (i + 1) * size) as T);
}

/**
 * Data-parallel training of one conv layer: the batch split over several GPUs, one `Conv3dPlan`
 * per GPU. A step runs forward and backward-filter on each GPU's compute stream, records an event,
 * and runs backward-data there while a second stream per GPU waits on that event and all-reduces
 * the filter gradient in buckets (NCCL, one `group()` per bucket), so the all-reduce overlaps the
 * rest of the backward pass. The next step's compute waits for this step's all-reduce.
 */
export class DataParallelConv3d {
  /** The descriptor each device runs (`batch / devices.length`). */
  readonly shard: Conv3dDescriptor;
  readonly #replicas: Replica[];
  readonly #bucketBytes: number;
  readonly #op: 'sum' | 'avg';
  #disposed = false;

  static {
    guardReceivers(
      DataParallelConv3d,
      'DataParallelConv3d',
      (o) => typeof o === 'object' && o !== null && #replicas in o,
    );
  }

  private constructor(
    token: typeof TOKEN,
    shard: Conv3dDescriptor,
    replicas: Replica[],
    bucketBytes: number,
    op: 'sum' | 'avg',
  ) {
    if (token !== TOKEN) {
      throw new UnsupportedError(
        'DataParallelConv3d cannot be constructed with new: use DataParallelConv3d.create(options)',
      );
    }
    this.shard = shard;
    this.#replicas = replicas;
    this.#bucketBytes = bucketBytes;
    this.#op = op;
  }

  /** Makes the communicators, streams, events and one plan per device. */
  static async create(options: DataParallelConv3dOptions): Promise<DataParallelConv3d> {
    const opts = requireOptions('options', options);
    const devices = opts.devices as readonly Device[];
    if (!Array.isArray(devices) || devices.length === 0) {
      throw new InvalidArgumentError('options.devices', 'a non-empty array of Devices', devices);
    }
    const shard = shardDescriptor(opts.descriptor as Conv3dDescriptor, devices.length);
    collectiveKind('options.descriptor.element', shard.element);
    const bucketBytes =
      opts.bucketBytes === undefined
        ? 25 * 1024 * 1024
        : requirePositiveInteger('options.bucketBytes', opts.bucketBytes);
    const op = opts.reduce === undefined ? 'sum' : opts.reduce;
    if (op !== 'sum' && op !== 'avg') {
      throw new InvalidArgumentError('options.reduce', "'sum' or 'avg'", op);
    }
    const communicators = Communicator.initAll(devices);
    const replicas: Replica[] = [];
    try {
      for (const [i, device] of devices.entries()) {
        const compute = Stream.create(device, { nonBlocking: true });
        const comm = Stream.create(device, { nonBlocking: true });
        const plan = await Conv3dPlan.select(
          compute,
          shard,
          opts.preference as Partial<PlanPreference>,
        );
        replicas.push({
          device,
          communicator: communicators[i] as Communicator,
          plan,
          compute,
          comm,
          dwReady: Event.create(device, { timing: false, blockingSync: false }),
          reduced: Event.create(device, { timing: false, blockingSync: false }),
        });
      }
    } catch (error) {
      disposeReplicas(replicas);
      for (const c of communicators) c.abort();
      throw error;
    }
    return new DataParallelConv3d(TOKEN, shard, replicas, bucketBytes, op);
  }

  /** The devices, in rank order. */
  get devices(): Device[] {
    return this.#live().map((r) => r.device);
  }

  /** The stream device `i`'s convolutions run on (upload a shard's inputs there). */
  computeStream(i: number): Stream {
    return this.#replica(i).compute;
  }

  /**
   * Enqueues one step on every device: `y = conv(x, w)`, `dw = convBwFilter(x, dy)` all-reduced
   * over the devices, `dx = convBwData(w, dy)`. Returns at once; {@link synchronize} waits.
   */
  step(shards: readonly DataParallelShard[]): void {
    const replicas = this.#live();
    if (!Array.isArray(shards) || shards.length !== replicas.length) {
      throw new InvalidArgumentError(
        'shards',
        `an array of ${replicas.length} shards (one per device)`,
        shards,
      );
    }
    const checked = replicas.map((r, i) => {
      const shard = requireOptions(`shards[${i}]`, shards[i]);
      const at = (name: keyof DataParallelShard) =>
        requireBuffer(`shards[${i}].${name}`, shard[name], r.device);
      return { x: at('x'), w: at('w'), y: at('y'), dy: at('dy'), dx: at('dx'), dw: at('dw') };
    });
    const dwBytes = this.shard.wElements * this.shard.elementBytes;
    for (const [i, r] of replicas.entries()) {
      const s = checked[i] as DataParallelShard;
      r.compute.waitEvent(r.reduced); // the last step's all-reduce is done with dw
      r.plan.runFw({ x: s.x, w: s.w, y: s.y, stream: r.compute });
      r.plan.runDw({ x: s.x, dy: s.dy, dw: s.dw, stream: r.compute });
      r.dwReady.record(r.compute);
      r.plan.runBwData({ w: s.w, dy: s.dy, dx: s.dx, stream: r.compute });
      r.comm.waitEvent(r.dwReady);
    }
    const kind = this.shard.element as 'f16' | 'bf16' | 'f32' | 'f64';
    const elementBytes = this.shard.elementBytes;
    const bucket = Math.max(
      elementBytes,
      Math.floor(this.#bucketBytes / elementBytes) * elementBytes,
    );
    for (let offset = 0; offset < dwBytes; offset += bucket) {
      const length = Math.min(bucket, dwBytes - offset);
      group(() => {
        for (const [i, r] of replicas.entries()) {
          const slice = (checked[i] as DataParallelShard).dw.slice(offset, length);
          r.communicator.allReduce(slice, slice, r.comm, { kind, op: this.#op });
        }
      });
    }
    for (const r of replicas) r.reduced.record(r.comm);
  }

  /**
   * Resolves when every device's step is done (compute and all-reduce), without blocking the event
   * loop; a failed peer or `options.timeoutMs` aborts the communicators and rejects with `NcclError`.
   */
  async synchronize(options?: WaitOptions): Promise<void> {
    const replicas = this.#live();
    await Promise.all(
      replicas.flatMap((r) => [
        r.communicator.synchronize(r.comm, options),
        r.compute.synchronize(),
      ]),
    );
  }

  /** Frees the plans, streams, events and communicators. Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    disposeReplicas(this.#replicas);
    for (const r of this.#replicas) r.communicator.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  #live(): Replica[] {
    if (this.#disposed) throw new DisposedError('DataParallelConv3d');
    return this.#replicas;
  }

  #replica(i: unknown): Replica {
    const replicas = this.#live();
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= replicas.length) {
      throw new InvalidArgumentError('i', `an integer from 0 to ${replicas.length - 1}`, i);
    }
    return replicas[i] as Replica;
  }
}

function disposeReplicas(replicas: readonly Replica[]): void {
  for (const r of replicas) {
    r.plan.dispose();
    r.dwReady.dispose();
    r.reduced.dispose();
    r.compute.dispose();
    r.comm.dispose();
  }
}
