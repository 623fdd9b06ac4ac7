// @slow
/** Settings created mid-run, re-read settings reaching running subagents, hostile settings files: real server, scripted model (docs/hooks.md). */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeProject, useAgentTestEnv } from '../helpers/agent-env';
import { historyEvents, recordHistory, taskSteps } from '../helpers/histories';
import { waitFor } from '../helpers/child-worker';
import { agentNamed, agentPrompted, bash, spawnInBackground } from '../helpers/scripted-agents';
import { requestsOf as requestsFrom } from '../helpers/model-requests';

const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'settings-gaps-home-')));
const env = useAgentTestEnv({ kind: 'echo' }, { homeDir });

const settings = (value: unknown) => JSON.stringify(value, null, 2);
const commandHook = (command: string, matcher?: string) => [
  { ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command }] },
];
// Refuses any Bash call that touches a file.
const refuseTouch = 'case "$(cat)" in *touch*) echo "NEW-HOOK: no touching" >&2; exit 2;; esac';
// Waits in Bash until the test writes the file `name`.
const waitFile = (name: string) => bash(`while [ ! -f ${name} ]; do sleep 0.1; done; echo ${name}-seen`);
// Records each ConfigChange it gets (a startAgent hook: in force before any settings file exists).
const recordConfigChange = (dir: string) => ({
  ConfigChange: commandHook(
    `cat >> '${path.join(dir, 'config-change.jsonl')}'; echo >> '${path.join(dir, 'config-change.jsonl')}'`,
  ),
});

const requestsOf = (agentId: string) => requestsFrom(env.modelServer, agentId);
const toolResult = (agentId: string, index: number) =>
  (requestsOf(agentId)[index]!.messages.at(-1)!.content as Array<{ content: string; is_error?: boolean }>)[0]!;
const jsonLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
// Past the files' mtime granularity: a change in the same instant as the last look would look unchanged.
const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

/** Waits until the agent's `count`-th model request arrived (its turn `count` started). */
const requestArrived = (agentId: () => string | undefined, count: number) =>
  waitFor(
    async () => {
      const id = agentId();
      return id !== undefined && requestsOf(id).length >= count;
    },
    90_000,
    `model request ${count}`,
  );

