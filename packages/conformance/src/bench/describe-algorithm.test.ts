import { describe, expect, it } from 'vitest';
import { describeAlgorithm } from './cuda-backend.js';

describe('describeAlgorithm', () => {
  it('names the path and engine, and the workspace when there is one', () => {
    expect(describeAlgorithm({ path: 'graph', name: 'engine 70', workspaceBytes: 0 })).toBe(
      'graph: engine 70',
    );
    expect(
      describeAlgorithm({ path: 'graph', name: 'engine 1', workspaceBytes: 1.5 * 2 ** 30 }),
    ).toBe('graph: engine 1, workspace 1536.0 MiB');
  });

  it('falls back to a name field, then to JSON', () => {
    expect(describeAlgorithm(undefined)).toBeUndefined();
    expect(describeAlgorithm('x')).toBe('x');
    expect(describeAlgorithm({ name: 'legacy 1' })).toBe('legacy 1');
    expect(describeAlgorithm({ a: 1n })).toBe('{"a":"1"}');
  });
});
