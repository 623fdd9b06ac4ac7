import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type proto from '@temporalio/proto';
import { patchBaseline } from '../../src/workflows/patches';
import { createAgentTestEnv, scenario, type AgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { historyEvents, patchIdsOf, recordHistory } from '../helpers/histories';
import { processAlive } from '../helpers/processes';

// A cancelled turn aborts its tool calls running on this worker at once, by local activity
// (src/workflows/local-abort.ts, src/activities/tools/running-calls.ts), instead of the call learning
// of the cancellation from its next heartbeat.

let env: AgentTestEnv;

beforeAll(async () => {
  env = await createAgentTestEnv({ kind: 'echo' });
});
afterAll(async () => {
  await env?.close();
});

const decode = (payload: unknown): unknown => (payload ? defaultPayloadConverter.fromPayload(payload as Payload) : undefined);

/** What each `abortRunningCalls` local activity of a run returned: how many calls it aborted. */
function abortsOf(events: proto.temporal.api.history.v1.IHistoryEvent[]): number[] {
  return events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = decode(marker.details?.data?.payloads?.[0]) as { activity_type?: string } | undefined;
    return data?.activity_type === 'abortRunningCalls' ? [decode(marker.details?.result?.payloads?.[0]) as number] : [];
  });
}


async function startedCommand(pidFile: string): Promise<number> {
  await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 60_000, 'the command to start');
  return Number(readFileSync(pidFile, 'utf8'));
}

describe('aborting running tool calls on the worker', () => {
  it('an interrupt kills the running command through the local abort', async () => {
    const pidFile = path.join(env.workspace, 'local-abort-interrupt.pid');
    env.modelServer.setBehaviour(
      scenario([{ match: { agentName: 'local-abort-interrupt' }, turns: [{ toolUses: [{ name: 'Bash', input: { command: `echo $$ > ${pidFile}; sleep 60` } }] }, { text: 'NEVER' }] }]),
    );
    const handle = await env.start({ prompt: 'run a long command', name: 'local-abort-interrupt' });
    const pid = await startedCommand(pidFile);
    await handle.interrupt({ by: 'tester', reason: 'enough' });
    const result = await handle.result();
    expect(result.status).toBe('interrupted');
    expect(processAlive(pid)).toBe(false);
    const events = await historyEvents(env.temporal.client, handle.agentId);
    // The worker running the workflow task ran the command too, and found it there.
    expect(abortsOf(events)).toEqual([1]);
    // Runs on baseline 2 take the local abort without a marker of their own (src/workflows/patches.ts).
    expect(patchIdsOf(events)).toEqual([patchBaseline]);
    await recordHistory(env.temporal.client, handle.agentId, 'local-abort-interrupt-bash');
  });

  it('a stop kills a subagent’s running command through the local abort; a parent without running calls runs none', async () => {
    const pidFile = path.join(env.workspace, 'local-abort-stop.pid');
    env.modelServer.setBehaviour(
      scenario([
        { match: { agentName: 'local-abort-stop' }, turns: [{ toolUses: [{ name: 'Agent', input: { description: 'runner', prompt: 'local-abort child: run it' } }] }] },
        { match: { userIncludes: 'local-abort child' }, turns: [{ toolUses: [{ name: 'Bash', input: { command: `echo $$ > ${pidFile}; sleep 60` } }] }] },
      ]),
    );
    const handle = await env.start({ prompt: 'delegate a long command', name: 'local-abort-stop' });
    const child = `${handle.agentId}.1`;
    const pid = await startedCommand(pidFile);
    await handle.stop({ by: 'tester', reason: 'enough' });
    await expect(handle.result()).rejects.toThrow();
    await waitFor(async () => (await env.client.getAgent(child).describe()).status.name === 'CANCELLED', 60_000, 'the child to end cancelled');
    expect(processAlive(pid)).toBe(false);
    expect(abortsOf(await historyEvents(env.temporal.client, child))).toEqual([1]);
    // The root's turn ran an Agent call, no tool activity: nothing to abort, no local activity.
    expect(abortsOf(await historyEvents(env.temporal.client, handle.agentId))).toEqual([]);
    await recordHistory(env.temporal.client, child, 'local-abort-stopped-child');
  });
});
