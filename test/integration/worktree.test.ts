// @slow
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubagentsClient } from '../../src/client/client';
import { createAgentTestEnv, type AgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { answeredCallsOf } from '../helpers/model-requests';
import { startChildWorker, waitFor, type ChildWorker } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { agentNamed, agentPrompted, spawn } from '../helpers/scripted-agents';

let env: AgentTestEnv;
const childWorkers: ChildWorker[] = [];

beforeAll(async () => {
  env = await createAgentTestEnv({ kind: 'echo' });
  const git = simpleGit(env.workspace);
  await git.init();
  await git.addConfig('user.name', 'Test');
  await git.addConfig('user.email', 'test@example.com');
  writeFileSync(path.join(env.workspace, 'shared.txt'), 'version: original\n');
  await git.add('.');
  await git.commit('initial');
});
afterAll(async () => {
  for (const worker of childWorkers) await worker.kill();
  await env?.close();
});

type Block = { type: string; text?: string; content?: unknown; is_error?: boolean };

function text(block: Block | undefined): string {
  if (!block) return '';
  return typeof block.content === 'string' ? block.content : (block.text ?? JSON.stringify(block.content));
}

function lastToolResults(agentId: string, index: number): Block[] {
  const bodies = answeredCallsOf(env.modelServer, agentId).map(
    (request) => JSON.parse(request.rawBody) as { messages: { content: Block[] | string }[] },
  );
  const last = bodies[index]!.messages[bodies[index]!.messages.length - 1]!;
  return typeof last.content === 'string' ? [] : last.content.filter((block) => block.type === 'tool_result');
}

async function subagentBranches(): Promise<string[]> {
  return (await simpleGit(env.workspace).branchLocal()).all.filter((branch) => branch.startsWith('subagents/'));
}

async function worktreePaths(): Promise<string[]> {
  const list = await simpleGit(env.workspace).raw(['worktree', 'list', '--porcelain']);
  return list
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));
}

