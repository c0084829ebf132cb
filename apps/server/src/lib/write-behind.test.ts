import { describe, expect, it } from 'vitest';
import { WriteBehind } from './write-behind.ts';

describe('WriteBehind', () => {
  it('writes what gathered after the delay, or at once on flush, in order, a failed write not stopping the next', async () => {
    let gathered: number[] = [];
    const written: number[][] = [];
    let fail = true;
    const writer = new WriteBehind(
      () => (gathered.length ? gathered.splice(0) : undefined),
      async (batch: number[]) => {
        await new Promise((r) => setTimeout(r, 5));
        if (fail) {
          fail = false;
          throw new Error('the database is away');
        }
        written.push(batch);
      },
      20,
    );
    gathered.push(1);
    writer.soon();
    await new Promise((r) => setTimeout(r, 40));
    expect(written).toEqual([]);
    gathered = [2, 3];
    const first = writer.flush();
    gathered.push(4);
    const second = writer.flush();
    await Promise.all([first, second]);
    expect(written).toEqual([[2, 3], [4]]);
    await writer.flush();
    expect(written).toHaveLength(2);
  });

  it('writes synchronously when the writer is, so a direct write after a flush stays in order', async () => {
    const out: string[] = [];
    let line = '';
    const writer = new WriteBehind(
      () => (line ? line : undefined),
      (text: string) => {
        out.push(text);
        line = '';
      },
      50,
    );
    line = 'a';
    void writer.flush();
    out.push('b');
    expect(out).toEqual(['a', 'b']);
  });
});
