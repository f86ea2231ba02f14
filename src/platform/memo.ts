/**
 * A bounded memo for pure computations on the hot path (quote pricing, time-zone parsing): at most
 * `capacity` entries, the oldest inserted dropped first. Values must be immutable. Keys are strings,
 * or objects compared by identity (an entry then keeps its key alive until it is dropped).
 */
export class Memo<V, K = string> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K, compute: () => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const value = compute();
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
