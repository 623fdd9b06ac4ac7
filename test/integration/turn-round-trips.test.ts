import { describe, expect, it } from 'vitest';
import { conversationLimits } from '../../src/shared/protocol/limits';
import type { ModelCallInput } from '../../src/shared/model/model-call';
import { requestBodies, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { patchIdsOf, recordHistory, taskSteps } from '../helpers/histories';
import { agentNamed } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

/** The activity types an agent scheduled, the local activities it ran, and each model call's input. */
async function turnSteps(workflowId: string) {
  const { scheduled, localActivities } = await taskSteps(env.temporal.client, workflowId);
  const modelInputs = scheduled.filter((step) => step.name === 'callModel').map((step) => step.input as ModelCallInput);
  return { scheduled: scheduled.map((step) => step.name), localActivities, modelInputs };
}

/** The patch ids a run's history marks. */
async function patchesOf(workflowId: string): Promise<string[]> {
  return patchIdsOf((await env.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []);
}

describe('round trips of a turn', () => {
  it('reads files without a task of their own and sends small new messages with the model call (the first with its opening); a large one is read by query', async () => {
    const line = 'x'.repeat(99);
    const large = Array.from({ length: Math.ceil((conversationLimits.maxInlineTailBytes * 2) / 100) }, () => line).join(
      '\n',
    );
    await env.writeFiles({ 'alpha.txt': 'ALPHA-CONTENT\n', 'beta.txt': 'BETA-CONTENT\n', 'large.txt': `${large}\n` });
    env.modelServer.clearRequests();
    env.script(
      agentNamed('round-trips', [
        {
          toolUses: [
            { name: 'Read', input: { file_path: 'alpha.txt' } },
            { name: 'Read', input: { file_path: 'beta.txt' } },
          ],
        },
        { toolUses: [{ name: 'Read', input: { file_path: 'large.txt' } }] },
        { toolUses: [{ name: 'Glob', input: { pattern: '*.txt' } }] },
        { text: 'READ ALL' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'read the files', name: 'round-trips' });

    const steps = await turnSteps(handle.agentId);
    // No task of its own for a Read or a Glob: each turn's file reads came back with its model call
    // (src/workflows/tools/pre-reads.ts; test/integration/pre-reads.test.ts has the turns whose Reads run as local activities).
    expect(steps.scheduled).not.toContain('Read');
    expect(steps.scheduled).not.toContain('readBatch');
    expect(steps.scheduled).not.toContain('Glob');
    expect(steps.localActivities.filter((name) => name === 'Read' || name === 'readBatch')).toEqual([]);
    // A run started today asks for no patch (src/workflows/runtime/patches.ts): no marker among its commands.
    expect(await patchesOf(handle.agentId)).toEqual([]);

    // The first call carries the opening messages and names the system prompt its worker rendered; later
    // ones carry what was added since, unless it is large.
    const [first, second, third, fourth] = steps.modelInputs;
    expect(steps.modelInputs).toHaveLength(4);
    expect(first!.tail).toMatchObject({ from: 0 });
    expect(first!.tail!.messages).toHaveLength(first!.messageCount);
    expect(first!.opening).toEqual({
      tools: expect.arrayContaining(['Read', 'Glob']),
      systemPromptHash: expect.any(String),
    });
    expect(second!.tail).toMatchObject({ from: first!.messageCount });
    expect(second!.tail!.messages).toHaveLength(second!.messageCount - first!.messageCount);
    expect(third!.tail).toBeUndefined();
    expect(fourth!.tail).toMatchObject({ from: third!.messageCount });
    expect(fourth!.tail!.messages).toHaveLength(fourth!.messageCount - third!.messageCount);

    // The model saw every result either way, in the same conversation.
    const bodies = requestBodies(env.modelServer);
    expect(bodies).toHaveLength(4);
    // The system prompt sent without a query is the one the workflow holds.
    const held = await env.temporal.client.workflow
      .getHandle(handle.agentId)
      .query<{ systemPrompt: string }, [{ from: number }]>('conversation', { from: 0 });
    for (const body of bodies)
      expect((body.system as { text: string }[]).map((block) => block.text).join('')).toBe(held.systemPrompt);
    expect(JSON.stringify(bodies[1]!.messages)).toContain('ALPHA-CONTENT');
    expect(JSON.stringify(bodies[1]!.messages)).toContain('BETA-CONTENT');
    expect(JSON.stringify(bodies[2]!.messages).split(line).length - 1).toBeGreaterThan(
      conversationLimits.maxInlineTailBytes / 100,
    );
    expect(JSON.stringify(bodies[3]!.messages)).toContain('large.txt');
    // Each request extends the one before (cache breakpoints aside).
    const plain = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value, (key, inner: unknown) => (key === 'cache_control' ? undefined : inner)));
    for (let index = 1; index < bodies.length; index++) {
      expect(plain(bodies[index]!.messages.slice(0, bodies[index - 1]!.messages.length))).toEqual(
        plain(bodies[index - 1]!.messages),
      );
    }
    await recordHistory(env.temporal.client, handle.agentId, 'perf-batched-reads');
  });
});
