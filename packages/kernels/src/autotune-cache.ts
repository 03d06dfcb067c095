/**
 * The autotune cache file: `{version, entries: {key → {engineIndex, knobs}}}` in JSON.
 * A corrupt or stale file is ignored with a warning (type 'BaracudaWarning'), never fatal.
 * Updates are read-merge-write under a lock file beside it (`<path>.lock`), so concurrent writers
 * (processes, workers) lose no entries; the file operations are autotune-cache-file.ts's.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { expectBoolean, expectInteger, InvalidArgumentError } from '@baracuda/types';
import {
  CACHE_FILE_MAX_BYTES,
  inspectCacheFile,
  keepAside,
  readCacheFile,
  replaceCacheFile,
} from './autotune-cache-file.js';
import { expectObject, expectString } from './checks.js';
import {
  acquireLock,
  LOCK_LIMITS,
  type LockLimits,
  type LockWait,
  releaseLock,
} from './file-lock.js';

/**
 * Bumped when the key or entry format, or how entries were chosen, changes; other versions are
 * stale. 2: knob choices are recorded (version 1 files recorded none, so their entries named
 * every config of an engine) and there is no NDHWC-detour entry. 3: candidates are timed on
 * operand sets rotated past L2 (version 2 timed them on one set, warm in L2, and picked configs
 * that are slower where a layer's operands come from memory). 4: engine index -2, backward-data of
 * a 1×1×1 layer run as a forward pass on the transposed filter (version 3 would read it as a cuDNN
 * engine). 5: engine index -3, an NCDHW pass run through its NDHWC problem on our transposes
 * (version 4 never timed it, and would read it as a cuDNN engine).
 */
export const AUTOTUNE_CACHE_VERSION = 5;

/** One tuned choice: the engine and its knob settings. */
export interface AutotuneEntry {
  engineIndex: number;
  /** [knob type, value] pairs, as the engine config reports them. */
  knobs: [number, number][];
  /** Median time of the winner, in ms (informative). */
  timeMs?: number;
  /**
   * Present when a time budget (this many ms) ran out before every candidate was timed: the
   * best so far. A select under a larger budget, or none, tunes the pass again. Entries written
   * before budgets existed have none: complete searches.
   */
  budgetMs?: number;
}

/** The file's content. */
export interface AutotuneCacheFile {
  version: number;
  entries: Record<string, AutotuneEntry>;
}

/**
 * Default path: $BARACUDA_AUTOTUNE_CACHE, else $XDG_CACHE_HOME/baracuda/conv3d-autotune.json,
 * else ~/.cache/baracuda/conv3d-autotune.json.
 */
export function defaultAutotuneCachePath(env: NodeJS.ProcessEnv = process.env): string {
  const vars = expectObject('env', env, 'an environment object such as process.env');
  const variable = (name: string): string | undefined => {
    const value = vars[name];
    if (value === undefined || typeof value === 'string') return value;
    throw new InvalidArgumentError(`env.${name}`, 'a string or undefined', value);
  };
  const override = variable('BARACUDA_AUTOTUNE_CACHE');
  if (override) return override;
  const base = variable('XDG_CACHE_HOME') || join(homedir(), '.cache');
  return join(base, 'baracuda', 'conv3d-autotune.json');
}

/** What the key of a tuned choice is made of. */
export interface AutotuneKeyParts {
  problem: string;
  pass: string;
  /** 'f32' or 'f64': the type of the alpha/beta attributes. */
  scalingKind: string;
  deterministic: boolean;
  allowTf32: boolean;
  deviceName: string;
  computeCapability: { major: number; minor: number };
  cudnnVersion: number;
  /**
   * `'quick-tune'`: the default mode's quick choice, under a key of its own (`| select=quick-tune`
   * at the end), so that it and autotune's choice never replace each other. Absent: autotune's.
   */
  select?: 'quick-tune';
}

/**
 * The cache key: problem + pass + scaling kind + determinism/TF32 flags + device + cuDNN version
 * (+ `select=quick-tune` for the default mode's quick choices).
 */
