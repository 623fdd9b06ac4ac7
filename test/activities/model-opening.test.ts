import { MockActivityEnvironment } from '@temporalio/testing';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelActivities } from '../../src/activities/model';
import { RenderedStarts, runKey } from '../../src/activities/rendered-starts';
import { createAnthropicClient } from '../../src/config/config';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import { textHash } from '../../src/shared/model/conversation-hash';
import type { MessageParam } from '../../src/shared/model/messages';
import type { ModelCallInput } from '../../src/shared/model/model-call';
import { requestBodies } from '../helpers/agent-env';
import { firstTurnInput } from '../helpers/unit-model-call';

let modelServer: ModelServer;
beforeAll(async () => {
  modelServer = await startModelServer({ port: 0, behaviour: { kind: 'echo' } });
});
afterAll(async () => {
  await modelServer?.close();
});

const systemPrompt = 'You are the agent under test. '.repeat(40);
const opening: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'say something' }] }];
const run = { workflowId: 'agent-opening', runId: 'run-1' };

/** A Temporal client whose conversation query is counted: it serves what the workflow would (this system prompt, these messages). */
function countingClient(served: string) {
  const queries: number[] = [];
  const client = {
    workflow: {
      getHandle: () => ({
        query: async (_query: unknown, { from }: { from: number }) => {
          queries.push(from);
          return { systemPrompt: served, tools: ['Read'], messages: opening.slice(from), from, total: opening.length };
        },
      }),
    },
  } as unknown as Client;
  return { client, queries };
}

function firstCall(promptHash: string): ModelCallInput {
  return firstTurnInput(run, opening, {
    tail: { from: 0, messages: opening },
    opening: { tools: ['Read'], systemPromptHash: promptHash },
  });
}

describe("a run's first model call on the worker that rendered its start", () => {
  it('takes the system prompt it rendered and the messages the call carries, without querying the workflow', async () => {
    const renderedStarts = new RenderedStarts();
    const { client, queries } = countingClient('not this one');
    const { callModel } = createModelActivities({
      anthropic: createAnthropicClient({ anthropicBaseUrl: modelServer.url }),
      temporalClient: client,
      renderedStarts,
    });
    // renderAgentStart ran as a local activity of this run on this worker.
    await new MockActivityEnvironment({ isLocal: true, workflowExecution: run }).run(async () =>
      renderedStarts.rememberFromActivity(systemPrompt),
    );
    modelServer.clearRequests();
    await new MockActivityEnvironment().run(callModel, firstCall(textHash(systemPrompt)));
    expect(queries).toEqual([]);
    const [body] = requestBodies(modelServer);
    expect((body!.system as { text: string }[])[0]!.text).toBe(systemPrompt);
    expect(body!.tools?.map((tool) => tool.name)).toEqual(['Read']);
  });

  it('queries the workflow when the prompt it holds is not the one named, or it rendered none (an activity task, another worker)', async () => {
    for (const remember of [
      (starts: RenderedStarts) =>
        starts.remember(runKey(run.workflowId, run.runId), 'a prompt rendered by an earlier attempt'),
      (starts: RenderedStarts) =>
        new MockActivityEnvironment({ isLocal: false, workflowExecution: run }).run(async () =>
          starts.rememberFromActivity(systemPrompt),
        ),
    ]) {
      const renderedStarts = new RenderedStarts();
      await remember(renderedStarts);
      const { client, queries } = countingClient(systemPrompt);
      const { callModel } = createModelActivities({
        anthropic: createAnthropicClient({ anthropicBaseUrl: modelServer.url }),
        temporalClient: client,
        renderedStarts,
      });
      modelServer.clearRequests();
      await new MockActivityEnvironment().run(callModel, firstCall(textHash(systemPrompt)));
      expect(queries).toEqual([0]);
      expect((requestBodies(modelServer)[0]!.system as { text: string }[])[0]!.text).toBe(systemPrompt);
    }
  });
});
