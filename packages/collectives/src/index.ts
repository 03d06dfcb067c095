/**
 * @baracuda/collectives: NCCL communicators and collectives on @baracuda/driver streams and
 * buffers (docs/ARCHITECTURE.md), and data-parallel training of a conv layer over several GPUs.
 */
export { Communicator } from './communicator.js';
export {
  DataParallelConv3d,
  type DataParallelConv3dOptions,
  type DataParallelShard,
  shardDescriptor,
  splitBatch,
} from './data-parallel.js';
export { group, groupEnd, groupStart } from './group.js';
export {
  COLLECTIVE_KINDS,
  type CollectiveKind,
  REDUCE_OPS,
  type ReduceOp,
} from './kinds.js';
export type {
  AllGatherOptions,
  AllReduceOptions,
  BroadcastOptions,
  InitRankOptions,
  PointToPointOptions,
  ReduceScatterOptions,
  WaitOptions,
} from './options.js';
export { NcclUniqueId } from './unique-id.js';
