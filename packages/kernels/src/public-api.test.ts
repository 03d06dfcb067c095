/**
 * The package's public surface may only grow: the declarations of the emitted dist/index.d.ts
 * (comments aside) and the runtime export lists of dist/index.js and dist/index.cjs, compared with
 * src/__snapshots__/public-api.json. A removed or changed declaration or export fails; so does an
 * addition until the snapshot is updated deliberately (`BARACUDA_API_UPDATE=1`, which refuses to
 * record a removal or change unless `BARACUDA_API_BREAK=1` says it is meant). Needs the build
 * (`pnpm --filter @baracuda/kernels build`; `pnpm test` builds first), and says so when it is
 * missing or older than the sources.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const snapshotPath = join(here, '__snapshots__', 'public-api.json');

interface Surface {
  declarations: Record<string, string>;
  esm: string[];
  cjs: string[];
}

/** Each top-level statement of a .d.ts, printed without comments, keyed by its name. */
function declarations(text: string): Record<string, string> {
  const file = ts.createSourceFile('index.d.ts', text, ts.ScriptTarget.Latest, true);
  const printer = ts.createPrinter({ removeComments: true });
  const out: Record<string, string> = {};
  for (const statement of file.statements) {
    const named = statement as ts.Statement & { name?: ts.Node };
    let key: string;
    if (named.name !== undefined) key = named.name.getText(file);
    else if (ts.isVariableStatement(statement)) {
      key = statement.declarationList.declarations.map((d) => d.name.getText(file)).join(',');
    } else if (ts.isImportDeclaration(statement))
      key = `import ${statement.moduleSpecifier.getText(file)}`;
    else if (ts.isExportDeclaration(statement)) key = 'export';
    else key = `statement ${statement.kind}`;
    let printed = printer.printNode(ts.EmitHint.Unspecified, statement, file);
    // The export list and the imports are sets: their order is the bundler's.
    if (ts.isExportDeclaration(statement) || ts.isImportDeclaration(statement)) {
      printed = (printed.match(/[A-Za-z_$][\w$]*( as [\w$]+)?/g) ?? []).sort().join(' ');
    }
    out[key] = out[key] === undefined ? printed : `${out[key]}\n${printed}`;
  }
  return out;
}

/** The newest modification time of the package's hand-written sources (tests aside). */
function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.ts$/.test(entry.name) && !/\.test(-helpers)?\.ts$/.test(entry.name)) {
        newest = Math.max(newest, statSync(path).mtimeMs);
      }
    }
  };
  walk(here);
  return newest;
}

async function current(): Promise<Surface> {
  const dts = join(dist, 'index.d.ts');
  if (!existsSync(dts)) {
    throw new Error(
      `${dts} is missing: build the package first (pnpm --filter @baracuda/kernels build)`,
    );
  }
  if (statSync(dts).mtimeMs < newestSource()) {
    throw new Error(`${dts} is older than src/: build the package again before this test`);
  }
  const esm = Object.keys(await import(pathToFileURL(join(dist, 'index.js')).href)).sort();
  const cjs = Object.keys(createRequire(import.meta.url)(join(dist, 'index.cjs'))).sort();
  return { declarations: declarations(readFileSync(dts, 'utf8')), esm, cjs };
}

/** What `now` lost or changed against `before` (additions are not listed). */
function shrinkage(before: Surface, now: Surface): string[] {
  const out: string[] = [];
  for (const [name, text] of Object.entries(before.declarations)) {
    if (!(name in now.declarations)) out.push(`removed declaration ${name}`);
    else if (name !== 'export' && !name.startsWith('import ') && now.declarations[name] !== text) {
      out.push(
        `changed declaration ${name}:\n--- was\n${text}\n--- now\n${now.declarations[name]}`,
      );
    }
  }
  const words = (s: string | undefined) => new Set((s ?? '').split(' '));
  for (const key of Object.keys(before.declarations).filter(
    (k) => k === 'export' || k.startsWith('import '),
  )) {
    const now_ = words(now.declarations[key]);
    for (const w of words(before.declarations[key])) if (!now_.has(w)) out.push(`${key} lost ${w}`);
  }
  for (const kind of ['esm', 'cjs'] as const) {
    for (const name of before[kind]) {
      if (!now[kind].includes(name)) out.push(`removed ${kind} export ${name}`);
    }
  }
  return out;
}

describe('the public surface of @baracuda/kernels (dist/index.d.ts and the runtime exports)', () => {
  it('may only grow, and grows only with the snapshot', async () => {
    const now = await current();
    const recorded: Surface | undefined = existsSync(snapshotPath)
      ? JSON.parse(readFileSync(snapshotPath, 'utf8'))
      : undefined;
    const lost = recorded === undefined ? [] : shrinkage(recorded, now);
    if (process.env.BARACUDA_API_UPDATE === '1') {
      if (lost.length > 0 && process.env.BARACUDA_API_BREAK !== '1') {
        throw new Error(`Refusing to record a smaller public surface:\n${lost.join('\n')}`);
      }
      writeFileSync(snapshotPath, `${JSON.stringify(now, null, 2)}\n`);
      return;
    }
    expect(
      recorded,
      `no snapshot at ${snapshotPath}: run with BARACUDA_API_UPDATE=1`,
    ).toBeDefined();
    expect(lost).toEqual([]);
    // Additions are deliberate: the snapshot records them.
    expect(now).toEqual(recorded);
  });

  it('tells a removed, a changed and an added declaration apart', () => {
    const before: Surface = {
      declarations: declarations(
        'declare const A = 1;\ninterface B { x: number }\nexport { A, B };',
      ),
      esm: ['A'],
      cjs: ['A'],
    };
    const changed: Surface = {
      declarations: declarations('interface B { x: string }\ninterface C {}\nexport { B, C };'),
      esm: ['C'],
      cjs: ['A'],
    };
    expect(shrinkage(before, changed)).toEqual([
      'removed declaration A',
      'changed declaration B:\n--- was\ninterface B {\n    x: number;\n}\n--- now\ninterface B {\n    x: string;\n}',
      'export lost A',
      'removed esm export A',
    ]);
    expect(shrinkage(before, before)).toEqual([]);
  });
});