describe('worktree isolation', () => {
  it('runs two children in parallel worktrees editing the same file; each result names its branch', async () => {
    env.script(
      agentNamed('wt-root', [
        {
          toolUses: ['left', 'right'].map((side) =>
            spawn(`${side} editor`, `EDIT-${side}`, { subagent_type: 'general-purpose', isolation: 'worktree' }),
          ),
        },
        { text: 'both edited' },
      ]),
      ...['left', 'right'].map((side) =>
        agentPrompted(`EDIT-${side}`, [
          { toolUses: [{ name: 'Read', input: { file_path: 'shared.txt' } }] },
          {
            toolUses: [{ name: 'Edit', input: { file_path: 'shared.txt', old_string: 'original', new_string: side } }],
          },
          { text: `${side} done: {{last_tool_result}}` },
        ]),
      ),
    );
    const { handle } = await runCompleted(env, { prompt: 'parallel worktrees', name: 'wt-root' });
    const results = lastToolResults(handle.agentId, 1);
    expect(results).toHaveLength(2);
    for (const [index, side] of ['left', 'right'].entries()) {
      const childId = `${handle.agentId}.${index + 1}`;
      expect(text(results[index])).toContain(`Worktree kept:`);
      expect(text(results[index])).toContain(`(branch subagents/${childId})`);
      expect(text(results[index])).toContain('Changed files: shared.txt');
      const worktree = (await worktreePaths()).find((candidate) => candidate.endsWith(childId))!;
      expect(readFileSync(path.join(worktree, 'shared.txt'), 'utf8')).toBe(`version: ${side}\n`);
    }
    // The main checkout is untouched.
    expect(readFileSync(path.join(env.workspace, 'shared.txt'), 'utf8')).toBe('version: original\n');
    expect((await simpleGit(env.workspace).status()).isClean()).toBe(true);
    await recordHistory(env.temporal.client, `${handle.agentId}.1`, 'worktree-kept-child');
  });

  it('leaves nothing behind for an unchanged child', async () => {
    const before = await subagentBranches();
    env.script(
      agentNamed('wt-clean-root', [
        {
          toolUses: [spawn('reader', 'ONLY-READ', { subagent_type: 'general-purpose', isolation: 'worktree' })],
        },
        { text: 'read only' },
      ]),
      agentPrompted('ONLY-READ', [
        { toolUses: [{ name: 'Read', input: { file_path: 'shared.txt' } }] },
        { text: 'nothing changed' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'clean worktree', name: 'wt-clean-root' });
    const childId = `${handle.agentId}.1`;
    expect(text(lastToolResults(handle.agentId, 1)[0])).not.toContain('Worktree kept');
    expect(await subagentBranches()).toEqual(before);
    expect((await worktreePaths()).some((candidate) => candidate.endsWith(childId))).toBe(false);
    expect((await env.client.getAgent(childId).status()).result?.worktree).toMatchObject({
      kept: false,
      branch: `subagents/${childId}`,
    });
  });

  it("tells a fork in a worktree that inherited paths are the parent's, and makes it re-read before editing", async () => {
    env.script(
      agentNamed('wt-fork-root', [
        { toolUses: [{ name: 'Read', input: { file_path: 'shared.txt' } }] },
        {
          toolUses: [spawn('fork in worktree', 'FORK-WT', { isolation: 'worktree', run_in_background: false })],
        },
        { text: 'fork done' },
      ]),
      {
        match: { userIncludes: 'Your directive: ' },
        turnOffset: 2,
        turns: [
          {
            toolUses: [
              { name: 'Edit', input: { file_path: 'shared.txt', old_string: 'original', new_string: 'forked' } },
            ],
          },
          { toolUses: [{ name: 'Read', input: { file_path: 'shared.txt' } }] },
          {
            toolUses: [
              { name: 'Edit', input: { file_path: 'shared.txt', old_string: 'original', new_string: 'forked' } },
            ],
          },
          { text: 'Scope: edited after re-reading' },
        ],
      },
    );
    const { handle } = await runCompleted(env, {
      prompt: 'fork in worktree',
      name: 'wt-fork-root',
      limits: { forking: true },
    });
    const childId = `${handle.agentId}.1`;
    const first = env.modelServer
      .requests()
      .find((request) => request.status === 200 && request.headers['x-subagents-agent-id'] === childId)!;
    expect(first.rawBody).toContain("Paths in the conversation above refer to the parent's checkout");
    expect(first.rawBody).toContain(`${env.workspace} corresponds to`);
    const refused = lastToolResults(childId, 1)[0]!;
    expect(refused.is_error).toBe(true);
    expect(lastToolResults(childId, 3)[0]!.is_error).toBeFalsy();
    expect(readFileSync(path.join(env.workspace, 'shared.txt'), 'utf8')).toBe('version: original\n');
  });

  it('cleans up when the child is stopped mid-run', async () => {
    env.script(
      agentNamed('wt-stop-root', [
        {
          toolUses: [spawn('looper', 'LOOP-IN-WORKTREE', { subagent_type: 'general-purpose', isolation: 'worktree' })],
        },
      ]),
      {
        match: { userIncludes: 'LOOP-IN-WORKTREE' },
        turns: Array.from({ length: 50 }, () => ({
          toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }],
          delayMs: 200,
        })),
      },
    );
    const handle = await env.start({ prompt: 'stop in worktree', name: 'wt-stop-root' });
    const childId = `${handle.agentId}.1`;
    await waitFor(
      async () => (await worktreePaths()).some((candidate) => candidate.endsWith(childId)),
      30_000,
      'the worktree',
    );
    await handle.stop({ by: 'tester', reason: 'stop mid-run' });
    await expect(handle.result()).rejects.toThrow();
    await waitFor(
      async () => !(await worktreePaths()).some((candidate) => candidate.endsWith(childId)),
      30_000,
      'the worktree to be removed',
    );
    expect(await subagentBranches()).not.toContain(`subagents/${childId}`);
  });

  it('cleans up after a worker SIGKILL during the run, once a new worker resumes it', async () => {
    const taskQueue = `${env.taskQueue}-crash`;
    env.script(
      agentNamed('wt-crash-root', [
        {
          toolUses: [spawn('slow', 'SLOW-IN-WORKTREE', { subagent_type: 'general-purpose', isolation: 'worktree' })],
        },
        { text: 'crash survived' },
      ]),
      agentPrompted('SLOW-IN-WORKTREE', [
        ...Array.from({ length: 8 }, () => ({
          toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }],
          delayMs: 300,
        })),
        { text: 'slow done' },
      ]),
    );
    childWorkers.push(await startChildWorker({ taskQueue, modelBaseUrl: env.modelServer.url }));
    const client = new SubagentsClient(env.temporal.client, taskQueue);
    const handle = await client.startAgent({
      prompt: 'crash in worktree',
      name: 'wt-crash-root',
      cwd: env.workspace,
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions',
      limits: { forking: false },
    });
    const childId = `${handle.agentId}.1`;
    await waitFor(
      async () => (await worktreePaths()).some((candidate) => candidate.endsWith(childId)),
      30_000,
      'the worktree',
    );
    await childWorkers[0]!.kill('SIGKILL');
    childWorkers.push(await startChildWorker({ taskQueue, modelBaseUrl: env.modelServer.url }));
    expect((await handle.result()).finalText).toBe('crash survived');
    expect((await worktreePaths()).some((candidate) => candidate.endsWith(childId))).toBe(false);
    expect(await subagentBranches()).not.toContain(`subagents/${childId}`);
    expect(existsSync(path.join(env.workspace, '.subagents'))).toBe(true);
    expect((await simpleGit(env.workspace).status()).isClean()).toBe(true);
  });

  it(
    'keeps a steer that arrives while the agent is ending (its worktree cleanup waits on git) as undelivered',
    { timeout: 180_000 },
    async () => {
      env.script(
        agentNamed('wt-late-root', [
          {
            toolUses: [spawn('late', 'LATE-STEER-CHILD', { subagent_type: 'general-purpose', isolation: 'worktree' })],
          },
          { text: 'root done' },
        ]),
        agentPrompted('LATE-STEER-CHILD', [{ text: 'child done', delayMs: 1000 }]),
      );
      // While the marker exists, deleting a subagent branch (the cleanup's last step) waits in git's reference-transaction hook.
      const marker = path.join(path.dirname(env.workspace), `${path.basename(env.workspace)}-hold-refs`);
      const hook = path.join(env.workspace, '.git', 'hooks', 'reference-transaction');
      const zero = '0'.repeat(40);
      writeFileSync(
        hook,
        [
          '#!/bin/sh',
          '[ "$1" = prepared ] || exit 0',
          'while read old new ref; do',
          `  if [ "$new" = ${zero} ] && [ "\${ref#refs/heads/subagents/}" != "$ref" ]; then`,
          `    while [ -f '${marker}' ]; do sleep 0.1; done`,
          '  fi',
          'done',
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
      writeFileSync(marker, '');
      try {
        const handle = await env.start({ prompt: 'late steer', name: 'wt-late-root' });
        const childId = `${handle.agentId}.1`;
        const child = env.client.getAgent(childId);
        await waitFor(
          async () => (await child.status().catch(() => undefined))?.state === 'finished',
          90_000,
          'the child to finish its turn',
        );
        expect((await child.describe()).status.name).toBe('RUNNING');
        await env.temporal.client.workflow
          .getHandle(childId)
          .signal('steerSignal', { text: 'LATE-STEER', by: 'tester' });
        await waitFor(async () => (await child.status()).rejectedInputs.count === 0, 5000, 'the signal to be handled');
        rmSync(marker, { force: true });
        expect((await handle.result()).status).toBe('completed');
        const childResult = (await child.status()).result!;
        expect(childResult.undelivered).toEqual(['LATE-STEER']);
        expect(await subagentBranches()).not.toContain(`subagents/${childId}`);
      } finally {
        rmSync(marker, { force: true });
        rmSync(hook, { force: true });
      }
    },
  );
});
