/**
 * The one typed description of everything the native addon (`baracuda_nccl.node`) exports.
 * `src/native.test.ts` enumerates the real exports against {@link NATIVE_EXPORTS}.
 *
 * Conventions: a call with no outputs returns the `ncclResult_t` number; a call with outputs
 * returns `{ status, ...outputs }` named after the C out-parameters. Device pointers and streams
 * are `bigint`. An NCCL result never throws; a wrong argument throws `TypeError`.
 */
import type { LibrarySearchAttempt } from '@baracuda/types';

declare const commBrand: unique symbol;

/** An `ncclComm_t`, type-tagged. Made by `ncclCommInitRank`/`ncclCommInitAll`. */
export interface NcclComm {
  readonly [commBrand]: true;
}

export interface StatusResult {
  /** The `ncclResult_t`. */
  status: number;
}

/** What the addon's own probe reports (see `probe()` in index.ts for the decoded form). */
export interface NativeProbe {
  available: boolean;
  version: number;
  libraryPath: string;
  tried: LibrarySearchAttempt[];
  missingSymbols: string[];
  reason: string;
}

export interface NativeBinding {
  NcclComm: new (...args: never[]) => NcclComm;
  probe(): NativeProbe;
  nativeConstants(): Record<string, number>;
  ncclGetVersion(): StatusResult & { version: number };
  ncclGetUniqueId(): StatusResult & { uniqueId: Uint8Array };
  ncclCommInitRank(
    nranks: number,
    commId: Uint8Array,
    rank: number,
    cudaDevice?: number,
  ): StatusResult & { comm: NcclComm | null };
  ncclCommInitRankAsync(
    nranks: number,
    commId: Uint8Array,
    rank: number,
    cudaDevice?: number,
  ): Promise<StatusResult & { comm: NcclComm | null }>;
  ncclCommInitAll(devlist: Int32Array): StatusResult & { comms: NcclComm[] };
  ncclCommDestroy(comm: NcclComm): number;
  ncclCommAbort(comm: NcclComm): number;
  ncclCommGetAsyncError(comm: NcclComm): StatusResult & { asyncError: number };
  ncclCommCount(comm: NcclComm): StatusResult & { count: number };
  ncclCommCuDevice(comm: NcclComm): StatusResult & { device: number };
  ncclCommUserRank(comm: NcclComm): StatusResult & { rank: number };
  ncclAllReduce(
    sendbuff: bigint,
    recvbuff: bigint,
    count: number,
    datatype: number,
    op: number,
    comm: NcclComm,
    stream: bigint,
  ): number;
  ncclBroadcast(
    sendbuff: bigint,
    recvbuff: bigint,
    count: number,
    datatype: number,
    root: number,
    comm: NcclComm,
    stream: bigint,
  ): number;
  ncclReduceScatter(
    sendbuff: bigint,
    recvbuff: bigint,
    recvcount: number,
    datatype: number,
    op: number,
    comm: NcclComm,
    stream: bigint,
  ): number;
  ncclAllGather(
    sendbuff: bigint,
    recvbuff: bigint,
    sendcount: number,
    datatype: number,
    comm: NcclComm,
    stream: bigint,
  ): number;
  ncclSend(
    sendbuff: bigint,
    count: number,
    datatype: number,
    peer: number,
    comm: NcclComm,
    stream: bigint,
  ): number;
  ncclRecv(
    recvbuff: bigint,
    count: number,
    datatype: number,
    peer: number,
    comm: NcclComm,
    stream: bigint,
  ): number;
  ncclGroupStart(): number;
  ncclGroupEnd(): number;
  ncclGetErrorString(result: number): string;
  ncclGetLastError(comm: NcclComm | null): string;
}

/** Every export of the addon, checked against the real one by native.test.ts. */
export const NATIVE_EXPORTS = [
  'NcclComm',
  'probe',
  'nativeConstants',
  'ncclGetVersion',
  'ncclGetUniqueId',
  'ncclCommInitRank',
  'ncclCommInitRankAsync',
  'ncclCommInitAll',
  'ncclCommDestroy',
  'ncclCommAbort',
  'ncclCommGetAsyncError',
  'ncclCommCount',
  'ncclCommCuDevice',
  'ncclCommUserRank',
  'ncclAllReduce',
  'ncclBroadcast',
  'ncclReduceScatter',
  'ncclAllGather',
  'ncclSend',
  'ncclRecv',
  'ncclGroupStart',
  'ncclGroupEnd',
  'ncclGetErrorString',
  'ncclGetLastError',
] as const satisfies readonly (keyof NativeBinding)[];
