/**
 * Every public export, and every static and prototype member of an exported class, must have a
 * corpus entry: a target whose id names it, or (for exports with nothing to call) a data entry.
 * Enumerated from the packages as loaded, so an export added later fails the run until the
 * corpus sweeps it.
 */
import type { PackageCorpus } from './model.js';
import { memberLabel } from './targets/build.js';

function isClass(value: unknown): value is Function {
  return typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value));
}

/** The ids an export needs: `pkg/name` for a function; `pkg/Name()`, `.static` and `#member` for a class. */
export function requiredIds(pkg: string, name: string, value: unknown): string[] {
  if (!isClass(value)) return [`${pkg}/${name}`];
  const ids = [`${pkg}/${name}()`];
  for (const key of Reflect.ownKeys(value)) {
    if (key === 'length' || key === 'name' || key === 'prototype') continue;
    ids.push(`${pkg}/${name}.${memberLabel(key)}`);
  }
  for (const key of Reflect.ownKeys(value.prototype)) {
    if (key === 'constructor') continue;
    ids.push(`${pkg}/${name}#${memberLabel(key)}`);
  }
  return ids;
}

/** The module of each package, as its users import it. */
async function load(pkg: string): Promise<Record<string, unknown>> {
  if (pkg === 'driver') return import('@baracuda/driver');
  if (pkg === 'cudnn-sys') return import('@baracuda/cudnn-sys');
  if (pkg === 'nccl-sys') return import('@baracuda/nccl-sys');
  if (pkg === 'cublaslt-sys') return import('@baracuda/cublaslt-sys');
  if (pkg === 'collectives') return import('@baracuda/collectives');
  return import('@baracuda/kernels');
}

/** Exports and members with no corpus entry, as `pkg/name` strings (empty when all are covered). */
export async function uncovered(corpora: readonly PackageCorpus[]): Promise<string[]> {
  const missing: string[] = [];
  for (const corpus of corpora) {
    const module = await load(corpus.pkg);
    // A target id covers its export or member; `~variant` suffixes name extra targets.
    const have = new Set(corpus.targets.map((t) => t.id.replace(/~[^/]*$/, '')));
    for (const [name, value] of Object.entries(module)) {
      if (typeof value !== 'function') {
        const listed = corpus.data.some((d) => (typeof d === 'string' ? d === name : d.test(name)));
        if (!listed) missing.push(`${corpus.pkg}/${name} (data: list it in the corpus's data)`);
        continue;
      }
      for (const id of requiredIds(corpus.pkg, name, value)) {
        if (!have.has(id)) missing.push(id);
      }
    }
    for (const target of corpus.targets) {
      if (!(target.exportName in module)) missing.push(`${target.id} (no such export any more)`);
    }
  }
  return missing;
}
