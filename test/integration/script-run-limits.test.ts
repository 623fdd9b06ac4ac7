import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentTestEnv, modelCallsOf } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { agentOfType, agentPrompted, bash } from '../helpers/scripted-agents';
import { scriptRunInput, type RunWorkflowOptions } from '../../src/client/script-run-input';
import { scriptHeader, scriptRunOptions } from '../helpers/script-runs';
import { checkScript } from '../../src/shared/scripts/script-check';
import { agentCallKey } from '../../src/shared/scripts/script-journal';
import { scriptLimits, scriptRunWorkflowType, type ScriptJournalEntry } from '../../src/shared/scripts/script-run';
import { ScriptRunHandle } from '../../src/client/script-runs';
import { AgentHandle } from '../../src/client/client';

// A run's limits and views on the real server (docs/workflows.md): concurrency, steering, the UI's details, the ledger, 1,000 calls.
const env = useAgentTestEnv();
const header = (name: string, description = 'a limits test') => scriptHeader(name, description);
const options = (more: RunWorkflowOptions = {}) => scriptRunOptions(env, more);

describe('script runs: concurrency, steering and views', () => {
  it('runs at most maxConcurrentAgents at once and shows its phases in the Temporal UI', async () => {
    env.script(agentPrompted('CONC ', [{ text: 'c', delayMs: 1200 }]));
    const run = await env.client.runWorkflow(
      header('fan') + `phase('Fan out');\nreturn await parallel([1, 2, 3, 4, 5].map((i) => () => agent('CONC ' + i)));`,
      undefined,
      options({ maxConcurrentAgents: 2 }),
    );
    let mostRunning = 0;
    let sawQueued = false;
    let details = '';
    for (;;) {
      const snapshot = await run.snapshot();
      const counts = snapshot.phases.find((phase) => phase.title === 'Fan out')?.counts;
      mostRunning = Math.max(mostRunning, counts?.running ?? 0);
      if ((counts?.queued ?? 0) > 0) sawQueued = true;
      if (!details && (counts?.running ?? 0) > 0) {
        const metadata = (await env.temporal.client.workflow
          .getHandle(run.runId)
          .query('__temporal_workflow_metadata')) as { currentDetails?: string };
        details = metadata.currentDetails ?? '';
      }
      if (snapshot.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await run.result()).structured).toEqual(['c', 'c', 'c', 'c', 'c']);
    expect(mostRunning).toBe(2);
    expect(sawQueued).toBe(true);
    expect(details).toContain('**Workflow** fan');
    expect(details).toMatch(/\| Fan out \| \d+ \| \d+ \| 0 \| \d+ \|/);
    // The run's agents are its child workflows: the UI shows the run as their parent.
    const child = await env.temporal.client.workflow.getHandle(`${run.runId}.1`).describe();
    expect(child.parentExecution?.workflowId).toBe(run.runId);
  });

  it('waits for room when the tree is full of its own agents instead of failing the call', async () => {
    env.script(agentPrompted('ROOM ', [{ text: 'r', delayMs: 500 }]));
    const run = await env.client.runWorkflow(
      header('room') + `return await parallel([1, 2, 3, 4].map((i) => () => agent('ROOM ' + i)));`,
      undefined,
      options({ maxConcurrentAgents: 4, limits: { forking: false, maxAgentsPerTree: 2 } }),
    );
    expect((await run.result()).structured).toEqual(['r', 'r', 'r', 'r']);
    expect((await run.snapshot()).agents.every((agent) => agent.status === 'completed')).toBe(true);
  });

  it('forwards steering sent to the run to its running agents', async () => {
    // Matched by type: the steered turn's latest user text is the steering, not the prompt.
    env.script(agentOfType('general-purpose', [{ toolUses: [bash('sleep 2')] }, { text: 'steered-done' }]));
    const run = await env.client.runWorkflow(header('steer') + `return await agent('STEERED');`, undefined, options());
    await waitFor(async () => (await run.snapshot()).agents[0]?.status === 'running', 30_000, 'agent running');
    await waitFor(
      async () => modelCallsOf(env.modelServer, `${run.runId}.1`).length >= 1,
      30_000,
      'the agent called its model',
    );
    await run.steer('STEER-TEXT-42');
    expect((await run.result()).structured).toBe('steered-done');
    const calls = modelCallsOf(env.modelServer, `${run.runId}.1`);
    // Passed on as it came: from the person, wrapped once.
    expect(calls.at(-1)?.rawBody).toContain('<steering from=\\"user\\">\\nSTEER-TEXT-42');
    expect(calls.at(-1)?.rawBody).not.toContain(`<steering from=\\"${run.runId}`);
  });

  it('counts its agents in the tree ledger and shows the same spend to the script', async () => {
    env.script(agentPrompted('LEDGER ', [{ text: 'counted' }]));
    const run = await env.client.runWorkflow(
      header('ledger') +
        `const before = budget.spent();\nconst a = await agent('LEDGER 1');\nconst middle = budget.spent();\n` +
        `const b = await agent('LEDGER 2');\nreturn { before, middle, after: budget.spent(), total: budget.total, remaining: budget.remaining() };`,
      undefined,
      options({ tokenBudget: 5_000_000 }),
    );
    const value = (await run.result()).structured as Record<string, number>;
    expect(value.before).toBe(0);
    expect(value.middle).toBeGreaterThan(0);
    expect(value.after).toBeGreaterThan(value.middle!);
    expect(value.total).toBe(5_000_000);
    expect(value.remaining).toBe(5_000_000 - value.after!);
    const ledger = await env.client.getAgent(run.runId).budget();
    const root = ledger.accounts.find((account) => account.agentId === run.runId);
    expect(root?.caps?.tokens).toBe(5_000_000);
    expect(root?.subtree.tokens).toBe(value.after);
  });
});

