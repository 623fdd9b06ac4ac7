import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { transcriptCommand } from '../../src/cli/commands/transcript';
import { CliError, ExitCode } from '../../src/cli/exit-codes';
import { SubagentsClient } from '../../src/client/client';
import type { ToolUseBlock } from '../../src/shared/model/messages';
import { NoWorkerError, readAgentTranscript, readTreeTranscripts } from '../../src/transcript/export';
import type {
  TranscriptMessageRecord,
  TranscriptMetaRecord,
  TranscriptRecord,
} from '../../src/transcript/transcript-types';
import { createAgentTestEnv, type AgentTestEnv } from '../helpers/agent-env';
import { uniqueTaskQueue } from '../helpers/temporal';
import { exploreChildTurn } from '../helpers/unit-scripted-turns';

let env: AgentTestEnv;
let rootId: string;
let childId: string;
const outDir = mkdtempSync(path.join(os.tmpdir(), 'subagents-transcripts-'));

const scenario = {
  kind: 'scripted' as const,
  scenario: {
    agents: [
      {
        match: { agentName: 'transcript-root' },
        turns: [
          {
            toolUses: [
              { name: 'Glob', input: { pattern: '*.txt' } },
              { name: 'Read', input: { file_path: 'notes.txt' } },
            ],
          },
          exploreChildTurn('check the notes', 'Read notes.txt and report'),
          { text: 'ROOT-FINAL: {{last_tool_result}}' },
        ],
      },
      {
        match: { agentType: 'Explore' },
        turns: [
          { toolUses: [{ name: 'Read', input: { file_path: 'notes.txt' } }] },
          { text: 'CHILD-FINAL: the notes say hello' },
          { text: 'CHILD-RESUMED: answered {{last_user_text}}' },
        ],
      },
    ],
  },
};

/** Runs `subagents transcript` against the test server, writing to a file; returns the file's text. */
async function runCommand(args: string[], file: string): Promise<string> {
  const previous = { address: process.env.TEMPORAL_ADDRESS, namespace: process.env.TEMPORAL_NAMESPACE };
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  process.env.TEMPORAL_NAMESPACE = 'default';
  try {
    const out = path.join(outDir, file);
    expect(await transcriptCommand([...args, '--out', out])).toBe(ExitCode.ok);
    return readFileSync(out, 'utf8');
  } finally {
    for (const [key, name] of [
      ['address', 'TEMPORAL_ADDRESS'],
      ['namespace', 'TEMPORAL_NAMESPACE'],
    ] as const) {
      if (previous[key] === undefined) delete process.env[name];
      else process.env[name] = previous[key];
    }
  }
}

function parseJsonl(text: string): TranscriptRecord[] {
  expect(text.endsWith('\n')).toBe(true);
  return text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as TranscriptRecord);
}

/** Splits records into per-agent groups, each starting with its meta record. */
function byAgent(records: TranscriptRecord[]): { meta: TranscriptMetaRecord; messages: TranscriptMessageRecord[] }[] {
  const groups: { meta: TranscriptMetaRecord; messages: TranscriptMessageRecord[] }[] = [];
  for (const record of records) {
    if (record.type === 'meta') groups.push({ meta: record, messages: [] });
    else if (record.type !== 'system') groups[groups.length - 1]!.messages.push(record);
  }
  return groups;
}

