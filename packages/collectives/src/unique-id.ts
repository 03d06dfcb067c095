import { NCCL_UNIQUE_ID_BYTES, ncclGetUniqueId } from '@baracuda/nccl-sys';
import { InvalidArgumentError, UnsupportedError } from '@baracuda/types';
import { guardReceivers } from './receivers.js';
import { ncclCheck } from './result.js';

const TOKEN: unique symbol = Symbol('NcclUniqueId');
const TEXT_PATTERN = /^[A-Za-z0-9_-]{171}$/;

/**
 * The 128-byte id that names one communicator across processes: one rank makes it
 * ({@link NcclUniqueId.create}), sends it to the others by any means (an environment variable, a
 * file, a socket) as text ({@link NcclUniqueId.toString}, 171 base64url characters) or bytes, and
 * every rank passes it to `Communicator.initRank`.
 */
export class NcclUniqueId {
  readonly #bytes: Uint8Array;

  static {
    guardReceivers(
      NcclUniqueId,
      'NcclUniqueId',
      (o) => typeof o === 'object' && o !== null && #bytes in o,
    );
  }

  private constructor(token: typeof TOKEN, bytes: Uint8Array) {
    if (token !== TOKEN) {
      throw new UnsupportedError(
        'NcclUniqueId cannot be constructed with new: use NcclUniqueId.create(), NcclUniqueId.parse(text) or NcclUniqueId.fromBytes(bytes)',
      );
    }
    this.#bytes = bytes;
    Object.freeze(this);
  }

  /** A fresh id from `ncclGetUniqueId` (on the rank that will be rank 0, by convention). */
  static create(): NcclUniqueId {
    const { status, uniqueId } = ncclGetUniqueId();
    ncclCheck('ncclGetUniqueId', status, null, '');
    return new NcclUniqueId(TOKEN, Uint8Array.from(uniqueId));
  }

  /** The id {@link NcclUniqueId.toString} wrote. */
  static parse(text: string): NcclUniqueId {
    if (typeof text !== 'string' || !TEXT_PATTERN.test(text)) {
      throw new InvalidArgumentError(
        'text',
        'an NcclUniqueId as written by toString() (171 base64url characters)',
        text,
      );
    }
    return new NcclUniqueId(TOKEN, new Uint8Array(Buffer.from(text, 'base64url')));
  }

  /** The id from its 128 bytes (copied). */
  static fromBytes(bytes: Uint8Array): NcclUniqueId {
    if (!(bytes instanceof Uint8Array) || bytes.byteLength !== NCCL_UNIQUE_ID_BYTES) {
      throw new InvalidArgumentError(
        'bytes',
        `a Uint8Array of ${NCCL_UNIQUE_ID_BYTES} bytes`,
        bytes,
      );
    }
    return new NcclUniqueId(TOKEN, Uint8Array.from(bytes));
  }

  /** A copy of the 128 bytes. */
  toBytes(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }

  /** The id as 171 base64url characters, safe in an environment variable or a file. */
  toString(): string {
    return Buffer.from(this.#bytes).toString('base64url');
  }
}

/** @internal The bytes of a checked id. */
export function uniqueIdBytes(name: string, value: unknown): Uint8Array {
  if (!(value instanceof NcclUniqueId)) {
    throw new InvalidArgumentError(name, 'an NcclUniqueId', value);
  }
  return value.toBytes();
}
