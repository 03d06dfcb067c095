/**
 * The text the GPU stack's probes and errors come back as, turned into lines `check` and
 * `doctor` print: solutions, versions, search attempts, algorithm names.
 */

/** @internal The "Possible solutions" lines of a LibraryNotFoundError's message, or []. */
export function solutionsOf(message: string | null | undefined): string[] {
  const at = message?.indexOf('\nPossible solutions:\n') ?? -1;
  if (!message || at < 0) return [];
  return message
    .slice(at + '\nPossible solutions:\n'.length)
    .split('\n')
    .filter((line) => line.startsWith('  - '))
    .map((line) => line.slice(4));
}

/** @internal Format a CUDA driver version number (12040 → "12.4"). */
export function formatDriverVersion(version: number | null | undefined): string {
  if (typeof version !== 'number' || !Number.isFinite(version)) return 'unknown';
  return `${Math.floor(version / 1000)}.${(version % 1000) / 10}`;
}

/** @internal One line per search attempt, whatever shape the probe reports it in. */
export function formatSearched(searched: unknown): string[] {
  if (!Array.isArray(searched)) return [];
  return searched.map((entry) => {
    if (typeof entry === 'string') return `    ${entry}`;
    if (entry && typeof entry === 'object') {
      const { path, error } = entry as { path?: unknown; error?: unknown };
      return `    ${String(path)}${error ? `: ${String(error)}` : ''}`;
    }
    return `    ${String(entry)}`;
  });
}

/** @internal A readable name for whatever `Conv3dPlan.algorithm(pass)` returns. */
export function describeAlgorithm(info: unknown): string {
  if (info === null || info === undefined) return '?';
  if (typeof info === 'string') return info;
  if (typeof info === 'object') {
    const record = info as Record<string, unknown>;
    const path = typeof record.path === 'string' ? `${record.path}: ` : '';
    for (const key of ['name', 'label', 'engine', 'algo']) {
      const value = record[key];
      if (typeof value === 'string' && value.length > 0) return `${path}${value}`;
    }
    return JSON.stringify(info, (_k, v) => (typeof v === 'bigint' ? `${v}` : v));
  }
  return String(info);
}

/** @internal The first line of a reason, or a placeholder. */
export function firstLine(text: string | null | undefined): string {
  return text ? (text.split('\n')[0] ?? text) : 'no reason given';
}

/** @internal An error's message, or the thrown value as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** cuDNN's own "Possible solutions": `load()` throws them when the probe found no cuDNN. */
export function cudnnSolutions(
  cudnn: Pick<typeof import('@baracuda/cudnn-sys'), 'load'>,
): string[] {
  try {
    cudnn.load();
    return [];
  } catch (error) {
    return solutionsOf(errorText(error));
  }
}
