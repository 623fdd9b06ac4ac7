// Runs a Claude Agent SDK program's agents and hooks (program.ts) durably: a canUseTool answers approvals,
// and the SDK's task messages show the subagents' progress.
// Run: npm run example:worker in one terminal, then npx tsx examples/agent-sdk/run.ts "Review src/add.js"
import { cp, mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SubagentsClient, type CanUseTool } from 'durable-subagents';
import { agents, hooks } from './program';

const prompt = process.argv.slice(2).join(' ') || 'Review src/add.js with the code-reviewer agent and report its bugs.';

// The agents work on a copy of the project: hooks write their log there, and the checkout stays clean.
const workspace = await mkdtemp(path.join(os.tmpdir(), 'agent-sdk-example-'));
await cp(path.join(import.meta.dirname, 'project'), workspace, { recursive: true });

/** As in an SDK program: allow the test run, deny any other command; the agent that asks is named. */
const canUseTool: CanUseTool = async (toolName, input, { agentID }) => {
  const command = typeof input.command === 'string' ? input.command : '';
  const allowed = toolName === 'Bash' && command.startsWith('node --test');
  console.log(`canUseTool: ${toolName} ${JSON.stringify(command)} from ${agentID}: ${allowed ? 'allow' : 'deny'}`);
  return allowed
    ? { behavior: 'allow', updatedInput: input }
    : { behavior: 'deny', message: 'only node --test may run' };
};

const client = await SubagentsClient.connect(); // TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, SUBAGENTS_TASK_QUEUE
try {
  const agent = await client.startAgent({
    prompt,
    cwd: workspace,
    agents,
    hooks,
    canUseTool,
    permissionMode: 'default',
    ...(process.env.EXAMPLE_MODEL ? { model: process.env.EXAMPLE_MODEL } : {}),
  });
  console.log(`started ${agent.agentId}`);
  // The SDK's task_started / task_progress / task_notification messages, until the run ends.
  for await (const message of agent.progress()) console.log(`task: ${JSON.stringify(message)}`);
  const result = await agent.result();
  console.log(`hook log:\n${await readFile(path.join(workspace, 'hook-log.txt'), 'utf8').catch(() => '(none)\n')}`);
  console.log(JSON.stringify({ agentId: result.agentId, status: result.status, finalText: result.finalText }));
} finally {
  await client.close();
}
