import { describe, expect, it } from 'vitest';
import { requestBodies, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { recordHistory, taskSteps } from '../helpers/histories';
import { agentNamed, spawn } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

describe('agent start as a local activity', () => {
  it('renders a root and a child start inside their first workflow task (no renderAgentStart activity task), with the same prompt as before', async () => {
    await env.writeFiles({ 'CLAUDE.md': 'House rule: answer in one line.\n' });
    env.modelServer.clearRequests();
    env.script(
      agentNamed('local-start-root', [
        {
          toolUses: [
            spawn('check', 'Check the house rule', { subagent_type: 'general-purpose', name: 'local-start-child' }),
          ],
        },
        { text: 'ROOT done' },
      ]),
      agentNamed('local-start-child', [{ text: 'CHILD done' }]),
    );
    const { handle } = await runCompleted(env, { prompt: 'start a child', name: 'local-start-root' });
    const childId = `${handle.agentId}.1`;
    for (const workflowId of [handle.agentId, childId]) {
      const steps = await taskSteps(env.temporal.client, workflowId);
      const scheduled = steps.scheduled.map((step) => step.name);
      expect(scheduled).not.toContain('renderAgentStart');
      expect(scheduled).toContain('callModel');
      expect(steps.localActivities.length).toBeGreaterThanOrEqual(1);
    }
    // What the local activity rendered reached the model: the system prompt with CLAUDE.md, the roster in the first message.
    const bodies = requestBodies(env.modelServer);
    expect(bodies).toHaveLength(3);
    for (const body of bodies) expect(JSON.stringify(body.system)).toContain('House rule: answer in one line.');
    expect(JSON.stringify(bodies[0]!.messages[0]!.content)).toContain('Agent types you can start');
    await recordHistory(env.temporal.client, childId, 'perf-local-agent-start-child');
  });
});
