// @slow
/** Hooks across continue-as-new (docs/hooks.md): async hooks, `once` hooks and transcript_path, on a real server with a scripted model. */
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeProject, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { agentNamed, bash } from '../helpers/scripted-agents';
import { requestsOf as requestsFrom } from '../helpers/model-requests';
import { readAgentTranscript } from '../../src/transcript/export';
import { messageRecords, transcriptSession } from '../../src/transcript/records';

const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hook-can-home-')));
const env = useAgentTestEnv({ kind: 'echo' }, { homeDir });

const project = (name: string, files: Record<string, string>): string => writeProject(env.workspace, name, files);
const settings = (hooks: Record<string, unknown>) => JSON.stringify({ hooks }, null, 2);
const requestsOf = (agentId: string) => requestsFrom(env.modelServer, agentId);
// Every tool turn is past the threshold: the agent continues as new after each one.
const everyTurn = { continueAsNewAfterEvents: 1 };

/** The agent's runs, oldest first. */
async function runIds(workflowId: string): Promise<string[]> {
  const runs: { runId: string; startTime: Date }[] = [];
  for await (const execution of env.temporal.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    runs.push({ runId: execution.runId, startTime: execution.startTime });
  return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime()).map((run) => run.runId);
}

const linesOf = (file: string): string[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

describe('hooks across continue-as-new', () => {
  it('an async hook still running when the run continues as new: its context reaches the model in the next run', async () => {
    const said = {
      systemMessage: 'ASYNC-NOTE: lint finished',
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'ASYNC-CONTEXT: 3 warnings' },
    };
    const dir = project('async-across', {
      'async.sh': [
        'cat > /dev/null; sleep 3',
        'echo finished > "$CLAUDE_PROJECT_DIR/async-done.txt"',
        `echo '${JSON.stringify(said)}'`,
      ].join('\n'),
      '.claude/settings.json': settings({
        PostToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR/async.sh"', async: true }] },
        ],
      }),
    });
    env.script(
      agentNamed('async-across', [
        { toolUses: [bash('echo one')] },
        { toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }] },
        { text: 'done' },
      ]),
    );
    const { handle, result } = await runCompleted(env, {
      prompt: 'go',
      name: 'async-across',
      cwd: dir,
      limits: everyTurn,
    });
    expect(readFileSync(path.join(dir, 'async-done.txt'), 'utf8').trim()).toBe('finished');
    expect(result.finalText).toBe('done');
    await waitFor(async () => (await runIds(handle.agentId)).length >= 3, 30_000, 'three runs in the list');
    const runs = await runIds(handle.agentId);
    // The turn did not wait for the hook: its tool result went back without it.
    const requests = requestsOf(handle.agentId);
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests[1]!.messages)).not.toContain('ASYNC-CONTEXT');
    // The first run waited for it and carried what it said: delivered in the second run, after its tool results.
    const delivered = JSON.stringify(requests[2]!.messages.at(-1));
    expect(delivered).toContain('ASYNC-CONTEXT: 3 warnings');
    expect(delivered).toContain('ASYNC-NOTE: lint finished');
    expect(delivered).toContain('async=\\"true\\"');
    const first = await env.temporal.client.workflow.getHandle(handle.agentId, runs[0]).fetchHistory();
    const hook = first.events!.find(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runHook',
    );
    const hookEnded = first.events!.find(
      (event) =>
        String(event.activityTaskCompletedEventAttributes?.scheduledEventId ?? '') === String(hook?.eventId ?? '-'),
    );
    // The hook's activity completed in the first run, before it continued as new.
    expect(hookEnded).toBeTruthy();
    expect(first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    await recordHistory(env.temporal.client, handle.agentId, 'hook-async-continue-as-new', runs[0]);
  });

  it('a once hook runs once for the whole session across two continue-as-new; a resumed root is a new session', async () => {
    const dir = project('once-across', {
      '.claude/settings.json': settings({
        SessionStart: [
          {
            hooks: [
              {
                type: 'command',
                command: 'cat > /dev/null; echo start >> "$CLAUDE_PROJECT_DIR/session.log"',
                once: true,
              },
            ],
          },
        ],
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'cat > /dev/null; echo ran >> "$CLAUDE_PROJECT_DIR/once.log"', once: true },
            ],
          },
        ],
      }),
    });
    env.script(
      agentNamed('once-across', [
        { toolUses: [bash('echo one')] },
        { toolUses: [bash('echo two')] },
        { toolUses: [bash('echo three')] },
        { text: 'done' },
        { toolUses: [bash('echo resumed')] },
        { text: 'RESUMED' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'go', name: 'once-across', cwd: dir, limits: everyTurn });
    await waitFor(async () => (await runIds(handle.agentId)).length >= 3, 30_000, 'three runs in the list');
    expect(linesOf(path.join(dir, 'once.log'))).toEqual(['ran']);
    expect(linesOf(path.join(dir, 'session.log'))).toEqual(['start']);
    // `subagents resume` (here: a message to the finished root) is Claude Code's --resume: a new session.
    const { delivered, handle: resumed } = await env.client.send(handle.agentId, 'AGAIN');
    expect(delivered).toBe('resumed');
    expect((await resumed.result()).finalText).toBe('RESUMED');
    expect(linesOf(path.join(dir, 'session.log'))).toEqual(['start', 'start']);
    expect(linesOf(path.join(dir, 'once.log'))).toEqual(['ran', 'ran']);
  });

  it("after continue-as-new, a hook's transcript_path still holds the whole conversation, as the exporter writes it", async () => {
    // Copies the transcript the hook was given, one snapshot per call.
    const snapshot = [
      'input=$(cat)',
      `file=$(printf '%s' "$input" | sed -n 's/.*"transcript_path":"\\([^"]*\\)".*/\\1/p')`,
      'n=$(ls "$CLAUDE_PROJECT_DIR" | grep -c "^snap-")',
      'cp "$file" "$CLAUDE_PROJECT_DIR/snap-$n.jsonl"',
    ].join('\n');
    const dir = project('transcript-across', {
      '.claude/settings.json': settings({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: snapshot }] }],
      }),
    });
    env.script(
      agentNamed('transcript-across', [
        { toolUses: [bash('echo FIRST-CALL')] },
        { toolUses: [bash('echo SECOND-CALL')] },
        { toolUses: [bash('echo THIRD-CALL')] },
        { text: 'done' },
      ]),
    );
    const { handle } = await runCompleted(env, {
      prompt: 'TRANSCRIPT-PROMPT',
      name: 'transcript-across',
      cwd: dir,
      limits: everyTurn,
    });
    await waitFor(async () => (await runIds(handle.agentId)).length >= 3, 30_000, 'three runs in the list');
    const client = env.temporal.client;
    const exported = messageRecords(
      await readAgentTranscript(client, handle.agentId),
      transcriptSession(handle.agentId),
    );
    const snap = (index: number) =>
      linesOf(path.join(dir, `snap-${index}.jsonl`)).map((line) => JSON.parse(line) as unknown);
    // Each turn ran in a run of its own; at turn k's first call the file holds the prompt and every message since.
    expect(snap(0)).toEqual(exported.slice(0, 2));
    expect(snap(1)).toEqual(exported.slice(0, 4));
    expect(snap(2)).toEqual(exported.slice(0, 6));
    expect(JSON.stringify(snap(2)[0])).toContain('TRANSCRIPT-PROMPT');
    expect(JSON.stringify(snap(2)[3])).toContain('SECOND-CALL');
    expect(JSON.stringify(snap(2)[5])).toContain('THIRD-CALL');
  });
});
