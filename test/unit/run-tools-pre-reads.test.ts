/** How a turn's tool runner takes the outcomes of file reads its model call already ran (src/workflows/tools/run-tools.ts, src/workflows/tools/pre-reads.ts). */
import { describe, expect, it } from 'vitest';
import type { ToolUseBlock } from '../../src/shared/model/messages';
import type { ToolOutcome } from '../../src/shared/tools/tool-results';
import type { ReadBatchOutcome, ReadFileRecord, ToolContext } from '../../src/shared/tools/tools';
import { runToolCalls, type ToolRunContext } from '../../src/workflows/tools/run-tools';

const toolContext: ToolContext = { agentId: 'agent-1', workspaceRoot: '/ws', cwd: '/ws' };
const read = (id: string, file_path: string): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name: 'Read',
  input: { file_path },
});
const record: ReadFileRecord = { path: '/ws/a.txt', mtimeMs: 1, size: 2, sha256: 'ab' };

function contextWith(outcomes: Record<string, ReadBatchOutcome>, overrides: Partial<ToolRunContext> = {}) {
  const seen = { started: [] as string[], readFiles: [] as ReadFileRecord[], authorized: [] as string[] };
  const context: ToolRunContext = {
    pool: ['Read', 'Glob', 'Grep'],
    readOnlyBash: false,
    toolContext,
    readFileState: {},
    workflowTools: {},
    authorize: (call) => {
      seen.authorized.push(call.id);
      return undefined;
    },
    authorizedNow: () => 'go',
    onStart: (call) => seen.started.push(call.id),
    onReadFiles: (records) => seen.readFiles.push(...records),
    onReplacement: () => undefined,
    preRead: (call) => outcomes[call.id],
    ...overrides,
  };
  return { context, seen };
}

describe('runToolCalls with pre-read outcomes', () => {
  it("settles each call at once with its outcome, its start and its read-file records; a read that threw is that call's error", async () => {
    const calls = [read('toolu_1', 'a.txt'), read('toolu_2', 'b.txt')];
    const { context, seen } = contextWith({
      toolu_1: { result: { content: 'A', isError: false, readFiles: [record] } },
      toolu_2: { failure: 'EIO: disk on fire' },
    });
    const outcomes: Record<string, ToolOutcome> = {};
    await runToolCalls(calls, context, outcomes);
    expect(outcomes).toEqual({
      toolu_1: { content: 'A', isError: false },
      toolu_2: { isError: true, content: 'Read failed: EIO: disk on fire' },
    });
    expect(seen.started).toEqual(['toolu_1', 'toolu_2']);
    expect(seen.readFiles).toEqual([record]);
    // Decided now: nothing asked the approvals.
    expect(seen.authorized).toEqual([]);
  });

  it('takes the same outcome through the checks that must be asked (a decision that is not "go" now), and refuses a tool outside the pool without it', async () => {
    const calls = [read('toolu_1', 'a.txt'), { ...read('toolu_2', 'b.txt'), name: 'Grep', input: { pattern: 'x' } }];
    const { context, seen } = contextWith(
      {
        toolu_1: { result: { content: 'A', isError: false, readFiles: [record] } },
        toolu_2: { result: { content: 'G', isError: false } },
      },
      { authorizedNow: () => 'later', pool: ['Read'] },
    );
    const outcomes: Record<string, ToolOutcome> = {};
    await runToolCalls(calls, context, outcomes);
    expect(outcomes.toolu_1).toEqual({ content: 'A', isError: false });
    expect(seen.authorized).toEqual(['toolu_1']);
    expect(seen.readFiles).toEqual([record]);
    expect(outcomes.toolu_2).toMatchObject({ isError: true, content: expect.stringContaining('ToolNotAllowed') });
    expect(seen.started).toEqual(['toolu_1']);
  });

  it('runs through the hooks when the agent has any: a PreToolUse hook still sees the call', async () => {
    const hooked: string[] = [];
    const { context } = contextWith(
      { toolu_1: { result: { content: 'A', isError: false } } },
      {
        beforeTool: async (call) => {
          hooked.push(call.id);
          return { type: 'go' };
        },
      },
    );
    const outcomes: Record<string, ToolOutcome> = {};
    await runToolCalls([read('toolu_1', 'a.txt')], context, outcomes);
    expect(hooked).toEqual(['toolu_1']);
    expect(outcomes.toolu_1).toEqual({ content: 'A', isError: false });
  });
});
