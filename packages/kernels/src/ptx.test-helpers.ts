/** Reading our generated PTX in tests. */

/**
 * The parameter types (`.u64`, `.u32`, `.f32`, …) of kernel `name` as `ptx` declares it, in
 * order; null when the PTX has no such entry.
 */
export function ptxEntryParams(ptx: string, name: string): string[] | null {
  const entry = new RegExp(`\\.entry ${name}\\(([^)]*)\\)`).exec(ptx);
  if (entry === null) return null;
  return entry[1]!.split(',').map((p) => p.trim().split(/\s+/)[1]!);
}
