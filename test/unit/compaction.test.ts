import { describe, expect, it } from 'vitest';
import { clearedToolResultText, compactionRequestMessages } from '../../src/activities/compaction-request';
import { compactedConversationText, compactionInstruction, extractSummary } from '../../src/shared/model/compaction';
import {
  estimateConversationTokens,
  estimateMessageTokens,
  estimateTextTokens,
  utf8Length,
} from '../../src/shared/model/context-estimate';
import { agentToolDefinitions } from '../../src/shared/tools/agent-tool-definitions';
import { toolDefinitions } from '../../src/shared/tools/tool-definitions';
import type { AgentState } from '../../src/workflows/loop/agent-state';
import { estimateNextRequestTokens } from '../../src/workflows/context/context-meter';
import type { ContentBlock, MessageParam } from '../../src/shared/model/messages';
import { compactionReply } from '../../src/model-server/compaction';
import { buildContext } from '../../src/model-server/conversation';
import { blockTokens } from '../../src/model-server/tokens';
import { compactedOpening, droppedOpening, planCompaction } from '../../src/workflows/context/compaction-plan';
import { Conversation } from '../../src/workflows/context/conversation';
import { forkDirective } from '../../src/workflows/tree/fork';

const user = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
const toolTurn = (id: string, size: number): MessageParam[] => [
  {
    role: 'assistant',
    content: [
      { type: 'text', text: `turn ${id}` },
      { type: 'tool_use', id, name: 'Read', input: { file_path: 'a' } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'r'.repeat(size) }] },
];
const tokensOf = (messages: readonly MessageParam[]) => (from: number, to: number) =>
  estimateConversationTokens(messages.slice(from, to));

describe('token estimates', () => {
  it('count UTF-8 bytes like the encoder, surrogate pairs included', () => {
    for (const text of ['', 'ascii', 'é', '€', '日本語のテキスト', '😀 emoji', '\ud800 lone surrogate'])
      expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });

  it('count all-ASCII text and text with one character beyond ASCII anywhere alike', () => {
    const ascii = `{"type":"text","text":"${'code and prose\\n'.repeat(200)}"}`;
    for (const text of [
      ascii,
      `é${ascii}`,
      `${ascii}é`,
      `${ascii.slice(0, 500)}😀${ascii.slice(500)}`,
      '\u007f',
      '\u0080',
      '\uffff',
    ]) {
      expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });

  it("estimate a first request from the system prompt and the agent's known tools", () => {
    const state = {
      contextOverheadTokens: undefined,
      systemPrompt: 'You are a test agent.',
      conversation: { tokensOf: () => 7 },
    } as unknown as AgentState;
    const expected =
      estimateTextTokens(state.systemPrompt) +
      [toolDefinitions.Read, toolDefinitions.Bash, agentToolDefinitions.Agent].reduce(
        (sum, definition) => sum + estimateTextTokens(JSON.stringify(definition)),
        0,
      ) +
      7;
    // Names without a definition here (MCP, custom, or an Object.prototype key) count nothing.
    expect(
      estimateNextRequestTokens({ tools: ['Read', 'Bash', 'Agent', 'mcp__docs__search', 'toString'] }, state),
    ).toBe(expected);
    // After a call, the measured overhead replaces the estimate.
    expect(
      estimateNextRequestTokens({ tools: ['Read'] }, {
        ...state,
        contextOverheadTokens: 1234,
      } as unknown as AgentState),
    ).toBe(1234 + 7);
  });

  it('match the local model server block by block', () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'hello 日本' },
      { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'x' } },
      { type: 'tool_result', tool_use_id: 't1', content: 'contents', cache_control: { type: 'ephemeral' } },
    ];
    const expected = blocks.reduce((sum, block) => sum + blockTokens(block as unknown as Record<string, unknown>), 0);
    expect(estimateMessageTokens({ role: 'user', content: blocks })).toBe(expected);
  });
});

