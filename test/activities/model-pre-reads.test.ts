/**
 * The model activity's file reads (src/activities/pre-reads.ts) against the local model server over HTTP
 * with the real Anthropic SDK: each leading call starts while the answer still streams, and the answer
 * carries their outcomes.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelActivities } from '../../src/activities/model';
import type { PreRead } from '../../src/activities/pre-reads';
import { createAnthropicClient } from '../../src/config/config';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import type { MessageParam } from '../../src/shared/model/messages';
import type { ModelCallInput, ModelCallResult } from '../../src/shared/model/model-call';
import { scenario } from '../helpers/agent-env';
import { firstTurnInput } from '../helpers/unit-model-call';

let modelServer: ModelServer;
beforeAll(async () => {
  modelServer = await startModelServer({ port: 0, behaviour: { kind: 'echo' } });
});
afterAll(async () => {
  await modelServer?.close();
});

const opening: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'read two files' }] }];
const run = { workflowId: 'agent-pre-reads', runId: 'run-1' };

/** Serves the conversation query as the workflow would (the activity is called outside a workflow here). */
const conversationClient = {
  workflow: {
    getHandle: () => ({
      query: async (_query: unknown, { from }: { from: number }) => ({
        systemPrompt: 'You read files.',
        tools: ['Read'],
        messages: opening.slice(from),
        from,
        total: opening.length,
      }),
    }),
  },
} as unknown as Client;

const input = (preRead: ModelCallInput['preRead']): ModelCallInput =>
  firstTurnInput(run, opening, { agentName: 'streamer', ...(preRead ? { preRead } : {}) });

describe('file reads with the model call, over HTTP', () => {
  it('starts each leading Read as soon as its call is complete in the stream, and returns the outcomes with the answer', async () => {
    modelServer.setBehaviour(
      scenario([
        {
          match: { agentName: 'streamer' },
          turns: [
            {
              toolUses: [
                { name: 'Read', input: { file_path: 'a.txt' } },
                { name: 'Read', input: { file_path: 'b.txt' } },
              ],
              eventDelayMs: 60,
            },
          ],
        },
      ]),
    );
    const started: string[] = [];
    let startedWhenFirstSettled = -1;
    const preRead: PreRead = async (_tool, call) => {
      started.push(String(call.input.file_path));
      // A turn of the event loop later: had the reads started only once the answer ended, both would have started by now.
      if (started.length === 1) setImmediate(() => (startedWhenFirstSettled = started.length));
      return { content: `CONTENT OF ${String(call.input.file_path)}`, isError: false };
    };
    const { callModel } = createModelActivities({
      anthropic: createAnthropicClient({ anthropicBaseUrl: modelServer.url }),
      temporalClient: conversationClient,
      preRead,
    });
    const context = { agentId: run.workflowId, workspaceRoot: '/ws', cwd: '/ws' };
    const result = (await new MockActivityEnvironment({ workflowExecution: run }).run(
      callModel,
      input({ context, tools: ['Read', 'Glob', 'Grep'] }),
    )) as ModelCallResult;
    expect(started).toEqual(['a.txt', 'b.txt']);
    expect(startedWhenFirstSettled).toBe(1);
    const ids = result.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
    expect(Object.keys(result.preReads ?? {})).toEqual(ids);
    expect(result.preReads![ids[1]!]).toEqual({ result: { content: 'CONTENT OF b.txt', isError: false } });
  });

  it('runs nothing when the call does not ask (an agent whose Reads wait for their checks)', async () => {
    modelServer.setBehaviour(
      scenario([
        { match: { agentName: 'streamer' }, turns: [{ toolUses: [{ name: 'Read', input: { file_path: 'a.txt' } }] }] },
      ]),
    );
    const started: string[] = [];
    const preRead: PreRead = async (_tool, call) => {
      started.push(String(call.input.file_path));
      return { content: '', isError: false };
    };
    const { callModel } = createModelActivities({
      anthropic: createAnthropicClient({ anthropicBaseUrl: modelServer.url }),
      temporalClient: conversationClient,
      preRead,
    });
    const result = (await new MockActivityEnvironment({ workflowExecution: run }).run(
      callModel,
      input(undefined),
    )) as ModelCallResult;
    expect(started).toEqual([]);
    expect(result.preReads).toBeUndefined();
  });
});
