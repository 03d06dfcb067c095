/** Options of the communicator calls. */
import type { Device } from '@baracuda/driver';
import type { CollectiveKind, ReduceOp } from './kinds.js';
import type { NcclUniqueId } from './unique-id.js';

interface ElementOptions {
  /** The element kind of the buffers. */
  kind: CollectiveKind;
  /** How many elements. Defaults to what the buffer named in the call's doc holds. */
  count?: number;
}

export interface AllReduceOptions extends ElementOptions {
  /** The reduction. Defaults to `'sum'`. */
  op?: ReduceOp;
}
export interface ReduceScatterOptions extends ElementOptions {
  /** The reduction. Defaults to `'sum'`. */
  op?: ReduceOp;
}
export interface BroadcastOptions extends ElementOptions {
  /** The rank whose `send` is copied. */
  root: number;
}
export type AllGatherOptions = ElementOptions;
export type PointToPointOptions = ElementOptions;

export interface WaitOptions {
  /**
   * Give up (abort the communicator, reject with `NcclError`) when the work has not completed
   * after this many milliseconds. Defaults to `600000` (10 minutes).
   */
  timeoutMs?: number;
}

export interface InitRankOptions {
  /** The communicator's id, made by one rank with `NcclUniqueId.create()` and shared. */
  id: NcclUniqueId;
  /** This process's rank, 0 to `nRanks - 1`. */
  rank: number;
  /** How many ranks join. */
  nRanks: number;
  /** The device this rank runs on. Defaults to `Device.get(0)`. */
  device?: Device;
}
