/**
 * A least-recently-used cache of buffers bounded by their total size. Skins are immutable by hash,
 * so entries never go stale; the bound only keeps memory flat however many skins and sizes are asked.
 */
export class BufferCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Buffer | undefined {
    const value = this.entries.get(key);
    if (value) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: Buffer): void {
    if (value.length > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.length;
    }
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }

  /** Returns the cached value, or makes, stores and returns it. */
  async getOrMake(key: string, make: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.get(key);
    if (hit) return hit;
    const value = await make();
    this.set(key, value);
    return value;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