describe('script runs: approvals', () => {
  it("bubbles an agent's approval request to the run, which a person answers", async () => {
    env.script(
      agentPrompted('ASK-FIRST', [
        {
          toolUses: [{ name: 'Bash', input: { command: 'echo approved > approved.txt', description: 'write a file' } }],
        },
        { text: 'wrote: {{last_tool_result}}' },
      ]),
    );
    const run = await env.client.runWorkflow(
      header('approvals') + `return await agent('ASK-FIRST');`,
      undefined,
      options({ permissionMode: 'default' }),
    );
    const handle = env.client.getAgent(run.runId);
    await waitFor(async () => (await handle.approvals()).length === 1, 30_000, 'the approval request');
    const [request] = await handle.approvals();
    expect(request).toMatchObject({ agentId: `${run.runId}.1`, tool: 'Bash' });
    await handle.answerApproval(request!.requestId, { approve: true, by: 'tester' });
    expect((await run.result()).structured).toBe('wrote: (no output)');
    expect(readFileSync(path.join(env.workspace, 'approved.txt'), 'utf8')).toBe('approved\n');
  });
});

describe('script runs: a token budget that runs out', () => {
  it('holds the run to its budget in the ledger; the script sees it spent', async () => {
    env.script(agentPrompted('SPEND ', [{ text: 'spent some tokens' }]));
    const run = await env.client.runWorkflow(
      header('spender') +
        `const answers = []; let stopped = null;\n` +
        `for (let i = 0; i < 40; i++) { try { answers.push(await agent('SPEND ' + i)); } catch (error) { stopped = error.message; break; } }\n` +
        `return { answers: answers.length, nulls: answers.filter((answer) => answer === null).length, stopped, spent: budget.spent(), total: budget.total };`,
      undefined,
      options({ tokenBudget: 12_000 }),
    );
    const result = await run.result();
    const value = result.structured as {
      answers: number;
      nulls: number;
      stopped: string;
      spent: number;
      total: number;
    };
    const ledger = await env.client.getAgent(run.runId).budget();
    const root = ledger.accounts.find((account) => account.agentId === run.runId)!;
    // The ledger refused what would pass the cap: a call it could not reserve for ends its agent (null), then spawns stop.
    expect(result.status).toBe('completed');
    expect(value.total).toBe(12_000);
    expect(value.nulls).toBeGreaterThanOrEqual(1);
    expect(value.answers).toBeLessThan(40);
    expect(value.stopped).toContain('budget of 12,000 tokens');
    expect(value.spent).toBe(root.subtree.tokens);
    expect(root.subtree.tokens).toBeLessThanOrEqual(12_000);
    expect(root.exhausted).toBeDefined();
  });
});

describe('script runs: 1,000 agent() calls per run', () => {
  it('refuses the 1,001st call, counting calls answered from a journal', async () => {
    const source =
      header('thousand') +
      `let count = 0; let refused = null;\n` +
      `for (let i = 0; i < 1001; i++) { try { await agent('CAP ' + i); count++; } catch (error) { refused = error.message; } }\n` +
      `return { count, refused };`;
    const checked = checkScript(source, 'inline');
    if (!checked.ok) throw new Error(checked.error);
    const journal: ScriptJournalEntry[] = Array.from({ length: scriptLimits.maxAgentsPerRun }, (_, index) => ({
      index: index + 1,
      key: agentCallKey(`CAP ${index}`, {}),
      agentId: `old.${index + 1}`,
      status: 'completed',
      value: `v${index}`,
      tokens: 1,
    }));
    const input = await scriptRunInput(
      checked.script,
      undefined,
      options({ workflowId: `cap-${Date.now().toString(36)}` }),
      { runId: 'old', journal },
      env.taskQueue,
    );
    const handle = await env.temporal.client.workflow.start(scriptRunWorkflowType, {
      taskQueue: env.taskQueue,
      workflowId: input.agentId,
      args: [input],
    });
    const run = new ScriptRunHandle(input.agentId, handle, new AgentHandle(input.agentId, handle));
    const value = (await run.result()).structured as { count: number; refused: string };
    expect(value.count).toBe(1000);
    expect(value.refused).toContain('at most 1000 agents');
    const snapshot = await run.snapshot();
    expect(snapshot.agents.filter((agent) => agent.status === 'reused')).toHaveLength(1000);
    // No agent was started: every call came from the journal.
    expect(modelCallsOf(env.modelServer, `${input.agentId}.1`)).toHaveLength(0);
  });

  it('fails a run started without a checked script at once, instead of retrying its task', async () => {
    const checked = checkScript(header('missing') + 'return 1;', 'inline');
    if (!checked.ok) throw new Error(checked.error);
    const input = await scriptRunInput(
      checked.script,
      undefined,
      options({ workflowId: `noscript-${Date.now().toString(36)}` }),
      undefined,
      env.taskQueue,
    );
    const handle = await env.temporal.client.workflow.start(scriptRunWorkflowType, {
      taskQueue: env.taskQueue,
      workflowId: input.agentId,
      args: [{ ...input, script: { ...input.script, script: { ...input.script!.script, body: '' } } }],
    });
    await expect(handle.result()).rejects.toThrow(/failed/i);
    const history = await handle.fetchHistory();
    const failed = history.events?.find((event) => event.workflowExecutionFailedEventAttributes);
    expect(failed?.workflowExecutionFailedEventAttributes?.failure?.message).toContain('InvalidScript');
  });
});
