import { describe, expect, it } from 'vitest';
import { rootAgentInput } from '../../src/client/root-input';
import type { AgentResult } from '../../src/shared/agents/agent';
import { structuredOutputInstruction, structuredOutputToolName } from '../../src/shared/tools/structured-output';
import { modelCallsOf, useAgentTestEnv } from '../helpers/agent-env';
import { agentWithId } from '../helpers/scripted-agents';
import type { Turn } from '../../src/model-server/server';

// StructuredOutput (docs/tools.md, "Structured output"): an agent started with `outputSchema`, on the real server.

const env = useAgentTestEnv();

const schema = {
  type: 'object',
  properties: {
    verdict: { type: 'string', enum: ['pass', 'fail'] },
    score: { type: 'integer', minimum: 0, maximum: 10 },
  },
  required: ['verdict', 'score'],
  additionalProperties: false,
};

const submit = (input: Record<string, unknown>) => ({ toolUses: [{ name: structuredOutputToolName, input }] });

/** Starts a root agent with this schema (agents of scripts get it the same way), scripted by its id, and waits for its result. */
async function runWithSchema(
  prompt: string,
  turns: Turn[],
  outputSchema: Record<string, unknown> = schema,
): Promise<AgentResult> {
  const input = await rootAgentInput(
    {
      prompt,
      cwd: env.workspace,
      homeDir: env.workspace,
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions',
      limits: { forking: false },
    },
    env.taskQueue,
  );
  // By id: the reminder becomes the latest user text, so a match on the prompt would stop matching.
  env.script(agentWithId(input.agentId, turns));
  await env.temporal.client.workflow.start('agentWorkflow', {
    taskQueue: env.taskQueue,
    workflowId: input.agentId,
    args: [{ ...input, outputSchema }],
  });
  return env.client.getAgent(input.agentId).result();
}

/** The parsed requests the agent sent to the model. */
function requestsOf(agentId: string): { messages: { role: string; content: unknown }[]; tools?: unknown[] }[] {
  return modelCallsOf(env.modelServer, agentId).map((request) => JSON.parse(request.rawBody));
}

/** The text of a request's last message (tool results and text blocks). */
function lastMessageText(request: { messages: { content: unknown }[] }): string {
  return JSON.stringify(request.messages.at(-1)?.content);
}

describe('StructuredOutput', () => {
  it('ends the agent with the first valid object: completed, structured, its JSON as the final text', async () => {
    const prompt = 'structured: valid at once';
    const result = await runWithSchema(prompt, [submit({ verdict: 'pass', score: 7 })]);
    expect(result.status).toBe('completed');
    expect(result.structured).toEqual({ verdict: 'pass', score: 7 });
    expect(JSON.parse(result.finalText)).toEqual({ verdict: 'pass', score: 7 });
    const requests = requestsOf(result.agentId);
    // One model call: the valid call ended the agent, no turn after it.
    expect(requests).toHaveLength(1);
    expect(requests[0]!.tools).toContainEqual(
      expect.objectContaining({ name: structuredOutputToolName, input_schema: schema }),
    );
    expect(JSON.stringify(requests[0]!.messages[0]!.content)).toContain(structuredOutputInstruction);
  });

  it('lets the model retry after invalid objects, with the validation errors in the tool results', async () => {
    const prompt = 'structured: twice invalid';
    const result = await runWithSchema(prompt, [
      submit({ verdict: 'maybe', score: 7 }),
      submit({ verdict: 'pass', score: 70 }),
      submit({ verdict: 'fail', score: 2 }),
    ]);
    expect(result).toMatchObject({ status: 'completed', structured: { verdict: 'fail', score: 2 } });
    const requests = requestsOf(result.agentId);
    expect(requests).toHaveLength(3);
    expect(lastMessageText(requests[1]!)).toContain('should be equal to one of the allowed values');
    expect(lastMessageText(requests[1]!)).toContain('4 attempt(s) left');
    expect(lastMessageText(requests[2]!)).toContain('output.score should be <= 10');
    expect(lastMessageText(requests[2]!)).toContain('3 attempt(s) left');
  });

  it('fails after five invalid objects, with the last validation failure', async () => {
    const prompt = 'structured: always invalid';
    const result = await runWithSchema(prompt, [
      submit({ verdict: 'maybe', score: 1 }),
      submit({ verdict: 'maybe', score: 2 }),
      submit({ verdict: 'maybe', score: 3 }),
      submit({ verdict: 'maybe', score: 4 }),
      submit({ verdict: 'pass', score: -5 }),
      submit({ verdict: 'pass', score: 6 }),
    ]);
    expect(result.status).toBe('failed');
    expect(result.structured).toBeUndefined();
    expect(result.error).toMatch(/^StructuredOutputMissing: no valid StructuredOutput call after 5 attempts/);
    expect(result.error).toContain('output.score should be >= 0');
    // The sixth (valid) turn was never asked for.
    expect(requestsOf(result.agentId)).toHaveLength(5);
  });

  it('reminds an agent that answered in text, and takes its StructuredOutput call after', async () => {
    const prompt = 'structured: text first';
    const result = await runWithSchema(prompt, [
      { text: 'The verdict is pass, 9 of 10.' },
      submit({ verdict: 'pass', score: 9 }),
    ]);
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({ status: 'completed', structured: { verdict: 'pass', score: 9 } });
    const requests = requestsOf(result.agentId);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(lastMessageText(requests[1]!)).toContain('You must call the StructuredOutput tool');
  });

  it('fails an agent that answers in text every time, after five attempts', async () => {
    const prompt = 'structured: text only';
    const result = await runWithSchema(
      prompt,
      Array.from({ length: 6 }, (_, index) => ({ text: `answer ${index}` })),
    );
    expect(result.status).toBe('failed');
    expect(result.error).toContain('the agent answered in text each time');
    const requests = requestsOf(result.agentId);
    // Each text answer was followed by a reminder with one attempt fewer; the fifth text ended it.
    expect(JSON.stringify(requests[4]!.messages)).toContain('answer 3');
    expect(lastMessageText(requests[4]!)).toContain('1 attempt(s) left');
    expect(result.finalText).toBe('answer 4');
    expect(requestsOf(result.agentId)).toHaveLength(5);
  });

  it('refuses a schema no object can match before the first model call', async () => {
    const prompt = 'structured: contradictory schema';
    const result = await runWithSchema(prompt, [submit({ a: 1 })], {
      type: 'object',
      properties: {},
      required: ['a'],
      additionalProperties: false,
    });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^InvalidOutputSchema: .*requires "a"/);
    expect(requestsOf(result.agentId)).toHaveLength(0);
  });
});
