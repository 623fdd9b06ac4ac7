import { describe, expect, it } from 'vitest';
import { useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted, waitForState } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { historyEvents, patchIdsOf, recordHistory } from '../helpers/histories';
import { agentNamed, agentPrompted, bash, spawn, spawnInBackground } from '../helpers/scripted-agents';

// Runs started on today's code ask for no patch (src/workflows/runtime/patches.ts: versioned workers pin runs to
// their code, docs/operations.md "Upgrades") and take the lean paths the retired baselines stood for; their
// recordings (baseline-*) keep those paths in the replay corpus.

const env = useAgentTestEnv();

const eventsOf = (workflowId: string) => historyEvents(env.temporal.client, workflowId);

/** The patch ids a run's history marks, how many times it upserted TemporalChangeVersion, and its cancelled timers. */
async function patchesOf(
  workflowId: string,
): Promise<{ ids: string[]; changeVersionUpserts: number; timersCancelled: number }> {
  const events = await eventsOf(workflowId);
  const ids = patchIdsOf(events);
  const changeVersionUpserts = events.filter(
    (event) =>
      event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion,
  ).length;
  const timersCancelled = events.filter((event) => event.timerCanceledEventAttributes).length;
  return { ids, changeVersionUpserts, timersCancelled };
}

describe('runs on the current code', () => {
  it('mark no patch in a tree that reads, delegates in the foreground and in the background', async () => {
    await env.writeFiles({ 'alpha.txt': 'ALPHA\n', 'beta.txt': 'BETA\n' });
    env.script(
      agentNamed('baseline-tree', [
        {
          toolUses: [
            { name: 'Read', input: { file_path: 'alpha.txt' } },
            { name: 'Read', input: { file_path: 'beta.txt' } },
          ],
        },
        {
          toolUses: [spawn('in the foreground', 'baseline foreground task', { subagent_type: 'general-purpose' })],
        },
        {
          toolUses: [
            spawnInBackground('in the background', 'baseline background task', { subagent_type: 'general-purpose' }),
          ],
        },
        { text: 'started it' },
        { text: 'BASELINE TREE DONE' },
        { text: 'BASELINE TREE DONE' },
      ]),
      agentPrompted('baseline foreground task', [{ text: 'foreground answer' }]),
      agentPrompted('baseline background task', [
        { toolUses: [{ name: 'Read', input: { file_path: 'alpha.txt' } }] },
        { text: 'background answer' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'read, then delegate', name: 'baseline-tree' });
    const [foreground, background] = [`${handle.agentId}.1`, `${handle.agentId}.2`];
    await waitFor(
      async () => (await env.client.getAgent(background).describe()).status.name === 'COMPLETED',
      60_000,
      'the background child to finish',
    );

    for (const id of [handle.agentId, foreground, background]) {
      const patches = await patchesOf(id);
      expect(patches.ids, id).toEqual([]);
      expect(patches.changeVersionUpserts, id).toBe(0);
    }
    // A child's stall watchdog sleeps through its period: the run ends with the timer pending, not cancelled.
    for (const id of [foreground, background]) expect((await patchesOf(id)).timersCancelled, id).toBe(0);
    const messages = await handle.messages();
    expect(JSON.stringify(messages)).toContain('foreground answer');

    await recordHistory(env.temporal.client, handle.agentId, 'baseline-tree-root');
    await recordHistory(env.temporal.client, foreground, 'baseline-tree-foreground-child');
    await recordHistory(env.temporal.client, background, 'baseline-tree-background-child');
  });

  it('ask a person for a call the mode does not settle, in the root and in a foreground child; reads go ahead without asking', async () => {
    await env.writeFiles({ 'gamma.txt': 'GAMMA\n' });
    env.script(
      agentNamed('baseline-approvals', [
        {
          toolUses: [
            { name: 'Read', input: { file_path: 'gamma.txt' } },
            { name: 'Bash', input: { command: 'echo approved >> baseline-approvals.txt', description: 'append' } },
          ],
        },
        { toolUses: [spawn('writer', 'baseline writer task')] },
        { text: 'baseline approvals done' },
      ]),
      agentPrompted('baseline writer task', [
        { toolUses: [{ name: 'Write', input: { file_path: 'refused.txt', content: 'no' } }] },
        { text: 'child saw: {{last_tool_result}}' },
      ]),
    );
    const handle = await env.start({
      prompt: 'approvals on the current code',
      name: 'baseline-approvals',
      permissionMode: 'default',
    });
    await waitFor(async () => (await handle.approvals()).length === 1, 30_000, 'the Bash approval request');
    const [bash] = await handle.approvals();
    expect(bash!.tool).toBe('Bash');
    await handle.answerApproval(bash!.requestId, { approve: true });
    await waitFor(async () => (await handle.approvals()).length === 1, 30_000, "the child's Write approval request");
    const [write] = await handle.approvals();
    expect(write!.tool).toBe('Write');
    await handle.answerApproval(write!.requestId, { approve: false, reason: 'not on the baseline' });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    const transcript = JSON.stringify(await handle.messages());
    expect(transcript).toContain('GAMMA');
    expect(transcript).toContain('not on the baseline');
    for (const id of [handle.agentId, `${handle.agentId}.1`]) expect((await patchesOf(id)).ids, id).toEqual([]);

    await recordHistory(env.temporal.client, handle.agentId, 'baseline-approvals-root');
    await recordHistory(env.temporal.client, `${handle.agentId}.1`, 'baseline-approvals-child');
  });

  it('stop a tree whose child runs Bash, every open tool call answered', async () => {
    env.script(
      agentNamed('baseline-stop', [{ toolUses: [spawn('sleeper', 'baseline sleeping task')] }]),
      agentPrompted('baseline sleeping task', [{ toolUses: [bash('sleep 60')] }]),
    );
    const handle = await env.start({ prompt: 'delegate a long command', name: 'baseline-stop' });
    const child = `${handle.agentId}.1`;
    await waitForState(env, child, 'running_tools', 'the child to run Bash');
    await handle.stop({ by: 'tester', reason: 'baseline stop' });
    await expect(handle.result()).rejects.toThrow();
    // The root stopped its child with the notice on the cancellation (src/workflows/tree/stop-delivery.ts), the
    // child's cancelled turn aborted its Bash on the worker (src/workflows/runtime/local-abort.ts), no patch asked.
    for (const id of [handle.agentId, child]) expect((await patchesOf(id)).ids, id).toEqual([]);
    for (const id of [handle.agentId, child]) {
      const messages = await env.client.getAgent(id).messages();
      const last = messages[messages.length - 1]!;
      expect(JSON.stringify(last.content), id).toMatch(/[Ss]topped by tester: baseline stop/);
    }
    await waitFor(
      async () => (await env.client.getAgent(child).describe()).status.name !== 'RUNNING',
      60_000,
      'the child to close',
    );
    // Stops on today's code are recorded by test/integration/stop-delivery.test.ts.
  });
});