describe('settings re-read: the gaps', () => {
  it('a root in a project with no settings picks up a .claude/settings.json created mid-run; ConfigChange runs', async () => {
    const dir = writeProject(env.workspace, 'gap-created', { 'readme.txt': 'no settings yet\n' });
    env.script(
      agentNamed('gap-created', [
        { toolUses: [waitFile('go')] },
        { toolUses: [bash('touch made.txt')] },
        { text: 'done' },
      ]),
    );
    const handle = await env.start({
      prompt: 'go on',
      name: 'gap-created',
      cwd: dir,
      permissionMode: 'bypassPermissions',
      hooks: recordConfigChange(dir),
    });
    await requestArrived(() => handle.agentId, 1);
    await pause();
    mkdirSync(path.join(dir, '.claude'));
    writeFileSync(
      path.join(dir, '.claude', 'settings.json'),
      settings({ hooks: { PreToolUse: commandHook(refuseTouch, 'Bash') } }),
    );
    writeFileSync(path.join(dir, 'go'), '');
    expect((await handle.result()).status).toBe('completed');

    // Turn 2's Bash ran under the new settings: the new hook refused it.
    expect(existsSync(path.join(dir, 'made.txt'))).toBe(false);
    const refused = toolResult(handle.agentId, 2);
    expect(refused.is_error).toBe(true);
    expect(refused.content).toContain('NEW-HOOK: no touching');
    const changes = jsonLines(path.join(dir, 'config-change.jsonl'));
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      hook_event_name: 'ConfigChange',
      source: 'project_settings',
      file_path: path.join(dir, '.claude', 'settings.json'),
      session_id: handle.agentId,
    });
    // The look rode in the model calls: no activity of its own, and only the call that saw the change says so.
    const steps = await taskSteps(env.temporal.client, handle.agentId);
    expect(steps.localActivities.filter((type) => type === 'reloadSettings')).toEqual([]);
    expect(steps.scheduled.filter((step) => step.name === 'reloadSettings')).toEqual([]);
    const calls = steps.scheduled.filter((step) => step.name === 'callModel');
    expect(calls.map((step) => (step.input as { settingsLook?: unknown }).settingsLook !== undefined)).toEqual([
      false,
      true,
      true,
    ]);
    const results = (await historyEvents(env.temporal.client, handle.agentId)).filter(
      (event) => event.activityTaskCompletedEventAttributes,
    );
    const looked = results.filter((event) =>
      Buffer.from(event.activityTaskCompletedEventAttributes!.result!.payloads![0]!.data!)
        .toString()
        .includes('"settingsLook"'),
    );
    expect(looked).toHaveLength(1);
    await recordHistory(env.temporal.client, handle.agentId, 'settings-reload-created-mid-run');
  });

  it("a running subagent takes its root's re-read settings: its next tool call meets the new hook; ConfigChange runs once", async () => {
    const dir = writeProject(env.workspace, 'gap-subagent', {
      '.claude/settings.json': settings({ permissions: { allow: ['Bash(echo:*)'] } }),
    });
    env.script(
      agentNamed('gap-subagent', [
        { toolUses: [spawnInBackground('long one', 'LONG-CHILD-TASK', { subagent_type: 'general-purpose' })] },
        { toolUses: [waitFile('go')] },
        { toolUses: [bash('touch root.txt')] },
        { text: 'root waits for its child' },
        { text: 'root done' },
        { text: 'root done' },
      ]),
      agentPrompted('LONG-CHILD-TASK', [
        { toolUses: [waitFile('go-child')] },
        { toolUses: [bash('touch child.txt')] },
        { text: 'child done' },
      ]),
    );
    const handle = await env.start({
      prompt: 'delegate, then wait',
      name: 'gap-subagent',
      cwd: dir,
      permissionMode: 'bypassPermissions',
      hooks: recordConfigChange(dir),
    });
    const child = `${handle.agentId}.1`;
    await requestArrived(() => child, 1);
    await requestArrived(() => handle.agentId, 2);
    await pause();
    writeFileSync(
      path.join(dir, '.claude', 'settings.json'),
      settings({ permissions: { allow: ['Bash(echo:*)'] }, hooks: { PreToolUse: commandHook(refuseTouch, 'Bash') } }),
    );
    writeFileSync(path.join(dir, 'go'), '');
    // The root's turn 3 ran under the new settings; its push reached the child before the root's tools ended.
    await requestArrived(() => handle.agentId, 4);
    expect(toolResult(handle.agentId, 3).content).toContain('NEW-HOOK: no touching');
    writeFileSync(path.join(dir, 'go-child'), '');
    expect((await handle.result()).status).toBe('completed');

    expect(existsSync(path.join(dir, 'root.txt'))).toBe(false);
    expect(existsSync(path.join(dir, 'child.txt'))).toBe(false);
    const refused = toolResult(child, 2);
    expect(refused.is_error).toBe(true);
    expect(refused.content).toContain('NEW-HOOK: no touching');
    // One session, one ConfigChange: the root's; the child took the settings without a look of its own.
    const changes = jsonLines(path.join(dir, 'config-change.jsonl'));
    expect(changes.map((change) => change.session_id)).toEqual([handle.agentId]);
    const childSteps = await taskSteps(env.temporal.client, child);
    expect(childSteps.localActivities.filter((type) => type === 'reloadSettings')).toEqual([]);
    const signals = (await historyEvents(env.temporal.client, child)).filter(
      (event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'settingsChanged',
    );
    expect(signals).toHaveLength(1);
    await recordHistory(env.temporal.client, handle.agentId, 'settings-reload-push-root');
    await recordHistory(env.temporal.client, child, 'settings-reload-push-child');
  });

  it('hostile files written mid-run (invalid JSON, 5 MB, symlinks to /etc/shadow and to a fifo) keep the old settings, with notices', async () => {
    const dir = writeProject(env.workspace, 'gap-hostile', { 'readme.txt': 'no settings yet\n' });
    // The hostile files go to the user's settings: the project's are paths the sandbox binds read-only, and bwrap
    // cannot bind over a symlink to a file outside it, so every sandboxed hook would fail there (docs/hooks.md).
    const file = path.join(homeDir, '.claude', 'settings.json');
    const fifo = path.join(homeDir, 'settings.fifo');
    const steps: Array<() => void> = [
      () => {
        mkdirSync(path.join(dir, '.claude'));
        writeFileSync(
          path.join(dir, '.claude', 'settings.json'),
          settings({ hooks: { PreToolUse: commandHook(refuseTouch, 'Bash') } }),
        );
        mkdirSync(path.join(homeDir, '.claude'), { recursive: true });
      },
      () => writeFileSync(file, '{ "hooks": '),
      () => writeFileSync(file, `{"hooks": {}, "padding": "${'x'.repeat(5 * 1024 * 1024)}"}`),
      () => {
        rmSync(file);
        symlinkSync('/etc/shadow', file);
      },
      () => {
        rmSync(file);
        execFileSync('mkfifo', [fifo]);
        symlinkSync(fifo, file);
      },
    ];
    env.script(
      agentNamed('gap-hostile', [
        ...steps.map((_, index) => ({ toolUses: [waitFile(`go-${index}`)] })),
        { toolUses: [bash('touch made.txt')] },
        { text: 'done' },
      ]),
    );
    const handle = await env.start({
      prompt: 'go on',
      name: 'gap-hostile',
      cwd: dir,
      permissionMode: 'bypassPermissions',
    });
    for (const [index, step] of steps.entries()) {
      await requestArrived(() => handle.agentId, index + 1);
      await pause();
      step();
      writeFileSync(path.join(dir, `go-${index}`), '');
    }
    expect((await handle.result()).status).toBe('completed');

    // The settings of the first change held through every hostile one: the hook still refused the last call.
    expect(existsSync(path.join(dir, 'made.txt'))).toBe(false);
    expect(toolResult(handle.agentId, steps.length + 1).content).toContain('NEW-HOOK: no touching');
    const notices = (await handle.status()).hookNotices ?? [];
    const refusals = notices.filter((notice) => notice.startsWith('settings changed but were not re-read'));
    expect(refusals).toHaveLength(4);
    expect(refusals[0]).toContain(`${file}: not valid JSON`);
    expect(refusals[1]).toContain('more than the 1048576 a settings file may have');
    expect(refusals[2]).toMatch(/not valid JSON \(Unexpected token\)|cannot be read/);
    expect(refusals[3]).toContain('not a regular file');
    // What a symlinked secret holds never reaches a notice.
    expect(notices.join('\n')).not.toContain('root:');
    rmSync(file);
  });
});