export function autotuneKey(parts: AutotuneKeyParts): string {
  const p = expectObject(
    'parts',
    parts,
    'an object {problem, pass, scalingKind, deterministic, allowTf32, deviceName, computeCapability, cudnnVersion}',
  );
  const problem = expectString('parts.problem', p.problem);
  const pass = expectString('parts.pass', p.pass);
  const scalingKind = expectString('parts.scalingKind', p.scalingKind);
  const deterministic = expectBoolean('parts.deterministic', p.deterministic);
  const allowTf32 = expectBoolean('parts.allowTf32', p.allowTf32);
  const deviceName = expectString('parts.deviceName', p.deviceName);
  const cc = expectObject(
    'parts.computeCapability',
    p.computeCapability,
    'an object {major, minor}',
  );
  const major = expectInteger('parts.computeCapability.major', cc.major, { min: 0 });
  const minor = expectInteger('parts.computeCapability.minor', cc.minor, { min: 0 });
  const cudnnVersion = expectInteger('parts.cudnnVersion', p.cudnnVersion, { min: 0 });
  if (p.select !== undefined && p.select !== 'quick-tune') {
    throw new InvalidArgumentError('parts.select', "'quick-tune' or undefined", p.select);
  }
  const select = p.select === undefined ? [] : [`select=${p.select}`];
  return [
    problem,
    `pass=${pass}`,
    `scaling=${scalingKind}`,
    `deterministic=${deterministic}`,
    `tf32=${allowTf32}`,
    `device=${deviceName} sm${major}${minor}`,
    `cudnn=${cudnnVersion}`,
    ...select,
  ].join(' | ');
}

function warn(message: string): void {
  process.emitWarning(message, { type: 'BaracudaWarning', code: 'BARACUDA_AUTOTUNE_CACHE' });
}

function isEntry(value: unknown): value is AutotuneEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    Number.isSafeInteger(v.engineIndex) &&
    Array.isArray(v.knobs) &&
    v.knobs.every(
      (k) =>
        Array.isArray(k) &&
        k.length === 2 &&
        Number.isSafeInteger(k[0]) &&
        Number.isSafeInteger(k[1]),
    ) &&
    (v.budgetMs === undefined || (typeof v.budgetMs === 'number' && v.budgetMs > 0))
  );
}

type Parsed =
  | { readonly kind: 'ok'; readonly cache: AutotuneCacheFile; readonly dropped: number }
  /** Not a cache file of any version: kept aside before the next write. */
  | { readonly kind: 'corrupt'; readonly reason: string }
  /** Another version's file: its entries mean nothing here; the next write replaces it. */
  | { readonly kind: 'stale'; readonly reason: string };

/** Decode the file's text. */
function parseCache(text: string): Parsed {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { kind: 'corrupt', reason: `it is not valid JSON (${(error as Error).message})` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { kind: 'corrupt', reason: 'expected a JSON object with version and entries' };
  }
  const file = parsed as Record<string, unknown>;
  if (file.version !== AUTOTUNE_CACHE_VERSION) {
    return {
      kind: 'stale',
      reason:
        `it has version ${JSON.stringify(file.version)}, ` +
        `this baracuda reads version ${AUTOTUNE_CACHE_VERSION}; it will be rewritten`,
    };
  }
  if (typeof file.entries !== 'object' || file.entries === null || Array.isArray(file.entries)) {
    return { kind: 'corrupt', reason: 'its entries are not an object' };
  }
  const entries: Record<string, AutotuneEntry> = {};
  let dropped = 0;
  for (const [key, value] of Object.entries(file.entries as Record<string, unknown>)) {
    if (isEntry(value)) entries[key] = value;
    else dropped++;
  }
  return { kind: 'ok', cache: { version: AUTOTUNE_CACHE_VERSION, entries }, dropped };
}

function checkPath(path: unknown): string {
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) {
    throw new InvalidArgumentError(
      'path',
      'a non-empty path string without NUL characters (the autotune cache file)',
      path,
    );
  }
  return path;
}

