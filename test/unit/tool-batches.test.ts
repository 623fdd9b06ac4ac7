import { describe, expect, it } from 'vitest';
import type { ToolUseBlock } from '../../src/shared/messages';
import { partitionToolCalls } from '../../src/workflows/tool-batches';

const call = (id: string, name: string): ToolUseBlock => ({ type: 'tool_use', id, name, input: {} });
const readOnly = (name: string) => ['Read', 'Glob', 'Grep'].includes(name);

describe('partitionToolCalls', () => {
  it('groups consecutive read-only calls and isolates the others, keeping order', () => {
    const batches = partitionToolCalls([call('1', 'Read'), call('2', 'Grep'), call('3', 'Edit'), call('4', 'Read'), call('5', 'Bash'), call('6', 'Bash')], readOnly);
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
