/** Our generated PTX and its launches, in tests. */

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
 * instead of running it, with the PTX images it was asked to load.
 */
export function recordingLoader() {
  const loads: string[] = [];
  const launches: RecordedLaunch[] = [];
  const loader = (ptx: string) => {
    loads.push(ptx);
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
