/**
 * What the slots of the nccl-sys and collectives targets accept (see expectations.ts, which
 * spreads these into SLOT_KINDS).
 */
import type { SlotKind } from './expectations.js';

export const NCCL_SLOT_KINDS: Record<string, SlotKind> = {
  // ---- nccl-sys (TypeError / RangeError / a non-zero status count as refusals)
  ncclComm: { extras: ['commDestroyed', 'commProtoMimic', 'stream0'], accepts: [] },
  optionalComm: {
    extras: ['comm', 'commDestroyed', 'commProtoMimic', 'stream0'],
    accepts: ['undefined', 'null', 'comm'],
  },
  /** size_t counts: rank 0's collectives never run (rank 1 never calls), so any size fits. */
  ncclCount: {
    extras: ['pow31minus1', 'pow40'],
    accepts: ['zero', 'one', 'pow31', 'pow31minus1', 'pow32', 'pow40', 'pow53'],
  },
  uniqueId: {
    extras: [
      'uniqueIdLive',
      'uniqueIdZeros',
      'uniqueIdShared',
      'uniqueIdTooLong',
      'u8',
      'sharedU8',
      'detachedU8',
      'nodeBuffer',
    ],
    accepts: ['uniqueIdLive', 'uniqueIdZeros', 'uniqueIdShared'],
  },
  /** The fake NCCL takes any device ordinal (it cannot ask the driver how many there are). */
  cudaDevice: { extras: ['two'], accepts: ['undefined', 'zero', 'one', 'two'] },
  devlist: {
    extras: [
      'devlist01',
      'devlistEmpty',
      'devlistNegative',
      'devlistHuge',
      'devlistShared',
      'devlistArray',
      'devlistU32',
    ],
    accepts: ['devlist01', 'devlistNegative', 'devlistHuge', 'devlistShared'],
  },

  // ---- collectives (a CorpusUserError, thrown by the case's own getter or callback, counts as
  // a refusal: it must come back unchanged)
  collBuffer: {
    extras: ['buffer0', 'buffer1', 'bufferDisposed', 'bufferSmall', 'sliceWildPtr', 'stream0'],
    accepts: ['buffer0'],
  },
  /** broadcast's send on a rank other than the root: NCCL never reads it, so any size fits. */
  rootSend: {
    extras: ['buffer0', 'buffer1', 'bufferDisposed', 'bufferSmall', 'sliceWildPtr', 'stream0'],
    accepts: ['buffer0', 'bufferSmall'],
  },
  collOptions: {
    extras: ['selfReferential', 'throwingGetter'],
    accepts: ['selfReferential'],
    reentrant: true,
  },
  collKind: {
    extras: [
      'kindF32',
      'kindF64',
      'kindF16',
      'kindBf16',
      'kindI32',
      'kindU64',
      'kindI8',
      'kindBogus',
    ],
    accepts: ['kindF32', 'kindF64', 'kindF16', 'kindBf16', 'kindI32', 'kindU64', 'kindI8'],
  },
  collCount: { extras: ['two'], accepts: ['undefined', 'one', 'two'] },
  reduceOp: {
    extras: ['opSum', 'opProd', 'opMax', 'opMin', 'opAvg', 'opBogus'],
    accepts: ['undefined', 'opSum', 'opProd', 'opMax', 'opMin', 'opAvg'],
  },
  /** A rank of a two-rank communicator. */
  collRank: { extras: ['two'], accepts: ['zero', 'one'] },
  waitOptions: {
    extras: ['selfReferential', 'throwingGetter'],
    accepts: ['undefined', 'object', 'cyclic', 'selfReferential'],
    reentrant: true,
  },
  timeoutMs: { extras: ['pow31minus1'], accepts: ['undefined', 'one', 'fraction', 'pow31minus1'] },
  deviceList: {
    extras: ['devices01', 'devices0', 'devicesTwice', 'devicesWithStream', 'devicesMimic'],
    accepts: ['devices01', 'devices0'],
  },
  ncclId: {
    extras: ['idLive', 'idMimic', 'idProtoMimic', 'idText', 'idBytes'],
    accepts: ['idLive'],
  },
  /** initRank of a one-rank communicator (a larger one would wait for its other ranks). */
  soloRank: { extras: [], accepts: ['zero'] },
  soloRanks: { extras: [], accepts: ['one'] },
  idText: {
    extras: ['idText', 'idTextShort', 'idTextBadChar', 'idTextZeros'],
    accepts: ['idText', 'idTextZeros'],
  },
  idBytes: {
    extras: [
      'idBytes',
      'idBytesZeros',
      'idBytesShared',
      'idBytesBuffer',
      'idBytes127',
      'idBytesU16',
    ],
    accepts: ['idBytes', 'idBytesZeros', 'idBytesShared', 'idBytesBuffer'],
  },
  enqueueFn: {
    extras: ['enqueueFn', 'asyncFn', 'throwingFn'],
    accepts: ['enqueueFn', 'function', 'asyncFn'],
  },
  batchArray: {
    extras: ['f32Batch', 'f64Batch', 'u16Batch', 'oddBatch', 'i32Batch', 'u8', 'f32View'],
    accepts: ['f32Batch', 'f64Batch', 'u16Batch', 'f32View'],
  },
  parts: { extras: ['two', 'n256'], accepts: ['one', 'two'] },
  convDescriptor: {
    extras: ['pairDescriptor', 'descriptorMimic', 'stream0'],
    accepts: ['pairDescriptor'],
  },
  pairDescriptor: {
    extras: ['pairDescriptor', 'descriptorOddBatch', 'descriptorMimic'],
    accepts: ['pairDescriptor'],
  },
  bucketBytes: { extras: [], accepts: ['undefined', 'one', 'pow31', 'pow32'] },
  parallelReduce: { extras: ['opSum', 'opAvg', 'opMax'], accepts: ['undefined', 'opSum', 'opAvg'] },
  parallelSelf: {
    universal: false,
    extras: ['parallelDisposed', 'object', 'mimicSelf', 'protoMimic', 'otherClass'],
    accepts: [],
  },
  parallelSelfDisposeOk: {
    universal: false,
    extras: ['parallelDisposed', 'object', 'mimicSelf', 'protoMimic', 'otherClass'],
    accepts: ['parallelDisposed'],
  },
  shardList: {
    extras: [
      'shardsSwapped',
      'shardsShort',
      'shardsMissingDw',
      'shardsDisposedBuffer',
      'selfReferential',
    ],
    accepts: ['selfReferential'],
  },
};
