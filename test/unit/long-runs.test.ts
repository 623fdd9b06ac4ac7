import { describe, expect, it } from 'vitest';
import type { AgentStatusSnapshot } from '../../src/shared/agents/agent';
import { defaultAgentLimits } from '../../src/shared/protocol/limits';
import type { MessageParam } from '../../src/shared/model/messages';
import { describePeek, peekOf } from '../../src/shared/protocol/peek';
import { stitchRuns, type RunLog } from '../../src/transcript/stitch';
import { maxMessageSize, oversizedMessageRefusal } from '../../src/workflows/context/message-size';
import { resumeRefusal } from '../../src/workflows/tree/resume-in-tree';
import { parseTaskOutputInput, taskOutputText } from '../../src/workflows/tree/task-output';

const say = (role: 'user' | 'assistant', text: string): MessageParam => ({ role, content: [{ type: 'text', text }] });
const record = {
  trigger: 'auto' as const,
  preTokens: 10,
  postTokens: 5,
  summarisedMessages: 2,
  keptMessages: 1,
  turn: 3,
  atMs: 0,
};

describe('stitchRuns', () => {
  it('joins continue-as-new runs without repeating carried messages, with compactions in order', () => {
    const first: RunLog = {
      messages: [
        say('user', 'prompt'),
        say('assistant', 'a1'),
        say('user', 'r1'),
        say('assistant', 'a2'),
        say('user', 'SUMMARY'),
      ],
      carriedCount: 0,
      boundaries: [{ summaryIndex: 4, keptIndices: [3], lastIndexBefore: 3, record }],
      current: [4, 3],
    };
    const second: RunLog = {
      messages: [say('user', 'SUMMARY'), say('assistant', 'a2'), say('user', 'next'), say('assistant', 'a3')],
      carriedCount: 2,
      boundaries: [],
      current: [0, 1, 2, 3],
    };
    const joined = stitchRuns([first, second]);
    expect(joined.messages.map((message) => (message.content as { text: string }[])[0]!.text)).toEqual([
      'prompt',
      'a1',
      'r1',
      'a2',
      'SUMMARY',
      'next',
      'a3',
    ]);
    expect(joined.boundaries).toEqual([{ summaryIndex: 4, keptIndices: [3], lastIndexBefore: 3, record }]);
    expect(joined.inheritedCount).toBe(0);
  });

  it('takes a resume changing the last message and dropping an unanswered one', () => {
    const first: RunLog = {
      messages: [say('user', 'prompt'), say('assistant', 'answer'), say('user', 'more'), say('assistant', 'cut')],
      carriedCount: 0,
      boundaries: [],
      current: [0, 1, 2, 3],
    };
    const merged: MessageParam = {
      role: 'user',
      content: [
        { type: 'text', text: 'more' },
        { type: 'text', text: 'resume prompt' },
      ],
    };
    const second: RunLog = {
      messages: [say('user', 'prompt'), say('assistant', 'answer'), merged, say('assistant', 'resumed')],
      carriedCount: 3,
      boundaries: [],
      current: [0, 1, 2, 3],
    };
    const joined = stitchRuns([first, second]);
    expect(joined.messages).toEqual([
      say('user', 'prompt'),
      say('assistant', 'answer'),
      merged,
      say('assistant', 'resumed'),
    ]);
  });
});

describe('TaskOutput input', () => {
  it("takes Claude Code's fields with their defaults", () => {
    expect(parseTaskOutputInput({})).toEqual({ ok: true, value: { block: true, timeoutMs: 30_000 } });
    expect(parseTaskOutputInput({ task_id: ' a.1 ', block: 'false', timeout: '2500' })).toEqual({
      ok: true,
      value: { taskId: 'a.1', block: false, timeoutMs: 2500 },
    });
    expect(parseTaskOutputInput({ task_id: 'a', timeout: 10_000_000 })).toEqual({
      ok: true,
      value: { taskId: 'a', block: true, timeoutMs: 600_000 },
    });
  });

  it('refuses wrong types and unknown fields, naming each', () => {
    const refused = parseTaskOutputInput({ task_id: 5, block: 'maybe', timeout: -1, wait: true });
    expect(refused.ok).toBe(false);
    const error = (refused as { error: string }).error;
    for (const part of [
      'InvalidToolInput',
      'unknown field "wait"',
      '"task_id" must be a string',
      '"block" must be a boolean',
      '"timeout" must be a number',
    ])
      expect(error).toContain(part);
  });

  it("answers in Claude Code's shape", () => {
    expect(taskOutputText('timeout', 'a.1', 'running', 'state: x')).toBe(
      '<retrieval_status>timeout</retrieval_status>\n<task_id>a.1</task_id>\n<task_type>local_agent</task_type>\n<status>running</status>\n<output>\nstate: x\n</output>',
    );
  });
});

describe('peeks', () => {
  const status = {
    agentId: 'a.1',
    state: 'running_tools',
    currentTools: ['Bash'],
    lastTool: 'Bash',
    turn: 3,
    maxTurns: 50,
    toolUses: 4,
    treeUsage: { inputTokens: 1, outputTokens: 2, cacheCreationInputTokens: 3, cacheReadInputTokens: 4 },
    latestText: `${'o'.repeat(3000)}END`,
  } as unknown as AgentStatusSnapshot;

  it('are bounded and say what the child does', () => {
    const peek = peekOf(status);
    expect(peek.latestText!.length).toBe(2001);
    expect(peek.latestText!.endsWith('END')).toBe(true);
    expect(describePeek(peek)).toMatch(
      /^state: running Bash\nturn: 3\/50\nlast tool: Bash\ntokens: 10, tool uses: 4\nlatest text:\n…o+END$/,
    );
    expect(describePeek({ agentId: 'x', error: 'no worker' })).toBe('(its status could not be read: no worker)');
  });
});

describe('message size', () => {
  const input = { agentId: 'agent-1', model: 'claude-test-small', limits: defaultAgentLimits };

  it('refuses a message over a quarter of the window, saying what to do', () => {
    expect(maxMessageSize(input)).toEqual({ tokens: 6000, bytes: 300_000 });
    expect(oversizedMessageRefusal(input, 'x'.repeat(24_000))).toBeUndefined();
    const refusal = oversizedMessageRefusal(input, 'x'.repeat(24_001))!;
    expect(refusal).toMatch(/^MessageTooLarge: a message of 24001 characters/);
    expect(refusal).toContain('write it to a file in the workspace and send the path');
    // Bytes count too: a large window still caps what continue-as-new can carry.
    expect(oversizedMessageRefusal({ ...input, model: 'claude-opus-4-6' }, 'x'.repeat(300_001))).toContain(
      '300001 bytes',
    );
  });
});

describe('resume refusals', () => {
  it('refuse a running agent, and a stopped one unless asked explicitly', () => {
    expect(resumeRefusal({ status: 'running_tools' }, 'a.1', true)).toContain('still running');
    expect(resumeRefusal({ status: 'finished', stoppedBy: 'user' }, 'a.1', false)).toContain('--force');
    expect(resumeRefusal({ status: 'finished', stoppedBy: 'user' }, 'a.1', true)).toBeUndefined();
    expect(
      resumeRefusal(
        { status: 'finished', result: { status: 'cancelled', error: 'stopped by budget' } as never },
        'a.1',
        false,
      ),
    ).toContain('stopped by budget');
    expect(
      resumeRefusal({ status: 'finished', result: { status: 'completed' } as never }, 'a.1', false),
    ).toBeUndefined();
  });
});
