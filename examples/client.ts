// A client script: start an agent, follow its progress, steer it, stop it if asked, print its result.
// Run: npm run example:client -- "Triage ticket T-1001"   (add --stop to stop it right away)
import path from 'node:path';
import { SubagentsClient } from 'durable-subagents';

const args = process.argv.slice(2);
const stopEarly = args.includes('--stop');
const prompt = args.filter((arg) => arg !== '--stop').join(' ') || 'Triage ticket T-1001';

const client = await SubagentsClient.connect(); // TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, SUBAGENTS_TASK_QUEUE
try {
  const agent = await client.startAgent({
    prompt,
    type: 'support-triage', // examples/project/.claude/agents/support-triage.md
    cwd: path.join(import.meta.dirname, 'project'),
    ...(process.env.EXAMPLE_MODEL ? { model: process.env.EXAMPLE_MODEL } : {}),
  });
  console.log(`started ${agent.agentId}`);

  // Steer: a message that reaches the agent at its next turn boundary.
  const ack = await agent.steer('Answer in one line and name the priority.');
  console.log(`steered (queued at turn ${ack.turn})`);

  if (stopEarly) {
    await agent.stop({ by: 'example client', reason: 'asked with --stop' });
    console.log('stop requested');
  }

  // Follow: poll the status query until the agent has finished.
  let last = '';
  for (;;) {
    const status = await agent.status();
    const line = `turn ${status.turn}: ${status.state}${status.currentTools.length > 0 ? ` (${status.currentTools.join(', ')})` : ''}`;
    if (line !== last) console.log(line);
    last = line;
    if (status.state === 'finished') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  try {
    const result = await agent.result();
    console.log(`result: ${result.status}: ${result.finalText}`);
    console.log(
      JSON.stringify({
        agentId: result.agentId,
        status: result.status,
        finalText: result.finalText,
        toolUses: result.toolUses,
      }),
    );
  } catch (error) {
    // A stopped agent's workflow ends cancelled: result() throws, Temporal's description says so.
    const description = await agent.describe();
    console.log(
      `result: ${description.status.name.toLowerCase()} (${error instanceof Error ? error.message : String(error)})`,
    );
    console.log(JSON.stringify({ agentId: agent.agentId, status: description.status.name.toLowerCase() }));
  }
} finally {
  await client.close();
}
