import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelCallsOf, useAgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { abortsOf, historyEvents, patchIdsOf, recordHistory } from '../helpers/histories';
import { processesMatching } from '../helpers/processes';
import { agentNamed, agentPrompted, bash, spawn } from '../helpers/scripted-agents';

// A cancelled turn aborts its tool calls running on this worker at once, by local activity
// (src/workflows/runtime/local-abort.ts, src/activities/tools/running-calls.ts), instead of the call learning
// of the cancellation from its next heartbeat.

const env = useAgentTestEnv();

/** Waits until the command made its file, and returns how to find its sleep on the host (its PID namespace is its own). */
async function startedCommand(startedFile: string, seconds: string): Promise<string> {
  await waitFor(() => existsSync(startedFile), 60_000, 'the command to start');
  const pattern = `^sleep ${seconds}`;
  expect(processesMatching(pattern)).toHaveLength(1);
  return pattern;
}

describe('aborting running tool calls on the worker', () => {
  it('an interrupt kills the running command through the local abort', async () => {
    const startedFile = path.join(env.workspace, 'local-abort-interrupt.started');
    const seconds = '60.3301';
    env.script(
      agentNamed('local-abort-interrupt', [
        { toolUses: [bash(`touch ${startedFile}; sleep ${seconds}`)] },
        { text: 'NEVER' },
      ]),
    );
    const handle = await env.start({ prompt: 'run a long command', name: 'local-abort-interrupt' });
    const sleeping = await startedCommand(startedFile, seconds);
    await handle.interrupt({ by: 'tester', reason: 'enough' });
    const result = await handle.result();
    expect(result.status).toBe('interrupted');
    expect(processesMatching(sleeping)).toEqual([]);
    const events = await historyEvents(env.temporal.client, handle.agentId);
    // The worker running the workflow task ran the command too, and found it there.
    expect(abortsOf(events)).toEqual([1]);
    // A run started today asks for no patch (src/workflows/runtime/patches.ts).
    expect(patchIdsOf(events)).toEqual([]);
    await recordHistory(env.temporal.client, handle.agentId, 'local-abort-interrupt-bash');
  });

  it('a stop kills a subagent’s running command through the local abort; a parent without running calls runs none', async () => {
    const startedFile = path.join(env.workspace, 'local-abort-stop.started');
    const seconds = '60.3302';
    env.script(
      agentNamed('local-abort-stop', [{ toolUses: [spawn('runner', 'local-abort child: run it')] }]),
      agentPrompted('local-abort child', [{ toolUses: [bash(`touch ${startedFile}; sleep ${seconds}`)] }]),
    );
    const handle = await env.start({ prompt: 'delegate a long command', name: 'local-abort-stop' });
    const child = `${handle.agentId}.1`;
    const sleeping = await startedCommand(startedFile, seconds);
    await handle.stop({ by: 'tester', reason: 'enough' });
    await expect(handle.result()).rejects.toThrow();
    await waitFor(
      async () => (await env.client.getAgent(child).describe()).status.name === 'CANCELLED',
      60_000,
      'the child to end cancelled',
    );
    expect(processesMatching(sleeping)).toEqual([]);
    expect(abortsOf(await historyEvents(env.temporal.client, child))).toEqual([1]);
    // The root's turn ran an Agent call, no tool activity: nothing to abort, no local activity.
    expect(abortsOf(await historyEvents(env.temporal.client, handle.agentId))).toEqual([]);
    await recordHistory(env.temporal.client, child, 'local-abort-stopped-child');
  });

  it('a stop aborts only where a call still runs: no local activity for each earlier tool turn', async () => {
    const startedFile = path.join(env.workspace, 'local-abort-later.started');
    const seconds = '60.3303';
    const glob = { toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }] };
    env.script(
      // Three turns of tool activities, then a running command.
      agentNamed('local-abort-later-bash', [
        glob,
        glob,
        glob,
        { toolUses: [bash(`touch ${startedFile}; sleep ${seconds}`)] },
      ]),
      // Three turns of tool activities, then waiting on the model: only its model call runs.
      agentNamed('local-abort-later-model', [glob, glob, glob, { text: 'NEVER', delayMs: 60_000 }]),
    );
    const busy = await env.start({ prompt: 'look, then run a long command', name: 'local-abort-later-bash' });
    const sleeping = await startedCommand(startedFile, seconds);
    await busy.stop({ by: 'tester', reason: 'enough' });
    await expect(busy.result()).rejects.toThrow();
    expect(processesMatching(sleeping)).toEqual([]);
    const busyEvents = await historyEvents(env.temporal.client, busy.agentId);
    // One local activity, the one that killed the command (before: one per turn that had called a tool, [0, 0, 0, 1]).
    expect(abortsOf(busyEvents)).toEqual([1]);
    expect(patchIdsOf(busyEvents)).toEqual([]);
    await recordHistory(env.temporal.client, busy.agentId, 'local-abort-only-running-b4');

    // Stopped while it waits on the model: its model call is aborted on the worker (one local activity, not
    // one per earlier tool turn), instead of streaming on until the answer to a heartbeat (up to 24 s).
    const thinking = await env.start({ prompt: 'look, then think for long', name: 'local-abort-later-model' });
    const workflow = env.temporal.client.workflow.getHandle(thinking.agentId);
    const modelCalls = () => modelCallsOf(env.modelServer, thinking.agentId);
    await waitFor(() => modelCalls().length === 4, 60_000, 'the fourth model call');
    await thinking.stop({ by: 'tester', reason: 'enough' });
    await expect(workflow.result()).rejects.toThrow();
    const thinkingEvents = await historyEvents(env.temporal.client, thinking.agentId);
    expect(abortsOf(thinkingEvents)).toEqual([1]);
    await waitFor(
      () => modelCalls()[3]!.abortedAt !== undefined,
      10_000,
      'the model server to see the fourth call aborted',
    );
    expect(
      modelCalls()
        .slice(0, 3)
        .map((request) => request.abortedAt),
    ).toEqual([undefined, undefined, undefined]);
    expect(patchIdsOf(thinkingEvents)).toEqual([]);
    await recordHistory(env.temporal.client, thinking.agentId, 'local-model-abort-stopped');
  });

  it('an interrupt aborts the running model call; the agent goes on with its next message', async () => {
    env.script(
      // The interrupted call left no assistant message, so the next call is turn 0 again: told apart by its text.
      {
        match: { agentName: 'local-model-abort-interrupt', userIncludes: 'try this instead' },
        turns: [{ text: 'AFTER THE INTERRUPT' }],
      },
      agentNamed('local-model-abort-interrupt', [{ text: 'NEVER', delayMs: 60_000 }]),
    );
    const handle = await env.start({
      prompt: 'think for long',
      name: 'local-model-abort-interrupt',
      interactive: { idleTimeoutMs: 60_000 },
    });
    const modelCalls = () => modelCallsOf(env.modelServer, handle.agentId);
    await waitFor(() => modelCalls().length === 1, 60_000, 'the model call');
    await handle.interrupt({ by: 'tester', reason: 'wrong track' });
    await waitFor(() => modelCalls()[0]!.abortedAt !== undefined, 10_000, 'the model server to see the call aborted');
    await waitFor(async () => (await handle.status()).state === 'waiting', 30_000, 'the agent to wait for a message');
    await env.client.send(handle.agentId, 'try this instead');
    await waitFor(() => modelCalls().length === 2, 60_000, 'the next model call');
    await handle.close();
    const result = await handle.result();
    expect(result.finalText).toBe('AFTER THE INTERRUPT');
    const events = await historyEvents(env.temporal.client, handle.agentId);
    expect(abortsOf(events)).toEqual([1]);
    // The aborted call's activity ends only with Temporal's cancellation (its next heartbeat), never with a retry.
    expect(events.filter((event) => event.activityTaskFailedEventAttributes)).toHaveLength(0);
    await recordHistory(env.temporal.client, handle.agentId, 'local-model-abort-interrupt');
  });
});
