/**
 * An advisory lock file beside a file that several processes and workers update (the autotune
 * cache): created with O_EXCL, holding `{pid, host, time, token}`. Node has no flock, so a holder
 * that died is recognised instead: one of this host whose pid is gone (after a second), or any
 * whose lock is older than `staleMs`. A stale lock is broken under a second, short-lived lock (`<lock>.break`), after
 * checking it is still the same lock, so two waiters that both saw it stale cannot both break it
 * and then both hold it. Waiting is a generator of waits: the async select awaits them (the event
 * loop runs), selectSync sleeps; after `maxWaitMs` the caller gives up with the reason.
 * @internal
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';

/** One wait of a lock: shaped as the timing events select's loop already waits on. */
export interface LockWait {
  synchronize(): Promise<void>;
  synchronizeSync(): void;
  record(): void;
  dispose(): void;
}

export interface LockLimits {
  /** A lock older than this is a dead holder's, whatever its pid. */
  readonly staleMs: number;
  /** How long to wait for the lock before giving up. */
  readonly maxWaitMs: number;
}

/** A holder keeps the lock for one read-merge-write of a file of at most 16 MiB: milliseconds. */
export const LOCK_LIMITS: LockLimits = Object.freeze({ staleMs: 30_000, maxWaitMs: 10_000 });

/** A lock this process holds. */
export interface HeldLock {
  readonly path: string;
  readonly token: string;
}

interface Holder {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly pid?: number;
  readonly host?: string;
  readonly token?: string;
}

const { O_CREAT, O_EXCL, O_WRONLY, O_RDONLY } = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const CREATE = O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW;
const SLEEP = new Int32Array(new SharedArrayBuffer(4));
/** A lock's content is one short JSON line; anything longer is not one of ours. */
const MAX_LOCK_BYTES = 4096;

function wait(ms: number): LockWait {
  return {
    synchronize: () => new Promise((resolve) => setTimeout(resolve, ms)),
    synchronizeSync: () => {
      Atomics.wait(SLEEP, 0, 0, ms);
    },
    record() {},
    dispose() {},
  };
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** Create the lock file exclusively with our content; false when it exists. Throws otherwise. */
function tryCreate(path: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, CREATE, 0o666);
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    const content = JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now(), token });
    writeSync(fd, `${content}\n`);
  } catch (error) {
    closeSync(fd);
    unlinkSync(path);
    throw error;
  }
  closeSync(fd);
  return true;
}

/** Who holds the lock (what its file says), or null when there is no lock file any more. */
function readHolder(path: string): Holder | null {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if (code(error) === 'ENOENT') return null;
    throw error;
  }
  const holder = { ino: stat.ino, mtimeMs: stat.mtimeMs };
  if (!stat.isFile()) return holder;
  let text = '';
  try {
    const fd = openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    try {
      if (fstatSync(fd).size <= MAX_LOCK_BYTES) {
        const buffer = Buffer.alloc(MAX_LOCK_BYTES);
        text = buffer.toString('utf8', 0, readSync(fd, buffer, 0, MAX_LOCK_BYTES, 0));
      }
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (code(error) === 'ENOENT') return null;
    return holder;
  }
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    return {
      ...holder,
      pid: Number.isSafeInteger(parsed.pid) ? (parsed.pid as number) : undefined,
      host: typeof parsed.host === 'string' ? parsed.host : undefined,
      token: typeof parsed.token === 'string' ? parsed.token : undefined,
    };
  } catch {
    // Empty while its creator writes it, or not ours: judged by its age alone.
    return holder;
  }
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return code(error) === 'ESRCH';
  }
}

/**
 * A holder keeps the lock for milliseconds, so a lock past this age whose pid is gone on this host
 * is a dead holder's. Not at once: a process of another pid namespace (a container sharing the
 * volume and the host name) is invisible here while it holds the lock.
 */
const GONE_AFTER_MS = 1000;

/** The lock file's own time (the file system's clock, not a clock the holder wrote) says its age. */
function isStale(holder: Holder, limits: LockLimits): boolean {
  const age = Date.now() - holder.mtimeMs;
  if (
    age > Math.min(GONE_AFTER_MS, limits.staleMs) &&
    holder.pid !== undefined &&
    holder.host === hostname() &&
    processGone(holder.pid)
  ) {
    return true;
  }
  return age > limits.staleMs;
}

function sameLock(a: Holder, b: Holder): boolean {
  return a.ino === b.ino && a.token === b.token && a.mtimeMs === b.mtimeMs;
}

/** Remove a stale lock, unless someone else is breaking it or it is no longer that lock. */
function breakStale(path: string, seen: Holder, limits: LockLimits): void {
  const breaker = `${path}.break`;
  const token = randomBytes(12).toString('hex');
  if (!tryCreate(breaker, token)) {
    // A breaker that died between creating and removing it (microseconds) is removed by age.
    const other = readHolder(breaker);
    if (other !== null && Date.now() - other.mtimeMs > limits.staleMs) {
      try {
        unlinkSync(breaker);
      } catch {
        // gone already
      }
    }
    return;
  }
  try {
    const now = readHolder(path);
    if (now !== null && sameLock(now, seen)) unlinkSync(path);
  } finally {
    unlinkSync(breaker);
  }
}

function describeHolder(holder: Holder | null): string {
  if (holder === null || holder.pid === undefined) return '';
  return ` (by pid ${holder.pid}${holder.host === undefined ? '' : ` on ${holder.host}`})`;
}

/**
 * Take the lock at `path`, waiting (yielded) while another holds it. Returns the held lock, or why
 * it was not taken (held past `maxWaitMs`, or the lock file cannot be made there).
 */
export function* acquireLock(
  path: string,
  limits: LockLimits = LOCK_LIMITS,
): Generator<LockWait, HeldLock | string, void> {
  const token = randomBytes(12).toString('hex');
  const started = Date.now();
  let holder: Holder | null = null;
  for (let attempt = 0; ; attempt++) {
    try {
      if (tryCreate(path, token)) return { path, token };
      holder = readHolder(path);
      if (holder === null) continue;
      if (isStale(holder, limits)) {
        breakStale(path, holder, limits);
        continue;
      }
    } catch (error) {
      return `its lock file ${path} cannot be made (${(error as Error).message})`;
    }
    const waited = Date.now() - started;
    if (waited >= limits.maxWaitMs) {
      return `its lock file ${path} was held for ${waited} ms${describeHolder(holder)}`;
    }
    // Backoff from 1 ms to 20 ms, jittered so that waiters do not retry in step.
    const base = Math.min(2 ** attempt, 20);
    yield wait(Math.min(base * (0.5 + Math.random()), limits.maxWaitMs - waited + 1));
  }
}

/** Release a lock taken by {@link acquireLock}; one broken as stale meanwhile is left alone. */
export function releaseLock(lock: HeldLock): void {
  try {
    if (readHolder(lock.path)?.token === lock.token) unlinkSync(lock.path);
  } catch {
    // Nothing to release: it is gone.
  }
}
