/** Capturing the library's warnings in tests. */
import { vi } from 'vitest';

export interface CapturedWarning {
  message: string;
  /** `options.code`, e.g. `BARACUDA_AUTOTUNE_STALE`. */
  code: string | undefined;
  /** `options.type`, e.g. `BaracudaWarning`. */
  type: string | undefined;
}

/**
 * Replace `process.emitWarning` with a recorder and return what it records. Synchronous, unlike
 * `process.on('warning')`, which fires on a later tick. Call in `beforeEach`; undone by
 * `vi.restoreAllMocks()`.
 */
export function captureWarnings(): CapturedWarning[] {
  const warnings: CapturedWarning[] = [];
  vi.spyOn(process, 'emitWarning').mockImplementation(((
    message: string,
    options?: { code?: string; type?: string },
  ) => {
    warnings.push({ message, code: options?.code, type: options?.type });
  }) as typeof process.emitWarning);
  return warnings;
}
