/**
 * A bounded memo for pure computations on the hot path (quote pricing, time-zone parsing): at most
 * `capacity` entries, the oldest inserted dropped first. Values must be immutable.
 */
export class Memo<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string, compute: () => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const value = compute();
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, value);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