describe('planCompaction', () => {
  const messages: MessageParam[] = [
    user('<system-reminder>\nidentity\n</system-reminder>'),
    ...toolTurn('a', 4000),
    ...toolTurn('b', 4000),
    ...toolTurn('c', 400),
    ...toolTurn('d', 400),
  ];

  it('cuts at an assistant message, keeping the recent turns that fit', () => {
    const plan = planCompaction(messages, tokensOf(messages), 600)!;
    expect(plan.cut).toBe(5);
    expect(messages[plan.cut]!.role).toBe('assistant');
    expect(estimateConversationTokens(messages.slice(plan.cut))).toBeLessThanOrEqual(600);
    expect(estimateConversationTokens(messages.slice(plan.cut - 2))).toBeGreaterThan(600);
  });

  it('summarises everything when not even the last turn fits, or keeps just a final answer', () => {
    expect(planCompaction(messages, tokensOf(messages), 10)!.cut).toBe(messages.length);
    const answered = [...messages, { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'final' }] }];
    expect(planCompaction(answered, tokensOf(answered), 1)!.cut).toBe(answered.length - 1);
  });

  it('has nothing to summarise in a conversation of one message', () => {
    expect(planCompaction([user('hi')], tokensOf([user('hi')]), 100)).toBeUndefined();
  });

  it('pins the identity block and a fork directive word for word', () => {
    const fork: MessageParam[] = [
      messages[0]!,
      messages[1]!,
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'x' },
          { type: 'text', text: forkDirective('do it') },
        ],
      },
      ...toolTurn('z', 10),
    ];
    const plan = planCompaction(fork, tokensOf(fork), 100)!;
    expect(plan.pinned.map((block) => block.text)).toEqual([
      '<system-reminder>\nidentity\n</system-reminder>',
      forkDirective('do it'),
    ]);
    const opening = compactedOpening(plan, fork.length - plan.cut, 'SUMMARY');
    expect(opening.role).toBe('user');
    expect((opening.content as { text: string }[]).map((block) => block.text)).toEqual([
      ...plan.pinned.map((block) => block.text),
      compactedConversationText('SUMMARY', fork.length - plan.cut),
    ]);
    expect(JSON.stringify(droppedOpening(plan, 'ModelInvocationError.BadRequest: too long'))).toContain(
      'no summary could be made (ModelInvocationError.BadRequest: too long)',
    );
  });
});

describe('compaction texts', () => {
  it('takes the summary block and drops the analysis', () => {
    expect(extractSummary('<analysis>thinking</analysis>\n<summary>\n1. Intent\n\n\n\n2. More\n</summary>')).toBe(
      '1. Intent\n\n2. More',
    );
    expect(extractSummary('<analysis>only analysis</analysis>plain summary')).toBe('plain summary');
    expect(extractSummary('<summary>cut short')).toBe('cut short');
    expect(extractSummary('')).toBe('');
  });

  it('adds custom instructions and forbids tools', () => {
    const instruction = compactionInstruction('keep the test output');
    expect(instruction).toContain('<summary>');
    expect(instruction).toContain('Additional instructions:\nkeep the test output');
    expect(instruction.endsWith('Respond with text only: the <analysis> block, then the <summary> block.')).toBe(true);
  });
});

describe('compactionRequestMessages', () => {
  const options = { contextWindowTokens: 24_000, systemPrompt: 'system', tools: [] };

  it('appends the instruction to the last user message and leaves the prefix untouched when it fits', () => {
    const messages = [user('task'), ...toolTurn('a', 100)];
    const request = compactionRequestMessages(messages, options);
    expect(request.slice(0, -1)).toEqual(messages.slice(0, -1));
    const last = request[request.length - 1]!.content as ContentBlock[];
    expect(last[0]).toEqual((messages[2]!.content as ContentBlock[])[0]);
    expect(last[last.length - 1]).toEqual({ type: 'text', text: compactionInstruction() });
    expect(messages[2]!.content).toHaveLength(1);
  });

  it('adds a user message after a final answer', () => {
    const request = compactionRequestMessages(
      [user('task'), { role: 'assistant', content: [{ type: 'text', text: 'done' }] }],
      options,
    );
    expect(request[2]).toEqual({ role: 'user', content: [{ type: 'text', text: compactionInstruction() }] });
  });

  it('clears old large tool results, oldest first, until the request fits the window', () => {
    const messages = [
      user('task'),
      ...toolTurn('a', 40_000),
      ...toolTurn('b', 40_000),
      ...toolTurn('c', 40_000),
      ...toolTurn('d', 40_000),
    ];
    const request = compactionRequestMessages(messages, options);
    const results = request.flatMap((message) =>
      typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'tool_result'),
    );
    expect(results.map((block) => (block as { content: string }).content === clearedToolResultText)).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(estimateConversationTokens(request)).toBeLessThan(24_000 * 0.95);
  });

  it('cuts old long texts when clearing tool results is not enough', () => {
    const request = compactionRequestMessages(
      [user('p'.repeat(200_000)), { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }],
      options,
    );
    expect(estimateConversationTokens(request)).toBeLessThan(24_000 * 0.95);
    expect(JSON.stringify(request[0])).toContain('characters cut from this old message for the summary');
  });
});

