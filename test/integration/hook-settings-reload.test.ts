// @slow
/** Settings re-read at turn boundaries, ConfigChange, and hooks' transcript_path, on a real server with a scripted model (docs/hooks.md). */
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeProject, useAgentTestEnv } from '../helpers/agent-env';
import { recordHistory, taskSteps } from '../helpers/histories';
import { waitFor } from '../helpers/child-worker';
import { agentNamed, agentOfType, bash, spawn } from '../helpers/scripted-agents';
import { projectDirName } from '../../src/transcript/claude-layout';
import { messageRecords, transcriptSession } from '../../src/transcript/records';
import { readAgentTranscript } from '../../src/transcript/export';
import { HookTranscripts } from '../../src/activities/hooks/hook-transcript';
import { requestsOf as requestsFrom } from '../helpers/model-requests';

const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'settings-reload-home-')));
const env = useAgentTestEnv({ kind: 'echo' }, { homeDir });

const project = (name: string, files: Record<string, string>): string => writeProject(env.workspace, name, files);
const settings = (value: unknown) => JSON.stringify(value, null, 2);
const commandHook = (command: string, matcher?: string) => [
  { ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command }] },
];

// Turn 1 waits in Bash until the test has changed the settings and written `go`.
const waitForGo = bash('while [ ! -f go ]; do sleep 0.1; done; echo waited');
// Refuses any Bash call that touches a file.
const refuseTouch = 'case "$(cat)" in *touch*) echo "NEW-HOOK: no touching" >&2; exit 2;; esac';
// Copies the transcript the hook was given, one snapshot per call.
const snapshotTranscript = [
  'input=$(cat)',
  `file=$(printf '%s' "$input" | sed -n 's/.*"transcript_path":"\\([^"]*\\)".*/\\1/p')`,
  'n=$(ls "$CLAUDE_PROJECT_DIR" | grep -c "^snap-")',
  'cp "$file" "$CLAUDE_PROJECT_DIR/snap-$n.jsonl"',
  'echo "$file" > "$CLAUDE_PROJECT_DIR/transcript-path.txt"',
].join('\n');

const requestsOf = (agentId: string) => requestsFrom(env.modelServer, agentId);
const lastToolResult = (agentId: string, index: number) =>
  (requestsOf(agentId)[index]!.messages.at(-1)!.content as Array<{ content: string; is_error?: boolean }>)[0]!;
const jsonLines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Starts the agent, waits for its first Bash call to wait, changes the settings, lets it go on, and returns its end. */
async function runChangingSettings(name: string, dir: string, change: () => void, turns = 2) {
  env.script(
    agentNamed(name, [
      { toolUses: [waitForGo] },
      ...(turns === 2 ? [{ toolUses: [bash('touch made.txt')] }] : []),
      { text: 'done' },
    ]),
  );
  const started = env.start({ prompt: 'go on', name, cwd: dir, permissionMode: 'bypassPermissions' });
  await waitFor(async () => requestsOf((await started).agentId).length >= 1, 60_000, 'the first model call');
  // Past the settings' own mtime granularity: a change in the same instant would look unchanged.
  await new Promise((resolve) => setTimeout(resolve, 50));
  change();
  writeFileSync(path.join(dir, 'go'), '');
  const handle = await started;
  const result = await handle.result();
  expect(result.status).toBe('completed');
  return handle;
}

const reloadMarkers = async (agentId: string) =>
  (await taskSteps(env.temporal.client, agentId)).localActivities.filter((type) => type === 'reloadSettings').length;

