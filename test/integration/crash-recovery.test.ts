// @slow
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/child-worker';
import { startUnattended, useCrashHarness } from '../helpers/crash-harness';
import { recordHistory } from '../helpers/histories';
import { processesMatching } from '../helpers/processes';
import { scenario } from '../helpers/agent-env';
import { agentPrompted, bash } from '../helpers/scripted-agents';

const crash = useCrashHarness();

describe('worker crash (SIGKILL) mid-run', () => {
  it('completes after a restart, never re-runs Bash silently, and records each tool result once', async () => {
    const { workspace, taskQueue, client } = crash.prepare('crash');
    crash.modelServer.setBehaviour(
      scenario([
        agentPrompted('crash test', [
          { toolUses: [bash('echo ran >> bash-runs.txt; sleep 600.4711; echo done >> bash-runs.txt')] },
          { text: 'checking', toolUses: [{ name: 'Glob', input: { pattern: '*.txt' } }], delayMs: 1500 },
          { text: 'all done after the crash' },
        ]),
      ]),
    );
    await crash.startWorker(taskQueue);
    const handle = await startUnattended(client, workspace, { prompt: 'crash test' });

    // Kill the worker while Bash runs.
    await waitFor(() => existsSync(path.join(workspace, 'bash-runs.txt')), 60_000, 'the Bash command to start');
    // The command runs in its own PID namespace: it is found on the host by its unique sleep.
    expect(processesMatching('^sleep 600.4711')).toHaveLength(1);
    await crash.workers[0]!.kill('SIGKILL');
    // The sandbox dies with its worker (and the watchdog kills the command's process group, polling every second).
    await waitFor(
      () => processesMatching('^sleep 600.4711').length === 0,
      60_000,
      'the command of the dead worker to end',
    );
    await crash.startWorker(taskQueue);

    // Kill the next worker during the (slow) second model call.
    const modelCalls = () =>
      crash.modelServer
        .requests()
        .filter((request) => request.path === '/v1/messages' && request.agentKey !== undefined);
    await waitFor(() => modelCalls().length >= 2, 90_000, 'the second model call');
    await crash.workers[1]!.kill('SIGKILL');
    await crash.startWorker(taskQueue);

    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('all done after the crash');

    // Bash ran once and was not re-run (and was killed with its worker); the model was told it may have partially run.
    expect(readFileSync(path.join(workspace, 'bash-runs.txt'), 'utf8')).toBe('ran\n');
    const messages = await handle.messages();
    const toolResults = messages.flatMap((message) =>
      typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'tool_result'),
    );
    const toolUses = messages.flatMap((message) =>
      typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'tool_use'),
    );
    expect(toolUses).toHaveLength(2);
    expect(toolResults).toHaveLength(2);
    expect(new Set(toolResults.map((block) => (block as { tool_use_id: string }).tool_use_id)).size).toBe(2);
    expect(JSON.stringify(toolResults[0])).toMatch(/may have partially run/);

    // In the history: one Bash attempt, and each tool activity completed at most once.
    const history = await crash.temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
    const scheduled = (history.events ?? []).filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'Bash',
    );
    expect(scheduled).toHaveLength(1);
    expect(messages.filter((message) => message.role === 'assistant')).toHaveLength(3);
    await recordHistory(crash.temporal.client, handle.agentId, 'loop-crash-recovery');
  });
});
