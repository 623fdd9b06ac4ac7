// @slow
import { describe, expect, it } from 'vitest';
import { compactionInstruction } from '../../src/shared/model/compaction';
import { readAgentTranscript } from '../../src/transcript/export';
import { transcriptRecords, transcriptSession } from '../../src/transcript/records';
import type { TranscriptBoundaryRecord, TranscriptMessageRecord } from '../../src/transcript/transcript-types';
import { modelCallsOf, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { recordHistory } from '../helpers/histories';
import { agentNamed } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

type Block = { type: string; text?: string; id?: string; tool_use_id?: string; content?: unknown };
interface Body {
  messages: { role: string; content: string | Block[] }[];
}
const blocksOf = (message: Body['messages'][number]): Block[] =>
  typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
const withoutBreakpoints = (value: unknown): string =>
  JSON.stringify(value, (key, inner: unknown) => (key === 'cache_control' ? undefined : inner));

function requestsOf(agentId: string) {
  return modelCallsOf(env.modelServer, agentId).map((request) => ({
    status: request.status,
    compaction: request.headers['x-subagents-purpose'] === 'compaction',
    usage: request.usage,
    body: JSON.parse(request.rawBody) as Body,
  }));
}

describe('compaction', () => {
  it('summarises the older turns when the context fills up, keeps the recent ones verbatim, and records a boundary', async () => {
    // 6 KB of text per Read: about 1,700 tokens per turn against claude-test-small's 24,000-token window.
    await env.writeFiles({
      'big.txt': Array.from({ length: 100 }, (_, index) => `line ${index}: ${'x'.repeat(50)}`).join('\n'),
    });
    const turns = 24;
    env.script(
      agentNamed('compacting', [
        ...Array.from({ length: turns - 1 }, (_, index) => ({
          text: `TURN-${index}`,
          toolUses: [{ name: 'Read', input: { file_path: 'big.txt' } }],
        })),
        { text: 'FINAL-AFTER-COMPACTION' },
      ]),
    );
    const { handle, result } = await runCompleted(env, {
      prompt: 'COMPACTION-PROMPT',
      name: 'compacting',
      model: 'claude-test-small',
      tools: ['Read'],
      maxTurns: 40,
    });
    // The scripted turn index kept counting across compactions: the last turn is the final answer.
    expect(result.finalText).toBe('FINAL-AFTER-COMPACTION');
    expect(result.turns).toBe(turns);

    const requests = requestsOf(handle.agentId);
    expect(requests.every((request) => request.status === 200)).toBe(true);
    const compactions = requests.filter((request) => request.compaction);
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    for (const request of requests) {
      const usage = request.usage!;
      expect(
        usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens,
      ).toBeLessThanOrEqual(24_000);
    }

    // The compaction request is the conversation so far (the previous turn's request prefix, for the cache) plus the instruction.
    const firstIndex = requests.findIndex((request) => request.compaction);
    const compactionBody = requests[firstIndex]!.body;
    const lastMessage = compactionBody.messages[compactionBody.messages.length - 1]!;
    const lastBlocks = blocksOf(lastMessage);
    expect(lastBlocks[lastBlocks.length - 1]!.text).toBe(compactionInstruction());
    const summarisedPart = [
      ...compactionBody.messages.slice(0, -1),
      { role: lastMessage.role, content: lastBlocks.slice(0, -1) },
    ];

    // The next request starts from the summary (identity kept verbatim), then the recent turns unchanged, every tool_use answered.
    const after = requests[firstIndex + 1]!.body;
    const opening = blocksOf(after.messages[0]!);
    expect(opening[0]!.text).toMatch(/^<system-reminder>/);
    expect(opening[0]!.text).toContain(handle.agentId);
    const summaryText = opening[opening.length - 1]!.text!;
    expect(summaryText).toContain('This session is being continued from an earlier conversation that was compacted');
    expect(summaryText).toMatch(/Summarised turns: \d+/);
    expect(after.messages[1]!.role).toBe('assistant');
    const kept = after.messages.slice(1);
    // Summarised part + kept part = the whole conversation, and the request before the compaction is a prefix of it.
    const whole = [...summarisedPart, ...kept];
    const before = requests[firstIndex - 1]!.body;
    expect(before.messages.length).toBeLessThanOrEqual(whole.length);
    expect(withoutBreakpoints(whole.slice(0, before.messages.length)) === withoutBreakpoints(before.messages)).toBe(
      true,
    );
    expect(after.messages.length).toBeLessThan(whole.length);

    const status = await handle.status();
    expect(status.context?.compactions.count).toBe(compactions.length);
    expect(status.context?.compactions.last?.trigger).toBe('auto');
    expect(status.context?.window).toBe(24_000);

    // The transcript keeps every message once, with a compact_boundary before each summary.
    const transcript = await readAgentTranscript(env.temporal.client, handle.agentId);
    const records = transcriptRecords(transcript, transcriptSession(handle.agentId));
    const boundaries = records.filter((record): record is TranscriptBoundaryRecord => record.type === 'system');
    expect(boundaries).toHaveLength(compactions.length);
    const messages = records.filter(
      (record): record is TranscriptMessageRecord => record.type === 'user' || record.type === 'assistant',
    );
    expect(messages.filter((record) => record.type === 'assistant')).toHaveLength(turns);
    const firstBoundary = records.indexOf(boundaries[0]!);
    const summary = records[firstBoundary + 1] as TranscriptMessageRecord;
    expect(summary.isCompactSummary).toBe(true);
    expect(summary.parentUuid).toBe(boundaries[0]!.uuid);
    expect(boundaries[0]!.parentUuid).toBeNull();
    expect(boundaries[0]!.compactMetadata.trigger).toBe('auto');
    const earlier = new Set(records.slice(0, firstBoundary).map((record) => (record as TranscriptMessageRecord).uuid));
    expect(boundaries[0]!.compactMetadata.preservedMessages.uuids.length).toBeGreaterThan(0);
    for (const uuid of boundaries[0]!.compactMetadata.preservedMessages.uuids) expect(earlier.has(uuid)).toBe(true);
    expect(earlier.has(boundaries[0]!.logicalParentUuid!)).toBe(true);
    expect(JSON.stringify(records)).toContain('COMPACTION-PROMPT');
    await recordHistory(env.temporal.client, handle.agentId, 'long-runs-compaction');
  });

  it('forks a compacted parent from the compacted prefix', async () => {
    await env.writeFiles({
      'big.txt': Array.from({ length: 100 }, (_, index) => `line ${index}: ${'x'.repeat(50)}`).join('\n'),
    });
    const reads = 12;
    env.script(
      agentNamed('forking-compacted', [
        ...Array.from({ length: reads }, (_, index) => ({
          text: `READ-${index}`,
          toolUses: [{ name: 'Read', input: { file_path: 'big.txt' } }],
        })),
        {
          toolUses: [
            {
              name: 'Agent',
              input: { subagent_type: 'fork', description: 'fork after compaction', prompt: 'FORK-AFTER-COMPACTION' },
            },
          ],
        },
        { text: 'PARENT-WAITING' },
        // A fork runs in the background: its notification comes at the next turn boundary.
        { text: 'PARENT-DONE' },
      ]),
      // The fork's first request holds the parent's turns 0..reads (its Agent call included).
      { match: { userIncludes: 'FORK-AFTER-COMPACTION' }, turnOffset: reads + 1, turns: [{ text: 'FORK-DONE' }] },
    );
    const { handle, result } = await runCompleted(env, {
      prompt: 'FORK-COMPACT-PROMPT',
      name: 'forking-compacted',
      model: 'claude-test-small',
      tools: ['Read', 'Agent'],
      maxTurns: 40,
    });
    expect(result.finalText).toBe('PARENT-DONE');

    const parentRequests = requestsOf(handle.agentId);
    expect(parentRequests.some((request) => request.compaction)).toBe(true);
    const turnsOfParent = parentRequests.filter((request) => !request.compaction);
    const forkPoint = turnsOfParent[reads]!.body;
    // The request that made the fork call starts from the compaction summary.
    expect(
      blocksOf(forkPoint.messages[0]!)
        .map((block) => block.text ?? '')
        .join('\n'),
    ).toContain('This session is being continued from an earlier conversation that was compacted');
    const forkRequests = requestsOf(`${handle.agentId}.1`);
    expect(forkRequests).toHaveLength(1);
    const forkBody = forkRequests[0]!.body;
    // The fork's conversation is the parent's compacted one, byte for byte, then the parent's Agent call.
    expect(
      withoutBreakpoints(forkBody.messages.slice(0, forkPoint.messages.length)) ===
        withoutBreakpoints(forkPoint.messages),
    ).toBe(true);
    const call = forkBody.messages[forkPoint.messages.length]!;
    expect(call.role).toBe('assistant');
    expect(blocksOf(call).some((block) => block.type === 'tool_use')).toBe(true);
    expect(JSON.stringify(forkBody.messages)).not.toContain('READ-0"');
  });

  it('compacts an idle interactive agent at once when asked (subagents compact), and refuses a finished one', async () => {
    env.script(
      agentNamed('idle-compact', [{ text: 'FIRST-ANSWER' }, { text: 'SECOND-ANSWER after {{last_user_text}}' }]),
    );
    const handle = await env.start({
      prompt: 'IDLE-PROMPT',
      name: 'idle-compact',
      interactive: { idleTimeoutMs: 60_000 },
    });
    const waitUntil = async (predicate: (status: Awaited<ReturnType<typeof handle.status>>) => boolean) => {
      for (let attempt = 0; attempt < 300; attempt++) {
        const status = await handle.status().catch(() => undefined);
        if (status && predicate(status)) return status;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error('timed out');
    };
    await waitUntil((status) => status.waitingFor === 'the next message');
    const ack = await handle.compact({ instructions: 'KEEP-THIS-INSTRUCTION' });
    expect(ack.queued).toBe(true);
    const compacted = await waitUntil((status) => (status.context?.compactions.count ?? 0) === 1);
    expect(compacted.context!.compactions.last!.trigger).toBe('manual');
    const compactionRequest = requestsOf(handle.agentId).find((request) => request.compaction)!;
    expect(JSON.stringify(compactionRequest.body)).toContain('KEEP-THIS-INSTRUCTION');
    await env.client.send(handle.agentId, 'NEXT-QUESTION');
    await waitUntil((status) => status.latestText?.startsWith('SECOND-ANSWER') === true);
    await handle.close();
    const result = await handle.result();
    expect(result.finalText).toMatch(/^SECOND-ANSWER after <message from="user">\nNEXT-QUESTION/);
    await expect(handle.compact()).rejects.toThrow(/already finished/);
  });
});
