/**
 * The autotune cache file: `{version, entries: {key → {engineIndex, knobs}}}` in JSON.
 * A corrupt or stale file is ignored with a warning (type 'BaracudaWarning'), never fatal.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

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
  if (env.BARACUDA_AUTOTUNE_CACHE) return env.BARACUDA_AUTOTUNE_CACHE;
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
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
}

/** The cache key: problem + pass + scaling kind + determinism/TF32 flags + device + cuDNN version. */
export function autotuneKey(parts: AutotuneKeyParts): string {
  const cc = parts.computeCapability;
  return [
    parts.problem,
    `pass=${parts.pass}`,
    `scaling=${parts.scalingKind}`,
    `deterministic=${parts.deterministic}`,
    `tf32=${parts.allowTf32}`,
    `device=${parts.deviceName} sm${cc.major}${cc.minor}`,
    `cudnn=${parts.cudnnVersion}`,
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
    )
  );
}

/**
 * Read the cache file. A missing file is an empty cache; a corrupt or stale one is an empty
 * cache and a warning. Entries that do not have the right shape are dropped (with a warning).
 */
export function readAutotuneCache(path: string): AutotuneCacheFile {
  const empty: AutotuneCacheFile = { version: AUTOTUNE_CACHE_VERSION, entries: {} };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      warn(`Ignoring the autotune cache ${path}: it cannot be read (${(error as Error).message})`);
    }
    return empty;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    warn(
      `Ignoring the autotune cache ${path}: it is not valid JSON (${(error as Error).message}); it will be rewritten`,
    );
    return empty;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    warn(`Ignoring the autotune cache ${path}: expected a JSON object with version and entries`);
    return empty;
  }
  const file = parsed as Record<string, unknown>;
  if (file.version !== AUTOTUNE_CACHE_VERSION) {
    warn(
      `Ignoring the autotune cache ${path}: it has version ${JSON.stringify(file.version)}, ` +
        `this baracuda reads version ${AUTOTUNE_CACHE_VERSION}; it will be rewritten`,
    );
    return empty;
  }
  if (typeof file.entries !== 'object' || file.entries === null || Array.isArray(file.entries)) {
    warn(`Ignoring the autotune cache ${path}: its entries are not an object`);
    return empty;
  }
  const entries: Record<string, AutotuneEntry> = {};
  let dropped = 0;
  for (const [key, value] of Object.entries(file.entries as Record<string, unknown>)) {
    if (isEntry(value)) entries[key] = value;
    else dropped++;
  }
  if (dropped > 0) {
    warn(
      `Ignoring ${dropped} malformed entr${dropped === 1 ? 'y' : 'ies'} of the autotune cache ${path}`,
    );
  }
  return { version: AUTOTUNE_CACHE_VERSION, entries };
}

/**
 * Add one entry and write the file atomically (temp file + rename). Failure to write is a
 * warning, never an error: tuning still succeeded.
 * @returns whether the file was written.
 */
export function writeAutotuneEntry(path: string, key: string, entry: AutotuneEntry): boolean {
  const cache = readAutotuneCache(path);
  cache.entries[key] = entry;
  try {
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(cache, null, 2)}\n`);
    renameSync(tmp, path);
    return true;
  } catch (error) {
    warn(`Could not write the autotune cache ${path}: ${(error as Error).message}`);
    return false;
  }
}