describe('Conversation', () => {
  it('keeps hashes per prefix and the whole log across a compaction', () => {
    const conversation = new Conversation([user('carried')]);
    for (const message of toolTurn('a', 10)) conversation.append(message);
    for (const message of toolTurn('b', 10)) conversation.append(message);
    const hashAtThree = conversation.hashAt(3);
    const record = {
      trigger: 'auto' as const,
      preTokens: 100,
      postTokens: 50,
      summarisedMessages: 3,
      keptMessages: 2,
      turn: 2,
      atMs: 0,
    };
    conversation.compact(user('SUMMARY'), 3, record);
    expect(conversation.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(conversation.hashAt(3)).not.toBe(hashAtThree);
    conversation.append({ role: 'assistant', content: [{ type: 'text', text: 'after' }] });
    const transcript = conversation.transcript(0);
    expect(transcript.total).toBe(7);
    expect(transcript.carriedCount).toBe(1);
    expect(transcript.boundaries).toEqual([{ summaryIndex: 5, keptIndices: [3, 4], lastIndexBefore: 4, record }]);
    expect(transcript.current).toEqual([5, 3, 4, 6]);
    expect(conversation.transcript(6).messages).toHaveLength(1);
  });

  it('gives the messages since a model call while that prefix stands and they are small', () => {
    const conversation = new Conversation([user('carried')]);
    const count = conversation.messages.length;
    const hash = conversation.hash;
    for (const message of toolTurn('a', 10)) conversation.append(message);
    expect(conversation.tailSince(count, hash, 8192)).toEqual({ from: 1, messages: toolTurn('a', 10) });
    expect(conversation.tailSince(conversation.messages.length, conversation.hash, 0)).toEqual({
      from: 3,
      messages: [],
    });
    // Too large, a prefix that is not this conversation's, a count past its end.
    expect(conversation.tailSince(count, hash, 100)).toBeUndefined();
    expect(conversation.tailSince(count, conversation.hashAt(2), 8192)).toBeUndefined();
    expect(conversation.tailSince(9, hash, 8192)).toBeUndefined();
    // After a compaction the old prefix is gone.
    conversation.compact(user('SUMMARY'), 1, {
      trigger: 'auto',
      preTokens: 100,
      postTokens: 50,
      summarisedMessages: 1,
      keptMessages: 2,
      turn: 1,
      atMs: 0,
    });
    expect(conversation.tailSince(count, hash, 8192)).toBeUndefined();
  });
});

describe("the local model server's compaction summary", () => {
  const requestOf = (messages: MessageParam[]) =>
    buildContext({ model: 'claude-test-small', max_tokens: 100, system: [], messages } as never, {
      'x-subagents-purpose': 'compaction',
    });
  const summaryOf = (messages: MessageParam[]) =>
    (compactionReply(requestOf(messages)).reply.content[0] as { text: string }).text;

  it('counts the summarised turns and carries the first request through any number of compactions', () => {
    let opening = user('the original long task: PROMPT-MARKER');
    for (let round = 1; round <= 5; round++) {
      const summary = summaryOf([opening, ...toolTurn(`t${round}a`, 50), ...toolTurn(`t${round}b`, 50)]);
      expect(summary).toContain(`Summarised turns: ${2 * round}`);
      expect(summary).toContain('1. Primary Request and Intent: the original long task: PROMPT-MARKER');
      opening = user(compactedConversationText(extractSummary(summary), 2));
      // The turn index of the next request counts the summarised turns.
      expect(
        buildContext(
          {
            model: 'claude-test-small',
            max_tokens: 100,
            system: [],
            messages: [opening, ...toolTurn('k', 10)],
          } as never,
          {},
        ).turnIndex,
      ).toBe(2 * round + 1);
    }
  });
});
