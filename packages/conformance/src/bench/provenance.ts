/**
 * What a run records about where it ran: the commit of the measured code, the NVIDIA driver, and
 * the state of the autotune cache at the start. Asynchronous child processes with short timeouts;
 * never throws (an unknown is recorded as unknown).
 */
import { execFile } from 'node:child_process';
import { defaultAutotuneCachePath, readAutotuneCache } from '@baracuda/kernels';
import type { AutotuneCacheState } from './types.js';

/** The output of a command, trimmed, or null when it failed or took over `timeoutMs`. */
export function commandOutput(
  file: string,
  args: readonly string[],
  cwd: string,
  timeoutMs = 5_000,
): Promise<string | null> {
  return new Promise((resolve) => {
    try {
      execFile(file, [...args], { cwd, timeout: timeoutMs }, (error, stdout) => {
        resolve(error ? null : String(stdout).trim());
      });
    } catch {
      resolve(null);
    }
  });
}

/**
 * The commit measured: `explicit` (`--commit`), else `$BARACUDA_BENCH_COMMIT` (the device scripts
 * set it from `.carry/commit.txt`, written by pack.sh, since the device copy has no .git), else
 * `git rev-parse HEAD` with `-dirty` when tracked files differ, else `unknown`.
 */
export async function resolveCommit(
  explicit: string | undefined,
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  if (explicit) return explicit;
  const fromEnv = env.BARACUDA_BENCH_COMMIT?.trim();
  if (fromEnv && /^[0-9a-f]{7,40}(-dirty)?$/.test(fromEnv)) return fromEnv;
  const head = await commandOutput('git', ['rev-parse', 'HEAD'], cwd);
  if (!head || !/^[0-9a-f]{40}$/.test(head)) return 'unknown';
  const status = await commandOutput('git', ['status', '--porcelain', '--untracked-files=no'], cwd);
  return status ? `${head}-dirty` : head;
}

/** The NVIDIA driver version from nvidia-smi, or null. */
export async function driverVersion(cwd: string): Promise<string | null> {
  const out = await commandOutput(
    'nvidia-smi',
    ['--query-gpu=driver_version', '--format=csv,noheader'],
    cwd,
  );
  const first = out?.split('\n')[0]?.trim();
  return first ? first : null;
}

/** Whether autotune starts cold (no usable entries) or from a carried cache. */
export function autotuneCacheState(env: NodeJS.ProcessEnv = process.env): AutotuneCacheState {
  const path = defaultAutotuneCachePath(env);
  try {
    const entries = Object.keys(readAutotuneCache(path).entries).length;
    return { state: entries > 0 ? 'carried' : 'cold', path, entriesAtStart: entries };
  } catch {
    return { state: 'cold', path, entriesAtStart: 0 };
  }
}
