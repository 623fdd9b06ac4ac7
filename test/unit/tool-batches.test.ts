import { describe, expect, it } from 'vitest';
import type { ToolUseBlock } from '../../src/shared/model/messages';
import { inSlidingWindow, partitionToolCalls } from '../../src/workflows/tools/tool-batches';

const call = (id: string, name: string): ToolUseBlock => ({ type: 'tool_use', id, name, input: {} });
const readOnly = (name: string) => ['Read', 'Glob', 'Grep'].includes(name);

describe('partitionToolCalls', () => {
  it('groups consecutive read-only calls and isolates the others, keeping order', () => {
    const batches = partitionToolCalls(
      [
        call('1', 'Read'),
        call('2', 'Grep'),
        call('3', 'Edit'),
        call('4', 'Read'),
        call('5', 'Bash'),
        call('6', 'Bash'),
      ],
      readOnly,
    );
    expect(batches.map((batch) => [batch.concurrent, batch.calls.map((c) => c.id)])).toEqual([
      [true, ['1', '2']],
      [false, ['3']],
      [true, ['4']],
      [false, ['5']],
      [false, ['6']],
    ]);
  });

  it('caps a concurrent batch at the limit', () => {
    const calls = Array.from({ length: 23 }, (_, index) => call(String(index), 'Read'));
    expect(partitionToolCalls(calls, readOnly, 10).map((batch) => batch.calls.length)).toEqual([10, 10, 3]);
  });
});

describe('inSlidingWindow', () => {
  /** Items that end when the test says; the log says what started and ended, in order. */
  function controlled(count: number) {
    const log: string[] = [];
    const enders = new Map<number, () => void>();
    const run = (item: number) =>
      new Promise<void>((resolve) => {
        log.push(`start ${item}`);
        enders.set(item, () => {
          log.push(`end ${item}`);
          resolve();
        });
      });
    const end = async (item: number) => {
      enders.get(item)!();
      // Let the window's lanes react.
      for (let i = 0; i < 5; i++) await Promise.resolve();
    };
    return { items: Array.from({ length: count }, (_, index) => index + 1), log, run, end };
  }

  it('starts the next item as soon as any running one ends, never more than the width at once', async () => {
    const { items, log, run, end } = controlled(13);
    const all = inSlidingWindow(items, 10, run);
    expect(log).toEqual(items.slice(0, 10).map((item) => `start ${item}`));
    // Item 1 is slow: item 2 ending starts item 11 without waiting for it.
    await end(2);
    expect(log.slice(10)).toEqual(['end 2', 'start 11']);
    await end(5);
    await end(11);
    expect(log.slice(12)).toEqual(['end 5', 'start 12', 'end 11', 'start 13']);
    let done = false;
    void all.then(() => (done = true));
    for (const item of [3, 4, 6, 7, 8, 9, 10, 12, 13]) await end(item);
    expect(done).toBe(false);
    await end(1);
    await all;
    expect(log.filter((line) => line.startsWith('start'))).toHaveLength(13);
  });

  it('runs fewer items than the width all at once, and nothing for none', async () => {
    const { items, log, run, end } = controlled(3);
    const all = inSlidingWindow(items, 10, run);
    expect(log).toEqual(['start 1', 'start 2', 'start 3']);
    for (const item of items) await end(item);
    await all;
    await inSlidingWindow([], 10, run);
    expect(log).toHaveLength(6);
  });
});
