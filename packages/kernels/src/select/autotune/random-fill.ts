/**
 * Autotune's random operands, made on the device: one tile of random values made on the host and
 * uploaded, then copied over the rest of the buffer in doubling device-to-device copies (the
 * copies queued on the tuning stream, before any timed run). A large layer's operands took the
 * host seconds a pass to make and upload element by element (U-Net's first level: 134 M
 * elements of x and as many of y, for each of three passes); a tile and log2(size / tile) copies
 * take milliseconds. Timing does not depend on the values repeating past a tile: the tile is
 * megabytes, and no two operand reads of a convolution are a tile apart in lockstep.
 */
import type { ElementKind } from '@baracuda/types';
import type { OwnedBuffer, StreamLike } from '../../sys.js';
import { randomScratchBytes } from '../../tuning.js';

/** Elements of the host-made tile: 1 Mi (2 MiB of f16, 8 MiB of f64). */
export const RANDOM_TILE_ELEMENTS = 1 << 20;

/**
 * The copies that fill `totalBytes` from a first `tileBytes`: [destination offset, length] each,
 * in order, every source the start of the buffer, each copy at most doubling the filled part.
 */
export function doublingCopies(
  tileBytes: number,
  totalBytes: number,
): readonly (readonly [offset: number, bytes: number])[] {
  const copies: [number, number][] = [];
  let filled = Math.min(tileBytes, totalBytes);
  while (filled > 0 && filled < totalBytes) {
    const bytes = Math.min(filled, totalBytes - filled);
    copies.push([filled, bytes]);
    filled += bytes;
  }
  return copies;
}

/**
 * Fill `buffer` (whole elements of `element`, `elementBytes` each) with random values as
 * {@link randomScratchBytes} makes them, one tile of {@link RANDOM_TILE_ELEMENTS} repeated; the
 * upload returns when done, the copies are queued on `stream`.
 */
export function fillRandomTiled(
  buffer: OwnedBuffer,
  element: ElementKind,
  elementBytes: number,
  stream: StreamLike,
  tileElements = RANDOM_TILE_ELEMENTS,
): void {
  const elements = Math.floor(buffer.byteLength / elementBytes);
  if (elements === 0) return;
  const tile = Math.min(elements, tileElements);
  buffer.uploadSync(randomScratchBytes(element, tile));
  for (const [offset, bytes] of doublingCopies(tile * elementBytes, elements * elementBytes)) {
    buffer.slice(offset, bytes).copyFrom(buffer.slice(0, bytes), stream);
  }
}