describe('settings re-read at turn boundaries', () => {
  it('a PreToolUse hook added to .claude/settings.json while the agent runs applies from its next turn; hooks get transcript_path', async () => {
    const dir = project('reload-adds-hook', {
      '.claude/settings.json': settings({ hooks: { PreToolUse: commandHook(snapshotTranscript, 'Bash') } }),
    });
    const handle = await runChangingSettings('reload-adds-hook', dir, () =>
      writeFileSync(
        path.join(dir, '.claude/settings.json'),
        settings({
          hooks: {
            PreToolUse: [...commandHook(snapshotTranscript, 'Bash'), ...commandHook(refuseTouch, 'Bash')],
          },
        }),
      ),
    );
    // Turn 2 ran under the new settings: the new hook refused the call.
    expect(existsSync(path.join(dir, 'made.txt'))).toBe(false);
    const refused = lastToolResult(handle.agentId, 2);
    expect(refused.is_error).toBe(true);
    expect(refused.content).toContain('NEW-HOOK: no touching');
    // One look a turn after the first, each a local activity's marker.
    expect(await reloadMarkers(handle.agentId)).toBe(2);

    // transcript_path: a file in Claude Code's layout under the runtime's home, never ~/.claude.
    const transcriptPath = readFileSync(path.join(dir, 'transcript-path.txt'), 'utf8').trim();
    expect(transcriptPath.startsWith(path.join(homeDir, '.subagents', 'transcripts', 'projects') + path.sep)).toBe(
      true,
    );
    expect(transcriptPath.endsWith('.jsonl')).toBe(true);
    expect(existsSync(path.join(homeDir, '.claude', 'projects'))).toBe(false);
    const first = jsonLines(path.join(dir, 'snap-0.jsonl'));
    const second = jsonLines(path.join(dir, 'snap-1.jsonl'));
    // At turn 1's call: the prompt and the model's tool_use; at turn 2's: the result and the next tool_use appended.
    expect(first.map((record) => record.type)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(first[0]!.message)).toContain('go on');
    expect(second.map((record) => record.type)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(second.slice(0, 2)).toEqual(first);
    expect(JSON.stringify(second[2]!.message)).toContain('waited');
    expect(JSON.stringify(second[3]!.message)).toContain('touch made.txt');
    // One chain, as Claude Code's transcripts: each record's parent is the one before.
    second.forEach((record, index) => expect(record.parentUuid).toBe(index === 0 ? null : second[index - 1]!.uuid));
    expect(new Set(second.map((record) => record.sessionId)).size).toBe(1);
    await recordHistory(env.temporal.client, handle.agentId, 'settings-reload-adds-hook');
  });

  it('a broken settings file keeps the previous settings, with a notice', async () => {
    const dir = project('reload-broken', {
      '.claude/settings.json': settings({ hooks: { PreToolUse: commandHook(refuseTouch, 'Bash') } }),
    });
    const handle = await runChangingSettings('reload-broken', dir, () =>
      writeFileSync(path.join(dir, '.claude/settings.json'), '{ "hooks": '),
    );
    // The old hook still refused turn 2's call.
    expect(existsSync(path.join(dir, 'made.txt'))).toBe(false);
    expect(lastToolResult(handle.agentId, 2).content).toContain('NEW-HOOK: no touching');
    const notices = (await handle.status()).hookNotices ?? [];
    expect(notices.join('\n')).toContain('settings changed but were not re-read, the previous ones stay');
    expect(notices.join('\n')).toContain(`${path.join(dir, '.claude/settings.json')}: not valid JSON`);
  });

  it('a ConfigChange hook sees the changed file and may refuse the change', async () => {
    const configChange = 'cat >> "$CLAUDE_PROJECT_DIR/config-change.jsonl"; echo "KEEP-THE-OLD-ONES" >&2; exit 2';
    const before = { permissions: { allow: ['Bash(echo:*)'] }, hooks: { ConfigChange: commandHook(configChange) } };
    const dir = project('reload-config-change', { '.claude/settings.json': settings(before) });
    const handle = await runChangingSettings('reload-config-change', dir, () =>
      writeFileSync(
        path.join(dir, '.claude/settings.json'),
        settings({ ...before, hooks: { ...before.hooks, PreToolUse: commandHook(refuseTouch, 'Bash') } }),
      ),
    );
    // Refused: the new PreToolUse hook never ran, so the call went through.
    expect(existsSync(path.join(dir, 'made.txt'))).toBe(true);
    const [input] = jsonLines(path.join(dir, 'config-change.jsonl'));
    expect(input).toMatchObject({
      hook_event_name: 'ConfigChange',
      source: 'project_settings',
      file_path: path.join(dir, '.claude/settings.json'),
      session_id: handle.agentId,
    });
    const notices = (await handle.status()).hookNotices ?? [];
    expect(notices.join('\n')).toContain(
      'refused by a ConfigChange hook: KEEP-THE-OLD-ONES; the previous settings stay',
    );
  });

  it("a subagent's hooks get its own transcript: <session>/subagents/agent-<id>.jsonl, a sidechain", async () => {
    const dir = project('transcript-subagent', {
      '.claude/settings.json': settings({ hooks: { PreToolUse: commandHook(snapshotTranscript, 'Bash') } }),
    });
    env.script(
      agentNamed('transcript-subagent', [
        { toolUses: [spawn('look', 'CHILD-TASK: list it', { subagent_type: 'general-purpose' })] },
        { text: 'root done' },
      ]),
      agentOfType('general-purpose', [{ toolUses: [bash('echo child-was-here')] }, { text: 'child done' }]),
    );
    const handle = await env.start({ prompt: 'delegate', name: 'transcript-subagent', cwd: dir });
    expect((await handle.result()).status).toBe('completed');
    const child = `${handle.agentId}.1`;
    const transcriptPath = readFileSync(path.join(dir, 'transcript-path.txt'), 'utf8').trim();
    const { sessionId } = transcriptSession(handle.agentId);
    expect(transcriptPath).toBe(
      path.join(
        homeDir,
        '.subagents',
        'transcripts',
        'projects',
        projectDirName(dir),
        sessionId,
        'subagents',
        `agent-${child}.jsonl`,
      ),
    );
    const records = jsonLines(path.join(dir, 'snap-0.jsonl'));
    expect(records.map((record) => [record.type, record.agentId, record.isSidechain])).toEqual([
      ['user', child, true],
      ['assistant', child, true],
    ]);
    expect(JSON.stringify(records[0]!.message)).toContain('CHILD-TASK: list it');
    expect(JSON.stringify(records[1]!.message)).toContain('echo child-was-here');
  });

  it("HookTranscripts' first write is the exporter's records; an update with nothing new or for another run leaves it", async () => {
    const dir = project('transcript-direct', { 'readme.txt': 'x\n' });
    env.script(agentNamed('transcript-direct', [{ toolUses: [bash('echo one')] }, { text: 'answered' }]));
    const handle = await env.start({ prompt: 'say it', name: 'transcript-direct', cwd: dir });
    expect((await handle.result()).status).toBe('completed');
    const client = env.temporal.client;
    const { runId } = await client.workflow.getHandle(handle.agentId).describe();
    const warnings: string[] = [];
    const transcripts = new HookTranscripts(client, {
      home: path.join(homeDir, 'direct-transcripts'),
      warn: (line) => warnings.push(line),
    });
    const target = { rootAgentId: handle.agentId, agentId: handle.agentId, runId, projectDir: dir };
    const expected = messageRecords(
      await readAgentTranscript(client, handle.agentId),
      transcriptSession(handle.agentId),
    )
      .map((record) => `${JSON.stringify(record)}\n`)
      .join('');
    const file = (await transcripts.update(target))!;
    expect(readFileSync(file, 'utf8')).toBe(expected);
    expect(expected.split('\n')).toHaveLength(5);
    await transcripts.update(target);
    expect(readFileSync(file, 'utf8')).toBe(expected);
    // A file removed meanwhile is written whole again.
    rmSync(file);
    await transcripts.update(target);
    expect(readFileSync(file, 'utf8')).toBe(expected);
    expect(warnings).toEqual([]);
    // A run the workflow does not have: the query fails, the file stays as it was, and the hook still gets it.
    expect(await transcripts.update({ ...target, runId: '00000000-0000-4000-8000-000000000000' })).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe(expected);
    expect(warnings).toHaveLength(1);
  });

  it('after a compaction the hook transcript is written whole again (with its boundary), then appended to', async () => {
    env.script(agentNamed('transcript-compact', [{ text: 'FIRST-ANSWER' }, { text: 'SECOND-ANSWER' }]));
    const handle = await env.start({
      prompt: 'FIRST-PROMPT',
      name: 'transcript-compact',
      interactive: { idleTimeoutMs: 60_000 },
    });
    const waitUntil = (what: string, predicate: (status: Awaited<ReturnType<typeof handle.status>>) => boolean) =>
      waitFor(async () => predicate(await handle.status()), 60_000, what);
    await waitUntil('the first answer', (status) => status.waitingFor === 'the next message');
    const client = env.temporal.client;
    const { runId } = await client.workflow.getHandle(handle.agentId).describe();
    const transcripts = new HookTranscripts(client, { home: path.join(homeDir, 'compact-transcripts') });
    const target = { rootAgentId: handle.agentId, agentId: handle.agentId, runId, projectDir: env.workspace };
    const file = (await transcripts.update(target))!;
    expect(jsonLines(file).map((record) => record.type)).toEqual(['user', 'assistant']);

    await handle.compact();
    await waitUntil('the compaction', (status) => (status.context?.compactions.count ?? 0) === 1);
    await transcripts.update(target);
    const compacted = jsonLines(file);
    expect(compacted.some((record) => record.subtype === 'compact_boundary')).toBe(true);
    expect(JSON.stringify(compacted.at(-1))).toContain('isCompactSummary');

    await env.client.send(handle.agentId, 'NEXT-QUESTION');
    await waitUntil('the second answer', (status) => status.latestText?.startsWith('SECOND-ANSWER') === true);
    await transcripts.update(target);
    const appended = jsonLines(file);
    expect(appended.slice(0, compacted.length)).toEqual(compacted);
    expect(appended.slice(compacted.length).map((record) => record.type)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(appended.at(-1)!.message)).toContain('SECOND-ANSWER');
    expect(appended.at(-2)!.parentUuid).toBe(compacted.at(-1)!.uuid);
    await handle.close();
    await handle.result();
  });

  it('a root whose settings configure nothing looks in its model calls: no event of its own, nothing while unchanged', async () => {
    const dir = project('reload-none', { 'readme.txt': 'no settings here\n' });
    const handle = await runChangingSettings('reload-none', dir, () =>
      writeFileSync(path.join(dir, 'unrelated.txt'), 'x'),
    );
    expect(await reloadMarkers(handle.agentId)).toBe(0);
    expect(readdirSync(dir)).toContain('made.txt');
    const { scheduled } = await taskSteps(env.temporal.client, handle.agentId);
    const looks = scheduled
      .filter((step) => step.name === 'callModel')
      .map((step) => (step.input as { settingsLook?: { knownHash?: string } }).settingsLook);
    // Turn 1 has just read the files; turn 2's look is the run's first (it learns the stamps), turn 3's knows them.
    expect(looks[0]).toBeUndefined();
    expect(looks[1]).toEqual({ cwd: dir });
    expect(looks[2]).toEqual({ cwd: dir, knownHash: expect.stringMatching(/^[\w-]{16}$/) });
  });
});
