/** Our generated PTX and its launches, in tests. */
import { createHash } from 'node:crypto';

/**
 * The parameter types (`.u64`, `.u32`, `.f32`, …) of kernel `name` as `ptx` declares it, in
 * order; null when the PTX has no such entry.
 */
export function ptxEntryParams(ptx: string, name: string): string[] | null {
  const entry = new RegExp(`\\.entry ${name}\\(([^)]*)\\)`).exec(ptx);
  if (entry === null) return null;
  return entry[1]!.split(',').map((p) => p.trim().split(/\s+/)[1]!);
}

/** One kernel launch a {@link recordingLoader} module saw. */
export interface RecordedLaunch {
  name: string;
  grid: number[];
  block: number[];
  shared: number;
  params: Uint8Array;
}

/**
 * A module loader (as the per-device kernel caches take one) whose modules record each launch
 * instead of running it, with the images it was asked to load (PTX text, cubin bytes).
 */
export function recordingLoader() {
  const loads: (string | Uint8Array)[] = [];
  const launches: RecordedLaunch[] = [];
  const loader = (image: string | Uint8Array) => {
    loads.push(image);
    return {
      getFunction: (name: string) => ({
        launch: (
          _stream: unknown,
          grid: readonly number[],
          block: readonly number[],
          shared: number,
          params: Uint8Array,
        ) => {
          launches.push({
            name,
            grid: [...grid],
            block: [...block],
            shared,
            params: params.slice(),
          });
        },
      }),
    };
  };
  return { loader, loads, launches };
}

/**
 * Each image as a short id (its SHA-256), for comparing what a loader was asked to load: deep
 * equality of megabyte images is slow in vitest.
 */
export function imageIds(images: readonly (string | Uint8Array)[]): string[] {
  return images.map((image) => createHash('sha256').update(image).digest('hex'));
}
