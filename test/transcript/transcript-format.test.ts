import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/shared/model/messages';
import { formatTranscripts } from '../../src/transcript/human-view';
import { toJsonl, transcriptRecords, transcriptSession } from '../../src/transcript/records';
import { messageTimestamps, type TimelineEvent } from '../../src/transcript/timeline';
import type { AgentTranscript } from '../../src/transcript/transcript-types';
import { transcriptUuid } from '../../src/transcript/uuid';

const user = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });
const toolCall = (id: string, name: string): MessageParam => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id, name, input: { pattern: '*.ts' } }],
});
const toolResult = (id: string, content: string, isError = false): MessageParam => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }],
});

const started = (timeMs: number): TimelineEvent => ({ kind: 'runStarted', timeMs });
const scheduled = (timeMs: number): TimelineEvent => ({ kind: 'modelScheduled', timeMs });
const completed = (timeMs: number, producedMessage = true): TimelineEvent => ({
  kind: 'modelCompleted',
  timeMs,
  producedMessage,
});
const inbound = (timeMs: number): TimelineEvent => ({ kind: 'inbound', timeMs });

describe('messageTimestamps', () => {
  it('dates the prompt at the start, replies at their model call, tool results at the last tool to finish', () => {
    const messages = [user('go'), toolCall('t1', 'Glob'), toolResult('t1', 'a.ts'), assistant('done')];
    const events = [
      started(100),
      inbound(110),
      scheduled(120),
      completed(200),
      inbound(250),
      inbound(300),
      scheduled(310),
      completed(400),
      inbound(450),
    ];
    expect(messageTimestamps(messages, 0, events)).toEqual([100, 200, 300, 400]);
  });

  it('skips model calls that produced no message and dates trailing tool results without a next call', () => {
    const messages = [user('go'), toolCall('t1', 'Bash'), toolResult('t1', 'ok')];
    const events = [
      started(100),
      scheduled(110),
      completed(150, false),
      scheduled(160),
      completed(200),
      inbound(260),
      inbound(270),
    ];
    expect(messageTimestamps(messages, 0, events)).toEqual([100, 200, 270]);
  });

  it('falls back to the model call when no event woke the workflow before the next call', () => {
    const messages = [user('go'), toolCall('t1', 'Nope'), toolResult('t1', 'ToolNotAllowed', true), assistant('ok')];
    const events = [started(100), scheduled(110), completed(200), scheduled(210), completed(300)];
    expect(messageTimestamps(messages, 0, events)).toEqual([100, 200, 200, 300]);
  });

  it('dates inherited messages (a fork) at the start and maps calls to the messages after them', () => {
    const messages = [
      user('parent prompt'),
      assistant('parent reply'),
      user('fork directive'),
      assistant('fork reply'),
    ];
    const events = [started(1000), scheduled(1010), completed(1100)];
    expect(messageTimestamps(messages, 2, events)).toEqual([1000, 1000, 1000, 1100]);
  });

  it('follows a resume across runs: the new prompt dates from the new run start', () => {
    const messages = [user('go'), assistant('first answer'), user('follow-up'), assistant('second answer')];
    const events = [started(100), scheduled(110), completed(200), started(5000), scheduled(5010), completed(5100)];
    expect(messageTimestamps(messages, 0, events)).toEqual([100, 200, 5000, 5100]);
  });

  it('never goes backwards, even when events are out of order', () => {
    const messages = [user('go'), assistant('a'), user('b'), assistant('c')];
    const events = [started(500), scheduled(510), completed(400), inbound(300), scheduled(520), completed(450)];
    const times = messageTimestamps(messages, 0, events);
    expect(times).toEqual([500, 500, 500, 500]);
  });

  it('keeps the previous time when more assistant messages exist than model calls', () => {
    expect(messageTimestamps([user('go'), assistant('a')], 0, [started(10)])).toEqual([10, 10]);
  });
});

