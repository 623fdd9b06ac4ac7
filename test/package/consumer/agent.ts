// A team's worker and client script, as written against the installed package (typed: tsc --noEmit).
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { SubagentsClient, type AgentResult, type BudgetSnapshot } from 'durable-subagents';
import { defineTool, subagentsPlugin, type CustomTool } from 'durable-subagents/worker';
import { startModelServer, type ModelServer } from 'durable-subagents/model-server';

const wordCount: CustomTool = defineTool({
  name: 'word_count',
  description: 'Counts the words of a text.',
  input: z.object({ text: z.string() }),
  readOnly: true,
  run: ({ text }, context) => `${text.split(/\s+/).filter(Boolean).length} words (for ${context.agentId})`,
});

export async function runAgent(address: string, cwd: string): Promise<{ result: AgentResult; toolResult: unknown; activityTypes: string[]; budget: BudgetSnapshot }> {
  const model: ModelServer = await startModelServer({
    port: 0,
    behaviour: {
      kind: 'scripted',
      scenario: { agents: [{ match: { userIncludes: 'count' }, turns: [{ toolUses: [{ name: 'word_count', input: { text: 'one two three' } }] }, { text: 'Three words.' }] }] },
    },
  });
  process.env.ANTHROPIC_BASE_URL = model.url;
  process.env.ANTHROPIC_API_KEY = 'test-key';
  const plugin = subagentsPlugin({ tools: [wordCount] });
  const taskQueue = `pack-${process.pid}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({ connection: nativeConnection, taskQueue, plugins: [plugin] });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, plugins: [plugin] });
  const agents = new SubagentsClient(client, taskQueue);
  try {
    return await worker.runUntil(async () => {
      const handle = await agents.startAgent({ prompt: 'Please count the words', cwd, model: 'claude-test-tiny', permissionMode: 'default', limits: { budget: { caps: { toolCalls: 5 } } } });
      const result = await handle.result();
      const messages = await handle.messages();
      const toolResult = messages.flatMap((message) => (Array.isArray(message.content) ? message.content : [])).find((block) => block.type === 'tool_result');
      const history = await client.workflow.getHandle(handle.agentId).fetchHistory();
      const activityTypes = (history.events ?? []).flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
      const budget = await handle.budget();
      return { result, toolResult, activityTypes, budget };
    });
  } finally {
    await connection.close();
    await nativeConnection.close();
    await model.close();
  }
}