/**
 * Read the cache file. A missing file is an empty cache; a corrupt or stale one is an empty
 * cache and a warning; so is anything that is not a regular file (a directory, a FIFO, a device,
 * a symbolic link, which is not followed) or a file over 16 MiB. Entries that do not have the
 * right shape are dropped (with a warning). Only a path string is accepted (`InvalidArgumentError`
 * otherwise: a file descriptor such as 0 would read stdin).
 */
export function readAutotuneCache(path: string): AutotuneCacheFile {
  checkPath(path);
  const empty: AutotuneCacheFile = { version: AUTOTUNE_CACHE_VERSION, entries: {} };
  const read = readCacheFile(path);
  if (read.kind === 'missing') return empty;
  if (read.kind === 'refused') {
    warn(`Ignoring the autotune cache ${path}: ${read.reason}`);
    return empty;
  }
  const parsed = parseCache(read.text);
  if (parsed.kind === 'corrupt') {
    warn(
      `Ignoring the autotune cache ${path}: ${parsed.reason}; it will be kept aside as ${path}.corrupt-<time> when an entry is next written`,
    );
    return empty;
  }
  if (parsed.kind === 'stale') {
    warn(`Ignoring the autotune cache ${path}: ${parsed.reason}`);
    return empty;
  }
  if (parsed.dropped > 0) {
    warn(
      `Ignoring ${parsed.dropped} malformed entr${parsed.dropped === 1 ? 'y' : 'ies'} of the autotune cache ${path}`,
    );
  }
  return parsed.cache;
}

/**
 * Add one entry to the file: under its lock, read what is there now, add the entry and replace
 * the file atomically. While another process or worker holds the lock this yields waits (the
 * async select awaits them; selectSync sleeps), up to `limits.maxWaitMs`. Failure to write is a
 * warning, never an error: tuning still succeeded and the plan keeps its choice. A corrupt file
 * is kept aside (`<path>.corrupt-<time>`), never overwritten; anything that is not a regular file,
 * or a file over 16 MiB, is left alone and nothing is written.
 * @returns whether the file was written.
 */
export function* saveAutotuneEntry(
  path: string,
  key: string,
  entry: AutotuneEntry,
  limits: LockLimits = LOCK_LIMITS,
): Generator<LockWait, boolean, void> {
  checkPath(path);
  const fail = (reason: string) => {
    warn(`Could not write the autotune cache ${path}: ${reason}`);
    return false;
  };
  // Refused before anything (the lock file) is made beside it.
  const seen = inspectCacheFile(path);
  if (seen.kind === 'refused') return fail(seen.reason);
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    return fail((error as Error).message);
  }
  const lock = yield* acquireLock(`${path}.lock`, limits);
  if (typeof lock === 'string') {
    return fail(`${lock}; the tuned choice is kept for this process only`);
  }
  try {
    let entries: Record<string, AutotuneEntry> = {};
    const read = readCacheFile(path);
    if (read.kind === 'refused') return fail(read.reason);
    if (read.kind === 'text') {
      const parsed = parseCache(read.text);
      if (parsed.kind === 'ok') entries = parsed.cache.entries;
      else if (parsed.kind === 'corrupt') {
        const aside = keepAside(path);
        warn(`The autotune cache ${path} was corrupt (${parsed.reason}); it is kept as ${aside}`);
      }
    }
    entries[key] = entry;
    const text = `${JSON.stringify({ version: AUTOTUNE_CACHE_VERSION, entries }, null, 2)}\n`;
    if (Buffer.byteLength(text) > CACHE_FILE_MAX_BYTES) {
      return fail(`it would hold more than ${CACHE_FILE_MAX_BYTES} bytes (16 MiB)`);
    }
    replaceCacheFile(path, text);
    return true;
  } catch (error) {
    return fail((error as Error).message);
  } finally {
    releaseLock(lock);
  }
}

/** {@link saveAutotuneEntry}, waiting for the lock synchronously (tests, scripts). */
export function writeAutotuneEntry(
  path: string,
  key: string,
  entry: AutotuneEntry,
  limits: LockLimits = LOCK_LIMITS,
): boolean {
  const save = saveAutotuneEntry(path, key, entry, limits);
  for (let step = save.next(); ; step = save.next()) {
    if (step.done) return step.value;
    step.value.synchronizeSync();
  }
}