const transcript = (overrides: Partial<AgentTranscript['meta']> = {}): AgentTranscript => ({
  meta: {
    type: 'meta',
    agentId: 'agent-1.1',
    agentType: 'Explore',
    description: 'find files',
    parentAgentId: 'agent-1',
    parentToolUseId: 'toolu_1',
    depth: 1,
    model: 'claude-haiku-4-5',
    worktree: null,
    cwd: '/work/project',
    gitBranch: 'main',
    ...overrides,
  },
  messages: [
    { message: user('look'), timestampMs: Date.UTC(2026, 0, 1, 0, 0, 0) },
    {
      message: toolCall('toolu_g', 'Glob'),
      timestampMs: Date.UTC(2026, 0, 1, 0, 0, 1),
      call: {
        id: 'msg_1',
        model: 'claude-haiku-4-5',
        stopReason: 'tool_use',
        requestId: 'req_1',
        usage: { inputTokens: 10, outputTokens: 5, cacheCreationInputTokens: 3, cacheReadInputTokens: 2 },
      },
    },
    { message: toolResult('toolu_g', `${'x'.repeat(500)}`), timestampMs: Date.UTC(2026, 0, 1, 0, 0, 2) },
    { message: assistant('found it'), timestampMs: Date.UTC(2026, 0, 1, 0, 0, 3) },
  ],
  runIds: ['run-1'],
  childIds: [],
  compactions: [],
});

describe('transcript records', () => {
  it('derives stable, distinct, RFC-shaped uuids from agentId and index', () => {
    expect(transcriptUuid('agent-1', 0)).toBe(transcriptUuid('agent-1', 0));
    expect(transcriptUuid('agent-1', 0)).not.toBe(transcriptUuid('agent-1', 1));
    expect(transcriptUuid('agent-1', 1)).not.toBe(transcriptUuid('agent-1.1', 1));
    expect(transcriptUuid('agent-1', 0)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('emits the meta record, then messages chained by parentUuid in the sidechain shape', () => {
    const session = transcriptSession('agent-1');
    const records = transcriptRecords(transcript(), session);
    expect(records[0]).toEqual(transcript().meta);
    const shared = {
      isSidechain: true,
      userType: 'external',
      cwd: '/work/project',
      sessionId: session.sessionId,
      version: session.version,
      gitBranch: 'main',
      agentId: 'agent-1.1',
    };
    expect(records[1]).toEqual({
      ...shared,
      type: 'user',
      uuid: transcriptUuid('agent-1.1', 0),
      parentUuid: null,
      timestamp: '2026-01-01T00:00:00.000Z',
      message: { role: 'user', content: [{ type: 'text', text: 'look' }] },
    });
    // An assistant record carries its model call as Claude Code does: message id, model, stop reason, usage, request id.
    expect(records[2]).toEqual({
      ...shared,
      type: 'assistant',
      uuid: transcriptUuid('agent-1.1', 1),
      parentUuid: transcriptUuid('agent-1.1', 0),
      timestamp: '2026-01-01T00:00:01.000Z',
      requestId: 'req_1',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-haiku-4-5',
        content: toolCall('toolu_g', 'Glob').content,
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 3, cache_read_input_tokens: 2 },
      },
    });
    expect(session.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(session.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(records.slice(2).map((record) => (record.type === 'meta' ? undefined : record.parentUuid))).toEqual(
      [0, 1, 2].map((index) => transcriptUuid('agent-1.1', index)),
    );
    const root = transcriptRecords(
      transcript({ agentId: 'agent-1', depth: 0, parentAgentId: null, parentToolUseId: null }),
      session,
    );
    expect(root.slice(1).every((record) => record.type !== 'meta' && !record.isSidechain)).toBe(true);
  });

  it('writes one JSON object per line', () => {
    const lines = toJsonl([transcript({ agentId: 'agent-1', depth: 0 }), transcript()])
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(10);
    const oneAgent = ['meta', 'user', 'assistant', 'user', 'assistant'];
    expect(lines.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual([...oneAgent, ...oneAgent]);
  });
});

describe('human view', () => {
  it('heads each agent and shows tool calls and results by tool name, long results abbreviated', () => {
    const text = formatTranscripts([
      transcript({ agentId: 'agent-1', depth: 0, parentAgentId: null, parentToolUseId: null, description: null }),
      transcript(),
    ]);
    expect(text).toContain('═══ agent-1 · Explore\n    root · depth 0 · claude-haiku-4-5 · 4 messages');
    expect(text).toContain(
      '  ═══ agent-1.1 · Explore · "find files"\n      child of agent-1 (tool_use toolu_1) · depth 1',
    );
    expect(text).toContain('── assistant · 2026-01-01T00:00:01.000Z\n→ Glob {"pattern":"*.ts"}  [toolu_g]');
    expect(text).toContain(`← Glob: ${'x'.repeat(400)}… (500 chars)`);
    expect(text).toContain('── assistant · 2026-01-01T00:00:03.000Z\nfound it');
  });
});
