import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type Gc, memoryAtRest } from '../../src/edge/memory-at-rest.ts';

const MB = 1024 * 1024;

/** A server's clock and heap, moved by the test; the collector records its calls and shrinks the heap. */
function machine(heapMb: number) {
  const state = { ms: 0, heap: heapMb * MB, collections: 0 };
  const gc: Gc = (options) => {
    expect(options).toEqual({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    state.collections++;
    state.heap = 40 * MB;
  };
  const rest = memoryAtRest({ gc, heapBytes: () => state.heap, now: () => state.ms, everyMs: 0 });
  return { state, rest };
}

describe('giving memory back once the server rests', () => {
  it('collects once after start-up, when no request has come for 5 s, and not again until the heap grows', () => {
    const { state, rest } = machine(110);
    state.ms = 4_999;
    expect(rest.check()).toBe(false);
    state.ms = 5_000;
    expect(rest.check()).toBe(true);
    expect(state.heap).toBe(40 * MB);
    state.ms = 60_000;
    expect(rest.check()).toBe(false);
    state.heap = 47 * MB;
    expect(rest.check()).toBe(false);
    state.heap = 49 * MB;
    expect(rest.check()).toBe(true);
    expect(state.collections).toBe(2);
  });

  it('never collects while requests come, however large the heap', () => {
    const { state, rest } = machine(300);
    for (let ms = 0; ms < 60_000; ms += 1_000) {
      state.ms = ms;
      rest.seen();
      expect(rest.check()).toBe(false);
    }
    state.ms += 5_000;
    expect(rest.check()).toBe(true);
  });

  it('does nothing where the server was started without --expose-gc', () => {
    const rest = memoryAtRest({ gc: undefined, heapBytes: () => 500 * MB, now: () => 1e9 });
    expect(rest.check()).toBe(false);
    rest.stop();
  });

  it("gives a real heap's empty space back (V8's last-resort collection, as the server's flag allows)", () => {
    // A process of its own, as the server runs: grow the heap with garbage, then collect as memoryAtRest does.
    const script = `
      const { getHeapStatistics } = require('node:v8');
      let keep = [];
      for (let i = 0; i < 40; i++) keep.push(new Array(200_000).fill(i));
      keep = null;
      const before = getHeapStatistics().total_heap_size;
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      console.log(JSON.stringify({ before, after: getHeapStatistics().total_heap_size }));`;
    const run = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
    const { before, after } = JSON.parse(run.stdout) as { before: number; after: number };
    expect(before - after).toBeGreaterThan(20 * MB);
  });
});