function expectWellFormed(group: { meta: TranscriptMetaRecord; messages: TranscriptMessageRecord[] }): void {
  expect(group.messages.length).toBeGreaterThan(0);
  let parentUuid: string | null = null;
  let previousTime = 0;
  const uuids = new Set<string>();
  for (const record of group.messages) {
    expect(record.agentId).toBe(group.meta.agentId);
    expect(record.parentUuid).toBe(parentUuid);
    expect(record.isSidechain).toBe(group.meta.depth > 0);
    expect(record.type).toBe(record.message.role);
    expect(record.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const time = Date.parse(record.timestamp);
    expect(time).toBeGreaterThanOrEqual(previousTime);
    previousTime = time;
    uuids.add(record.uuid);
    parentUuid = record.uuid;
  }
  expect(uuids.size).toBe(group.messages.length);
}

beforeAll(async () => {
  env = await createAgentTestEnv(scenario);
  await env.writeFiles({ 'notes.txt': 'hello from the notes\n' });
  const handle = await env.start({
    prompt: 'TRANSCRIPT-PROMPT: summarise the notes',
    name: 'transcript-root',
    permissionMode: 'bypassPermissions',
  });
  const result = await handle.result();
  expect(result.status).toBe('completed');
  rootId = handle.agentId;
  childId = `${rootId}.1`;
});
afterAll(async () => {
  await env?.close();
});

describe('transcript export on a real Temporal server', () => {
  it('exports one agent as JSONL: meta first, uuids chained, times from its history', async () => {
    const records = parseJsonl(await runCommand([rootId, '--jsonl'], 'root.jsonl'));
    const groups = byAgent(records);
    expect(records[0]!.type).toBe('meta');
    expect(groups).toHaveLength(1);
    expect(groups[0]!.meta).toEqual({
      type: 'meta',
      agentId: rootId,
      agentType: 'general-purpose',
      description: null,
      parentAgentId: null,
      parentToolUseId: null,
      depth: 0,
      model: 'claude-test-tiny',
      worktree: null,
      cwd: env.workspace,
      gitBranch: '',
    });
    expectWellFormed(groups[0]!);
    const messages = groups[0]!.messages;
    expect(messages.map((record) => record.type)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(JSON.stringify(messages[0]!.message)).toContain('TRANSCRIPT-PROMPT');

    // Times come from the history: the prompt at the workflow start, the rest before it closed,
    // tool results after the call that asked for them — those that came back with the call
    // (src/workflows/tools/pre-reads.ts) at its end — and the child's report when it arrived.
    const description = await env.temporal.client.workflow.getHandle(rootId).describe();
    expect(Date.parse(messages[0]!.timestamp)).toBe(description.startTime.getTime());
    expect(Date.parse(messages[5]!.timestamp)).toBeLessThanOrEqual(description.closeTime!.getTime());
    expect(Date.parse(messages[2]!.timestamp)).toBeGreaterThanOrEqual(Date.parse(messages[1]!.timestamp));
    expect(Date.parse(messages[4]!.timestamp)).toBeGreaterThan(Date.parse(messages[3]!.timestamp));
  });

  it('exports the tree with --tree: the child after the root, as a sidechain with its parent tool_use', async () => {
    const groups = byAgent(parseJsonl(await runCommand([rootId, '--tree', '--jsonl'], 'tree.jsonl')));
    expect(groups.map((group) => group.meta.agentId)).toEqual([rootId, childId]);
    for (const group of groups) expectWellFormed(group);
    const agentCall = groups[0]!.messages
      .flatMap((record) => (typeof record.message.content === 'string' ? [] : record.message.content))
      .find((block): block is ToolUseBlock => block.type === 'tool_use' && block.name === 'Agent')!;
    expect(groups[1]!.meta).toMatchObject({
      agentId: childId,
      agentType: 'Explore',
      description: 'check the notes',
      parentAgentId: rootId,
      parentToolUseId: agentCall.id,
      depth: 1,
      model: 'claude-haiku-4-5',
      worktree: null,
    });
    const child = groups[1]!.messages;
    expect(child.every((record) => record.isSidechain)).toBe(true);
    expect(JSON.stringify(child[0]!.message)).toContain('Read notes.txt and report');
    expect(JSON.stringify(child[child.length - 1]!.message)).toContain('CHILD-FINAL');
    // The child ran while the root waited on its Agent call: between that call and the root's next message.
    const agentCallTime = Date.parse(groups[0]!.messages[3]!.timestamp);
    expect(Date.parse(child[0]!.timestamp)).toBeGreaterThanOrEqual(agentCallTime);
    expect(Date.parse(child[child.length - 1]!.timestamp)).toBeLessThanOrEqual(
      Date.parse(groups[0]!.messages[4]!.timestamp),
    );
  });

  it('prints a readable view of the tree with tool calls and results', async () => {
    const text = await runCommand([rootId, '--tree'], 'tree.txt');
    expect(text).toContain(`═══ ${rootId} · general-purpose`);
    expect(text).toContain(`  ═══ ${childId} · Explore · "check the notes"`);
    expect(text).toContain(`child of ${rootId} (tool_use `);
    expect(text).toContain('→ Glob {"pattern":"*.txt"}');
    expect(text).toContain('→ Read {"file_path":"notes.txt"}');
    expect(text).toMatch(/← Read: .*hello from the notes/);
    expect(text).toMatch(/← Glob: .*notes\.txt/);
    expect(text).toContain('→ Agent {"description":"check the notes"');
    expect(text).toMatch(/← Agent: .*CHILD-FINAL/);
    expect(text.indexOf(`═══ ${childId}`)).toBeGreaterThan(text.indexOf('ROOT-FINAL'));
  });

  it('follows a resumed child to its latest run, dating the new prompt from that run', async () => {
    const outcome = await env.client.send(childId, 'RESUME-QUESTION: anything else?');
    expect(outcome.delivered).toBe('resumed');
    expect((await outcome.handle.result()).finalText).toContain('CHILD-RESUMED');
    const [root, child] = await readTreeTranscripts(env.temporal.client, rootId);
    expect(root!.meta.agentId).toBe(rootId);
    expect(child!.runIds).toHaveLength(2);
    const texts = child!.messages.map(({ message }) => JSON.stringify(message.content));
    expect(texts[texts.length - 2]).toContain('RESUME-QUESTION');
    expect(texts[texts.length - 1]).toContain('CHILD-RESUMED');
    const latestStart = (await env.temporal.client.workflow.getHandle(childId).describe()).startTime.getTime();
    expect(child!.messages[child!.messages.length - 2]!.timestampMs).toBeGreaterThanOrEqual(latestStart);
    expect(child!.messages[child!.messages.length - 3]!.timestampMs).toBeLessThan(latestStart);
  });

  it('says to start a worker (exit 3) when no worker polls the agent task queue', async () => {
    const orphanQueue = uniqueTaskQueue('no-worker');
    const orphan = await new SubagentsClient(env.temporal.client, orphanQueue).startAgent({
      prompt: 'nobody runs me',
      cwd: env.workspace,
      model: 'claude-test-tiny',
    });
    try {
      const error = await runCommand([orphan.agentId], 'orphan.txt').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(ExitCode.unavailable);
      expect((error as Error).message).toContain('Start a worker: subagents worker');
      expect((error as Error).message).toContain(orphanQueue);
    } finally {
      await env.temporal.client.workflow.getHandle(orphan.agentId).terminate('test cleanup');
    }
  });

  it('reports an unknown agent as not found (exit 4)', async () => {
    await expect(readAgentTranscript(env.temporal.client, 'agent-does-not-exist')).rejects.toThrow(
      WorkflowNotFoundError,
    );
    const error = await runCommand(['agent-does-not-exist'], 'missing.txt').catch((caught: unknown) => caught);
    expect((error as CliError).exitCode).toBe(ExitCode.notFound);
  });

  it('gives up with NoWorkerError when the worker that polled has stopped answering', async () => {
    const quiet = await createAgentTestEnv(scenario, { startWorker: false });
    try {
      const running = quiet.worker.run();
      const handle = await quiet.start({
        prompt: 'quick',
        name: 'nobody-matches',
        permissionMode: 'bypassPermissions',
      });
      await handle.result();
      quiet.worker.shutdown();
      await running;
      const startedAt = Date.now();
      await expect(
        readAgentTranscript(quiet.temporal.client, handle.agentId, { queryTimeoutMs: 2000 }),
      ).rejects.toThrow(NoWorkerError);
      expect(Date.now() - startedAt).toBeLessThan(10_000);
    } finally {
      await quiet.close();
    }
  });
});
