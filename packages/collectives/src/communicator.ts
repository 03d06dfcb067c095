import { type Device, type DeviceBuffer, Event, type Stream } from '@baracuda/driver';
import * as nccl from '@baracuda/nccl-sys';
import { DisposedError, InvalidArgumentError, NcclError, UnsupportedError } from '@baracuda/types';
import {
  elementCount,
  initRankArgs,
  rankText,
  requireBuffer,
  requireBytes,
  requireDevice,
  requireOptions,
  requireRank,
  requireStream,
  requireTimeout,
} from './args.js';
import { collectiveKind, reduceOp } from './kinds.js';
import type {
  AllGatherOptions,
  AllReduceOptions,
  BroadcastOptions,
  InitRankOptions,
  PointToPointOptions,
  ReduceScatterOptions,
  WaitOptions,
} from './options.js';
import { guardReceivers } from './receivers.js';
import { ncclCheck, ncclMessage } from './result.js';
import { type WaitTarget, waitFor, waitForSync } from './wait.js';

const TOKEN: unique symbol = Symbol('Communicator');
const DEFAULT_TIMEOUT_MS = 600_000;

/** The communicators made by one init call: a timeout aborts them together. */
interface Family {
  readonly members: Communicator[];
  /** Why a wait aborted them, for the other members' waits. */
  abortReason: NcclError | null;
}

/**
 * One rank of an NCCL communicator, bound to one device. Collectives are enqueued on a `Stream`
 * of that device and return at once; {@link Communicator.synchronize} waits for them without
 * blocking the event loop and aborts the communicator instead of hanging when a peer fails.
 *
 * Made by {@link Communicator.initAll} (every GPU of this process, driven from one thread: enqueue
 * each rank's call inside `group()`) or {@link Communicator.initRank} (one rank per process or per
 * thread, joined through an {@link NcclUniqueId}).
 */
export class Communicator {
  /** This communicator's rank, 0 to `nRanks - 1`. */
  readonly rank: number;
  /** How many ranks the communicator has. */
  readonly nRanks: number;
  /** The device this rank runs on. */
  readonly device: Device;
  #comm: nccl.NcclComm | null;
  readonly #family: Family;

  static {
    guardReceivers(
      Communicator,
      'Communicator',
      (o) => typeof o === 'object' && o !== null && #family in o,
    );
  }

  private constructor(token: typeof TOKEN, comm: nccl.NcclComm, device: Device, family: Family) {
    if (token !== TOKEN) {
      throw new UnsupportedError(
        'Communicator cannot be constructed with new: use Communicator.initAll(devices) or Communicator.initRank(options)',
      );
    }
    this.#comm = comm;
    this.#family = family;
    this.rank = nccl.ncclCommUserRank(comm).rank;
    this.nRanks = nccl.ncclCommCount(comm).count;
    this.device = device;
    family.members.push(this);
    Object.freeze(this);
  }

  /** One communicator per device, in one process (`ncclCommInitAll`); rank i runs on `devices[i]`. */
  static initAll(devices: readonly Device[]): Communicator[] {
    if (!Array.isArray(devices) || devices.length === 0) {
      throw new InvalidArgumentError('devices', 'a non-empty array of Devices', devices);
    }
    const list = devices.map((device, i) => requireDevice(`devices[${i}]`, device));
    list.forEach((device, i) => {
      const first = list.findIndex((other) => other.ordinal === device.ordinal);
      if (first !== i) {
        throw new InvalidArgumentError(
          `devices[${i}]`,
          `a Device other than devices[${first}] (device ${device.ordinal} appears twice)`,
          device,
        );
      }
    });
    const { status, comms } = nccl.ncclCommInitAll(Int32Array.from(list, (d) => d.ordinal));
    ncclCheck('ncclCommInitAll', status, null, `devices ${list.map((d) => d.ordinal).join(', ')}`);
    const family: Family = { members: [], abortReason: null };
    return comms.map((comm, i) => new Communicator(TOKEN, comm, list[i] as Device, family));
  }

  /**
   * Joins communicator `id` as `rank` of `nRanks` on `device` (`ncclCommInitRank` on a worker
   * thread: it returns once every rank has joined, and the event loop keeps running meanwhile).
   */
  static async initRank(options: InitRankOptions): Promise<Communicator> {
    const { id, rank, nRanks, device } = initRankArgs(options);
    const { status, comm } = await nccl.ncclCommInitRankAsync(nRanks, id, rank, device.ordinal);
    ncclCheck('ncclCommInitRank', status, null, rankText(rank, nRanks, device));
    return new Communicator(TOKEN, comm as nccl.NcclComm, device, {
      members: [],
      abortReason: null,
    });
  }

