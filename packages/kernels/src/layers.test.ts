/**
 * The inner layers of the package import one way: plan.ts and plan/ -> select/ -> exec/ ->
 * cudnn/ -> core/ (docs/ARCHITECTURE.md). The flat modules beside them (sys.ts, policy.ts,
 * descriptor.ts, layout.ts, ...) are leaves: they import no layer. Only index.ts imports plan.ts.
 * transpose-plan.ts (ConvTranspose3dPlan) is a facade beside plan.ts, in the same layer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = dirname(fileURLToPath(import.meta.url));
const RANK: Record<string, number> = { core: 0, cudnn: 1, exec: 2, select: 3, plan: 4 };

/** The layer of a module (relative to src/), or 'leaf', or 'entry' (index.ts). */
function layer(file: string): string {
  if (file === 'index.ts') return 'entry';
  if (file === 'plan.ts' || file === 'transpose-plan.ts') return 'plan';
  const top = file.split('/')[0]!;
  return top in RANK && file.includes('/') ? top : 'leaf';
}

function sources(dir = src): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name.startsWith('__') ? [] : sources(path);
    return /\.ts$/.test(e.name) && !/\.test(-helpers)?\.ts$/.test(e.name)
      ? [relative(src, path)]
      : [];
  });
}

/** `from` may import `to`: the same layer or one below; a leaf only leaves. */
function allowed(from: string, to: string): boolean {
  const a = layer(from);
  const b = layer(to);
  if (a === 'entry') return true;
  if (b === 'entry') return false;
  if (a === 'leaf') return b === 'leaf';
  if (b === 'leaf') return true;
  return RANK[b]! <= RANK[a]!;
}

function violations(files: readonly string[], read: (file: string) => string): string[] {
  const out: string[] = [];
  for (const file of files) {
    for (const m of read(file).matchAll(/from '(\.[^']+)\.js'/g)) {
      const target = relative(src, resolve(src, dirname(file), `${m[1]}.ts`));
      if (!allowed(file, target))
        out.push(`${file} (${layer(file)}) imports ${target} (${layer(target)})`);
    }
  }
  return out;
}

describe('import direction inside @baracuda/kernels', () => {
  it('runs plan -> select -> exec -> cudnn -> core, leaves importing no layer', () => {
    const files = sources();
    expect(files).toContain('select/core.ts');
    expect(violations(files, (f) => readFileSync(join(src, f), 'utf8'))).toEqual([]);
  });
  it('catches an import against the direction', () => {
    const files = ['cudnn/a.ts', 'exec/b.ts', 'sys2.ts'];
    const text: Record<string, string> = {
      'cudnn/a.ts': "import { b } from '../exec/b.js';",
      'exec/b.ts': "import { a } from '../cudnn/a.js';",
      'sys2.ts': "import { p } from './plan.js';",
    };
    expect(violations(files, (f) => text[f]!)).toEqual([
      'cudnn/a.ts (cudnn) imports exec/b.ts (exec)',
      'sys2.ts (leaf) imports plan.ts (plan)',
    ]);
  });
});
