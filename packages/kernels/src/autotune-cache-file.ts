/**
 * The autotune cache's file operations, none of which follows a link or hangs: reading only a
 * regular file of at most {@link CACHE_FILE_MAX_BYTES} (opened O_NOFOLLOW | O_NONBLOCK, so a FIFO
 * cannot block the open), replacing it through a temp file created exclusively under an
 * unpredictable name, and keeping a corrupt file aside instead of overwriting it. What the file
 * holds is autotune-cache.ts's business.
 * @internal
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A cache file larger than this is not read (nor written): 16 MiB. */
export const CACHE_FILE_MAX_BYTES = 16 * 1024 * 1024;

const { O_CREAT, O_EXCL, O_WRONLY, O_RDONLY } = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** What is at the path: nothing, a file's text, or why it is not read. */
export type CacheFileRead =
  | { readonly kind: 'missing' }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'refused'; readonly reason: string };

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function whatItIs(stat: Stats): string {
  if (stat.isSymbolicLink()) return 'a symbolic link, which is not followed';
  if (stat.isDirectory()) return 'a directory, not a regular file';
  if (stat.isFIFO()) return 'a FIFO, not a regular file';
  if (stat.isCharacterDevice()) return 'a character device, not a regular file';
  if (stat.isBlockDevice()) return 'a block device, not a regular file';
  if (stat.isSocket()) return 'a socket, not a regular file';
  return 'not a regular file';
}

/** Why a regular file or anything else at the path is not used; null when it is fine. */
function refusal(stat: Stats): string | null {
  if (!stat.isFile()) return `it is ${whatItIs(stat)}`;
  if (stat.size > CACHE_FILE_MAX_BYTES) {
    return `it holds ${stat.size} bytes, more than the ${CACHE_FILE_MAX_BYTES} bytes (16 MiB) a cache file may hold`;
  }
  return null;
}

/**
 * What is at `path` now, without following a link there: `missing`, or `refused` with the reason
 * (not a regular file, over the size cap, unreadable), checked before anything is created beside
 * it.
 */
export function inspectCacheFile(
  path: string,
):
  | { readonly kind: 'missing' }
  | { readonly kind: 'file' }
  | Extract<CacheFileRead, { kind: 'refused' }> {
  try {
    const why = refusal(lstatSync(path));
    return why === null ? { kind: 'file' } : { kind: 'refused', reason: why };
  } catch (error) {
    if (code(error) === 'ENOENT') return { kind: 'missing' };
    return { kind: 'refused', reason: `it cannot be read (${(error as Error).message})` };
  }
}

/** Read the file at `path`: a regular file of at most {@link CACHE_FILE_MAX_BYTES}, never a link. */
export function readCacheFile(path: string): CacheFileRead {
  const seen = inspectCacheFile(path);
  if (seen.kind !== 'file') return seen;
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if (code(error) === 'ENOENT') return { kind: 'missing' };
    if (code(error) === 'ELOOP') {
      return { kind: 'refused', reason: 'it is a symbolic link, which is not followed' };
    }
    return { kind: 'refused', reason: `it cannot be read (${(error as Error).message})` };
  }
  try {
    // What was opened, which may not be what lstat saw a moment ago.
    const why = refusal(fstatSync(fd));
    if (why !== null) return { kind: 'refused', reason: why };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(1 << 20);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > CACHE_FILE_MAX_BYTES) {
        return {
          kind: 'refused',
          reason: `it holds more than the ${CACHE_FILE_MAX_BYTES} bytes (16 MiB) a cache file may hold`,
        };
      }
      chunks.push(chunk.subarray(0, n));
    }
    return { kind: 'text', text: Buffer.concat(chunks, total).toString('utf8') };
  } catch (error) {
    return { kind: 'refused', reason: `it cannot be read (${(error as Error).message})` };
  } finally {
    closeSync(fd);
  }
}

/** A temp file name beside `path` that no one can guess: `.<name>.<16 hex digits>.tmp`. */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(8).toString('hex')}.tmp`);
}

/**
 * Replace the file at `path` with `text` atomically for readers: written to `temp` (created
 * exclusively, never through a link there), then renamed over `path`. The temp file is removed on
 * any failure. Throws the failure.
 */
export function replaceCacheFile(path: string, text: string, temp = tempPathFor(path)): void {
  const fd = openSync(temp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0o666);
  try {
    writeFileSync(fd, text);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  }
}

/**
 * Move a corrupt file aside (`<path>.corrupt-<timestamp>`, a random suffix if that exists) so
 * that what it held is not lost when the file is written again. Returns where it went.
 */
export function keepAside(path: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let aside = `${path}.corrupt-${stamp}`;
  if (existsSync(aside)) aside = `${aside}-${randomBytes(4).toString('hex')}`;
  renameSync(path, aside);
  return aside;
}