  /**
   * {@link Communicator.initRank} blocking this thread until every rank joined; between
   * `groupStart()` and `groupEnd()` it returns at once, so one thread can init several ranks.
   */
  static initRankSync(options: InitRankOptions): Communicator {
    const { id, rank, nRanks, device } = initRankArgs(options);
    const { status, comm } = nccl.ncclCommInitRank(nRanks, id, rank, device.ordinal);
    ncclCheck('ncclCommInitRank', status, null, rankText(rank, nRanks, device));
    return new Communicator(TOKEN, comm as nccl.NcclComm, device, {
      members: [],
      abortReason: null,
    });
  }

  /** True once disposed or aborted. */
  get disposed(): boolean {
    return this.#comm === null;
  }

  #live(): nccl.NcclComm {
    if (this.#comm === null) throw new DisposedError('Communicator');
    return this.#comm;
  }

  get #where(): string {
    return rankText(this.rank, this.nRanks, this.device);
  }

  #check(call: string, result: number): void {
    ncclCheck(call, result, this.#comm, this.#where);
  }

  /** `recv = op(send of every rank)`, `count` elements (default: what `send` holds). */
  allReduce(
    send: DeviceBuffer,
    recv: DeviceBuffer,
    stream: Stream,
    options: AllReduceOptions,
  ): void {
    this.#live();
    const opts = requireOptions('options', options);
    const { dataType, byteSize } = collectiveKind('options.kind', opts.kind);
    const op = reduceOp('options.op', opts.op === undefined ? 'sum' : opts.op);
    const sendBuffer = requireBuffer('send', send, this.device);
    const recvBuffer = requireBuffer('recv', recv, this.device);
    const target = requireStream('stream', stream, this.device);
    const count = elementCount(opts.count, sendBuffer, 'send', byteSize);
    requireBytes('send', sendBuffer, count * byteSize);
    requireBytes('recv', recvBuffer, count * byteSize);
    this.#check(
      'ncclAllReduce',
      nccl.ncclAllReduce(
        sendBuffer.devicePtr,
        recvBuffer.devicePtr,
        count,
        dataType,
        op,
        this.#live(), // again: reading the options ran the caller's getters
        target.raw,
      ),
    );
  }

  /** Copies `count` elements of `send` on rank `root` into `recv` on every rank. */
  broadcast(
    send: DeviceBuffer,
    recv: DeviceBuffer,
    stream: Stream,
    options: BroadcastOptions,
  ): void {
    this.#live();
    const opts = requireOptions('options', options);
    const { dataType, byteSize } = collectiveKind('options.kind', opts.kind);
    const root = requireRank('options.root', opts.root, this.nRanks);
    const sendBuffer = requireBuffer('send', send, this.device);
    const recvBuffer = requireBuffer('recv', recv, this.device);
    const target = requireStream('stream', stream, this.device);
    const count = elementCount(opts.count, recvBuffer, 'recv', byteSize);
    if (this.rank === root) requireBytes('send', sendBuffer, count * byteSize);
    requireBytes('recv', recvBuffer, count * byteSize);
    this.#check(
      'ncclBroadcast',
      nccl.ncclBroadcast(
        sendBuffer.devicePtr,
        recvBuffer.devicePtr,
        count,
        dataType,
        root,
        this.#live(), // again: reading the options ran the caller's getters
        target.raw,
      ),
    );
  }

  /**
   * Reduces `count * nRanks` elements of `send` over every rank and leaves block `rank` of the
   * result (`count` elements, default: what `recv` holds) in `recv`.
   */
  reduceScatter(
    send: DeviceBuffer,
    recv: DeviceBuffer,
    stream: Stream,
    options: ReduceScatterOptions,
  ): void {
    this.#live();
    const opts = requireOptions('options', options);
    const { dataType, byteSize } = collectiveKind('options.kind', opts.kind);
    const op = reduceOp('options.op', opts.op === undefined ? 'sum' : opts.op);
    const sendBuffer = requireBuffer('send', send, this.device);
    const recvBuffer = requireBuffer('recv', recv, this.device);
    const target = requireStream('stream', stream, this.device);
    const count = elementCount(opts.count, recvBuffer, 'recv', byteSize);
    requireBytes('send', sendBuffer, count * this.nRanks * byteSize);
    requireBytes('recv', recvBuffer, count * byteSize);
    this.#check(
      'ncclReduceScatter',
      nccl.ncclReduceScatter(
        sendBuffer.devicePtr,
        recvBuffer.devicePtr,
        count,
        dataType,
        op,
        this.#live(), // again: reading the options ran the caller's getters
        target.raw,
      ),
    );
  }

  /** Gathers `count` elements of `send` from every rank into `recv`, in rank order. */
  allGather(
    send: DeviceBuffer,
    recv: DeviceBuffer,
    stream: Stream,
    options: AllGatherOptions,
  ): void {
    this.#live();
    const opts = requireOptions('options', options);
    const { dataType, byteSize } = collectiveKind('options.kind', opts.kind);
    const sendBuffer = requireBuffer('send', send, this.device);
    const recvBuffer = requireBuffer('recv', recv, this.device);
    const target = requireStream('stream', stream, this.device);
    const count = elementCount(opts.count, sendBuffer, 'send', byteSize);
    requireBytes('send', sendBuffer, count * byteSize);
    requireBytes('recv', recvBuffer, count * this.nRanks * byteSize);
    this.#check(
      'ncclAllGather',
      nccl.ncclAllGather(
        sendBuffer.devicePtr,
        recvBuffer.devicePtr,
        count,
        dataType,
        this.#live(), // again: reading the options ran the caller's getters
        target.raw,
      ),
    );
  }

  /** Sends `count` elements of `buffer` to rank `peer`, which must call {@link recv}. */
  send(buffer: DeviceBuffer, peer: number, stream: Stream, options: PointToPointOptions): void {
    this.#pointToPoint('ncclSend', buffer, peer, stream, options);
  }

  /** Receives `count` elements from rank `peer` into `buffer`. */
  recv(buffer: DeviceBuffer, peer: number, stream: Stream, options: PointToPointOptions): void {
    this.#pointToPoint('ncclRecv', buffer, peer, stream, options);
  }

  #pointToPoint(
    call: 'ncclSend' | 'ncclRecv',
    buffer: unknown,
    peer: unknown,
    stream: unknown,
    options: unknown,
  ): void {
    this.#live();
    const opts = requireOptions('options', options);
    const { dataType, byteSize } = collectiveKind('options.kind', opts.kind);
    const target = requireBuffer('buffer', buffer, this.device);
    const peerRank = requireRank('peer', peer, this.nRanks);
    const queue = requireStream('stream', stream, this.device);
    const count = elementCount(opts.count, target, 'buffer', byteSize);
    requireBytes('buffer', target, count * byteSize);
    const fn = call === 'ncclSend' ? nccl.ncclSend : nccl.ncclRecv;
    // #live() again: reading the options ran the caller's getters, which may have disposed it.
    this.#check(call, fn(target.devicePtr, count, dataType, peerRank, this.#live(), queue.raw));
  }

  /** Throws `NcclError` when the communicator has an asynchronous error (a failed peer). */
  checkAsyncError(): void {
    const comm = this.#live();
    const { status, asyncError } = nccl.ncclCommGetAsyncError(comm);
    this.#check('ncclCommGetAsyncError', status);
    if (asyncError !== 0 && asyncError !== nccl.ncclResult.ncclInProgress) {
      throw new NcclError(
        'ncclCommGetAsyncError',
        asyncError,
        nccl.ncclResultName(asyncError),
        ncclMessage(asyncError, comm, false),
        this.#where,
      );
    }
  }

  /**
   * Resolves when the work queued on `stream` so far has completed. Polls from timers (the event
   * loop keeps running); an asynchronous error or `options.timeoutMs` passing aborts this
   * communicator and the others of its `initAll`, and rejects with `NcclError`.
   */
  synchronize(stream: Stream, options?: WaitOptions): Promise<void> {
    try {
      const [target, event, timeoutMs] = this.#waitArgs(stream, options);
      return waitFor(target, event, timeoutMs).finally(() => event.dispose());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** {@link synchronize}, blocking the calling thread. */
  synchronizeSync(stream: Stream, options?: WaitOptions): void {
    const [target, event, timeoutMs] = this.#waitArgs(stream, options);
    try {
      waitForSync(target, event, timeoutMs);
    } finally {
      event.dispose();
    }
  }

  #waitArgs(stream: unknown, options: unknown): [WaitTarget, Event, number] {
    this.#live();
    const opts = requireOptions('options', options === undefined ? {} : options);
    const timeoutMs = requireTimeout('options.timeoutMs', opts.timeoutMs, DEFAULT_TIMEOUT_MS);
    const queue = requireStream('stream', stream, this.device);
    const comm = this.#live(); // again: reading the options ran the caller's getters
    const event = Event.create(this.device, { timing: false, blockingSync: false });
    event.record(queue);
    const family = this.#family;
    const target: WaitTarget = {
      asyncError: () => {
        if (this.#comm === null) throw family.abortReason ?? new DisposedError('Communicator');
        return nccl.ncclCommGetAsyncError(comm).asyncError;
      },
      message: (result) => ncclMessage(result, comm, false),
      abort: (reason) => {
        family.abortReason = reason;
        for (const member of family.members) member.abort();
      },
      where: this.#where,
    };
    return [target, event, timeoutMs];
  }

  /**
   * Frees the communicator without waiting for its peers (`ncclCommAbort`): what a rank does when
   * a peer failed. Idempotent; the communicator is disposed after.
   */
  abort(): void {
    const comm = this.#comm;
    if (comm === null) return;
    this.#comm = null;
    nccl.ncclCommAbort(comm);
  }

  /** Frees the communicator (`ncclCommDestroy`) once its queued work is done. Idempotent. */
  dispose(): void {
    const comm = this.#comm;
    if (comm === null) return;
    this.#comm = null;
    ncclCheck('ncclCommDestroy', nccl.ncclCommDestroy(comm), null, this.#where);
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
