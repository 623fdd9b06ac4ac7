// @slow
// A root placed on a workspace worker (docs/operations.md) in a project with no settings watches its settings
// files there: a .claude/settings.json created mid-run applies from the next turn (docs/hooks.md).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubagentsClient } from '../../src/client/client';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import { waitFor } from '../helpers/child-worker';
import { activityStarts, recordHistory, taskSteps } from '../helpers/histories';
import {
  connectTestTemporal,
  createTestWorker,
  createTestWorkspaceWorker,
  uniqueTaskQueue,
  type TestTemporal,
} from '../helpers/temporal';
import { scenario } from '../helpers/agent-env';
import { bash } from '../helpers/scripted-agents';
import { requestsOf as requestsFrom } from '../helpers/model-requests';

let temporal: TestTemporal;
let modelServer: ModelServer;
let client: SubagentsClient;
const taskQueue = uniqueTaskQueue('settings-placed');
const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-settings-placed-')));
// The shared-queue worker's own files are elsewhere: it may not touch the project's (its workspace guard refuses).
const roots = { shared: path.join(base, 'shared'), ws: path.join(base, 'ws') };
const running: { worker: Worker; run: Promise<void> }[] = [];

beforeAll(async () => {
  temporal = await connectTestTemporal();
  modelServer = await startModelServer({ port: 0, behaviour: scenario([]) });
  client = new SubagentsClient(temporal.client, taskQueue);
  for (const root of Object.values(roots)) mkdirSync(root, { recursive: true });
  for (const worker of [
    await createTestWorker(temporal, { taskQueue, modelBaseUrl: modelServer.url, workspace: { root: roots.shared } }),
    await createTestWorkspaceWorker(temporal, {
      taskQueue,
      modelBaseUrl: modelServer.url,
      workspace: { workerId: 'ws', root: roots.ws },
    }),
  ])
    running.push({ worker, run: worker.run() });
});
afterAll(async () => {
  for (const entry of running) if (entry.worker.getState() === 'RUNNING') entry.worker.shutdown();
  await Promise.allSettled(running.map((entry) => entry.run));
  await modelServer?.close();
  await temporal?.close();
});

// Refuses any Bash call that touches a file.
const refuseTouch = 'case "$(cat)" in *touch*) echo "NEW-HOOK: no touching" >&2; exit 2;; esac';
const requestsOf = (agentId: string) => requestsFrom(modelServer, agentId);

describe('settings re-read of a root placed on a workspace worker', () => {
  it('takes a .claude/settings.json created mid-run, by reloadSettings on that worker; ConfigChange runs', async () => {
    const dir = path.join(roots.ws, 'project');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'readme.txt'), 'no settings yet\n');
    const agentId = `placed-settings-${Date.now().toString(36)}`;
    modelServer.setBehaviour(
      scenario([
        {
          match: { agentId },
          turns: [
            { toolUses: [bash('while [ ! -f go ]; do sleep 0.1; done; echo go-seen')] },
            { toolUses: [bash('touch made.txt')] },
            { text: 'done' },
          ],
        },
      ]),
    );
    const log = path.join(dir, 'config-change.jsonl');
    const handle = await client.startAgent({
      agentId,
      prompt: 'go on',
      cwd: dir,
      homeDir: base,
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions',
      worker: 'ws',
      // In force before any settings file exists: records each ConfigChange it gets.
      hooks: { ConfigChange: [{ hooks: [{ type: 'command', command: `cat >> '${log}'; echo >> '${log}'` }] }] },
    });
    await waitFor(() => requestsOf(agentId).length >= 1, 90_000, 'the first model call');
    // Past the files' mtime granularity.
    await new Promise((resolve) => setTimeout(resolve, 50));
    mkdirSync(path.join(dir, '.claude'));
    writeFileSync(
      path.join(dir, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: refuseTouch }] }] },
      }),
    );
    writeFileSync(path.join(dir, 'go'), '');
    expect((await handle.result()).status).toBe('completed');

    // Turn 2's Bash ran under the new settings: the new hook refused it.
    expect(existsSync(path.join(dir, 'made.txt'))).toBe(false);
    const refused = (requestsOf(agentId)[2]!.messages.at(-1)!.content as { content: string; is_error?: boolean }[])[0]!;
    expect(refused.is_error).toBe(true);
    expect(refused.content).toContain('NEW-HOOK: no touching');
    const changes = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      hook_event_name: 'ConfigChange',
      source: 'project_settings',
      file_path: path.join(dir, '.claude', 'settings.json'),
      session_id: agentId,
    });

    // The input asked for the activity; each look ran on the workspace worker, before turns 2 and 3.
    const history = await temporal.client.workflow.getHandle(agentId).fetchHistory();
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    expect(defaultPayloadConverter.fromPayload<{ watchSettings?: string }>(started).watchSettings).toBe('activity');
    const looks = activityStarts(history.events ?? []).filter((activity) => activity.name === 'reloadSettings');
    expect(looks).toHaveLength(2);
    for (const look of looks) {
      expect(look.taskQueue).toBe(`${taskQueue}@ws`);
      expect(look.identity).toMatch(/^ws /);
    }
    const steps = await taskSteps(temporal.client, agentId);
    expect(steps.localActivities.filter((type) => type === 'reloadSettings')).toEqual([]);
    expect(
      steps.scheduled
        .filter((step) => step.name === 'callModel')
        .map((step) => 'settingsLook' in (step.input as object)),
    ).toEqual([false, false, false]);
    await recordHistory(temporal.client, agentId, 'settings-reload-placed-created-mid-run');
  });
});
