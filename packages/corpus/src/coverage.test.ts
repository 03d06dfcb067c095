import { describe, expect, it } from 'vitest';
import { requiredIds, uncovered } from './coverage.js';
import { CORPORA } from './targets/index.js';

describe('coverage', () => {
  it('needs the constructor, every static and every prototype member of a class', () => {
    class Sample {
      static make() {}
      get size() {
        return 1;
      }
      run() {}
      [Symbol.dispose]() {}
    }
    expect(requiredIds('driver', 'Sample', Sample)).toEqual([
      'driver/Sample()',
      'driver/Sample.make',
      'driver/Sample#size',
      'driver/Sample#run',
      'driver/Sample#[Symbol.dispose]',
    ]);
    expect(requiredIds('kernels', 'median', () => 0)).toEqual(['kernels/median']);
  });

  it('lists an export with no entry, and the three corpora cover every export', async () => {
    const bare = {
      ...CORPORA[0]!,
      targets: CORPORA[0]!.targets.filter((t) => t.exportName !== 'Event'),
    };
    const missing = await uncovered([bare]);
    expect(missing).toContain('driver/Event()');
    expect(missing).toContain('driver/Event.create');
    expect(missing).toContain('driver/Event#record');
    expect(await uncovered(CORPORA)).toEqual([]);
  });
});
