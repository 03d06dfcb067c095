/**
 * device.ts, stream.ts and event.ts import each other one way only (event -> stream -> device):
 * kinds.ts carries what one needs of another (the Event check, the stream factory). Type-only
 * imports are erased and do not count.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const ORDER = ['device', 'stream', 'event'];

/** The value imports among the three, as `from -> to`. */
function valueImports(read: (name: string) => string): string[] {
  const out: string[] = [];
  for (const from of ORDER) {
    for (const m of read(from).matchAll(/^import (?!type )([^;]*?) from '\.\/(\w+)\.js';/gms)) {
      const to = m[2]!;
      const names = m[1]!.replace(/[{}\s]/g, '').split(',');
      if (ORDER.includes(to) && names.some((n) => n !== '' && !n.startsWith('type'))) {
        out.push(`${from} -> ${to}`);
      }
    }
  }
  return out;
}

describe('the driver imports device, stream and event one way', () => {
  it('event -> stream -> device, never back', () => {
    const imports = valueImports((n) => readFileSync(join(here, `${n}.ts`), 'utf8'));
    const back = imports.filter((i) => {
      const [from, to] = i.split(' -> ') as [string, string];
      return ORDER.indexOf(to) > ORDER.indexOf(from);
    });
    expect(back).toEqual([]);
    expect(imports).toContain('event -> stream');
  });
  it('sees a value import back (and not a type-only one)', () => {
    const text: Record<string, string> = {
      device: "import { Stream } from './stream.js';\nimport type { Event } from './event.js';",
      stream: "import { type Event } from './event.js';",
      event: '',
    };
    expect(valueImports((n) => text[n]!)).toEqual(['device -> stream']);
  });
});
