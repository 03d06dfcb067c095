import { describe, expect, it } from 'vitest';
import { PointerLru } from './lru.js';

describe('PointerLru (variant packs)', () => {
  it('finds by all four pointers, evicts the least recent and reports evictions', () => {
    const evicted: string[] = [];
    const lru = new PointerLru<string>(2, (v) => evicted.push(v));
    lru.set(1n, 2n, 3n, 0n, 'a');
    lru.set(4n, 5n, 6n, 0n, 'b');
    expect(lru.get(1n, 2n, 3n, 0n)).toBe('a'); // a is now most recent
    expect(lru.get(1n, 2n, 3n, 16n)).toBeUndefined(); // workspace pointer differs
    lru.set(7n, 8n, 9n, 0n, 'c'); // evicts b
    expect(evicted).toEqual(['b']);
    expect(lru.get(4n, 5n, 6n, 0n)).toBeUndefined();
    expect(lru.get(7n, 8n, 9n, 0n)).toBe('c');
    expect(lru.size).toBe(2);
    lru.set(7n, 8n, 9n, 0n, 'c2'); // replacing hands the old value over
    expect(evicted).toEqual(['b', 'c']);
    lru.clear();
    expect(evicted.sort()).toEqual(['a', 'b', 'c', 'c2']);
    expect(lru.size).toBe(0);
  });
  it('rejects a bad capacity', () => {
    expect(() => new PointerLru(0)).toThrow('Expected a positive integer capacity but received 0');
  });
});
