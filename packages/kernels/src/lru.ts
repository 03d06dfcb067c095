/**
 * A tiny LRU keyed by up to four device pointers, for variant packs. Lookup is a linear scan
 * with `===` on bigints: no allocation when the pointers repeat (the hot path).
 * @internal
 */
export class PointerLru<V> {
  readonly capacity: number;
  readonly #keys: bigint[][] = [];
  readonly #values: V[] = [];
  readonly #onEvict: (value: V) => void;

  constructor(capacity: number, onEvict: (value: V) => void = () => {}) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`Expected a positive integer capacity but received ${capacity}`);
    }
    this.capacity = capacity;
    this.#onEvict = onEvict;
  }

  get size(): number {
    return this.#values.length;
  }

  /** Find the value stored for these pointers and mark it most recent. */
  get(a: bigint, b: bigint, c: bigint, d: bigint): V | undefined {
    const keys = this.#keys;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (k[0] === a && k[1] === b && k[2] === c && k[3] === d) {
        if (i !== 0) {
          // Move to front so the common case (one set of pointers) is found at index 0.
          const v = this.#values[i]!;
          keys.splice(i, 1);
          this.#values.splice(i, 1);
          keys.unshift(k);
          this.#values.unshift(v);
        }
        return this.#values[0];
      }
    }
    return undefined;
  }

  /** Store a value; evicts (and hands to onEvict) the least recent one when full. */
  set(a: bigint, b: bigint, c: bigint, d: bigint, value: V): void {
    if (this.get(a, b, c, d) !== undefined) {
      const old = this.#values[0]!;
      this.#values[0] = value;
      if (old !== value) this.#onEvict(old);
      return;
    }
    this.#keys.unshift([a, b, c, d]);
    this.#values.unshift(value);
    while (this.#values.length > this.capacity) {
      this.#keys.pop();
      this.#onEvict(this.#values.pop()!);
    }
  }

  /** Remove everything, handing each value to onEvict. */
  clear(): void {
    const values = this.#values.splice(0);
    this.#keys.length = 0;
    for (const v of values) this.#onEvict(v);
  }
}
