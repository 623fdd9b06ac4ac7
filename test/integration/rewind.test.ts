// @slow
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { treeQuery } from '../../src/shared/protocol/definitions';
import { useAgentTestEnv } from '../helpers/agent-env';
import { agentNamed, agentWithId, bash, spawnInBackground } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

function git(...args: string[]): string {
  return execFileSync('git', args, {
    cwd: env.workspace,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
}

function initRepository(): void {
  if (existsSync(path.join(env.workspace, '.git'))) return;
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(env.workspace, 'README.md'), 'base\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
}

/** The bodies of an agent's successful model requests, in order. */
function requestsOf(agentId: string): { system: unknown; tools: unknown; messages: unknown[] }[] {
  return env.modelServer
    .requests()
    .filter((request) => request.status === 200 && request.headers['x-subagents-agent-id'] === agentId)
    .map((request) => JSON.parse(request.rawBody) as { system: unknown; tools: unknown; messages: unknown[] });
}

function usagesOf(agentId: string) {
  return env.modelServer
    .requests()
    .filter((request) => request.status === 200 && request.headers['x-subagents-agent-id'] === agentId)
    .map((request) => request.usage);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('fork', () => {
  it('forks a finished root at turns 0, middle and last: the exact prefix, with and without a prompt, files from a worktree', async () => {
    initRepository();
    env.script(
      agentNamed('source', [
        { toolUses: [bash('echo one > made-by-bash.txt')] },
        { toolUses: [bash('echo two >> made-by-bash.txt')] },
        { text: 'SOURCE-DONE' },
      ]),
      agentWithId('fork-mid', [{ text: 'unused' }, { text: 'FORK-MID-ANSWER' }]),
      agentWithId('fork-zero', [{ text: 'FORK-ZERO to {{last_user_text}}' }]),
      agentWithId('fork-files', [
        { text: 'unused' },
        { toolUses: [bash('cat made-by-bash.txt')] },
        { text: 'FILES-DONE' },
      ]),
    );
    const source = await env.start({ prompt: 'make files', name: 'source' });
    expect((await source.result()).finalText).toBe('SOURCE-DONE');
    const turns = await source.turns();
    expect(turns.boundaries.map((boundary) => boundary.turn)).toEqual([0, 1, 2, 3]);
    expect(turns.writesFiles).toBe(true);
    // Turn 0 (the opening) and the two turns whose Bash changed files have a checkpoint; the answer's turn none.
    expect(turns.boundaries.map((boundary) => boundary.checkpoint !== undefined)).toEqual([true, true, true, false]);
    expect(turns.boundaries[1]!.checkpoint!.changed).toEqual(['made-by-bash.txt']);
    // Never a commit on the user's branches.
    expect(git('log', '--oneline', 'main').trim().split('\n')).toHaveLength(1);
    expect(git('status', '--porcelain')).toContain('made-by-bash.txt');

    // Middle, no prompt: the fork's first request is the source's second request, byte for byte.
    const mid = await source.fork({ turn: 1, agentId: 'fork-mid' });
    expect(mid.placement).toBe('root');
    expect((await mid.handle.result()).finalText).toBe('FORK-MID-ANSWER');
    const sourceRequests = requestsOf(source.agentId);
    const forkRequests = requestsOf('fork-mid');
    expect(JSON.stringify(forkRequests[0]!.system)).toBe(JSON.stringify(sourceRequests[1]!.system));
    expect(JSON.stringify(forkRequests[0]!.tools)).toBe(JSON.stringify(sourceRequests[1]!.tools));
    expect(JSON.stringify(forkRequests[0]!.messages)).toBe(JSON.stringify(sourceRequests[1]!.messages));
    expect(usagesOf('fork-mid')[0]!.cache_read_input_tokens).toBeGreaterThan(0);
    // The source is untouched.
    expect((await source.turns()).boundaries).toHaveLength(4);

    // Turn 0 with a prompt: the opening plus the new prompt.
    const zero = await source.fork({ turn: 0, agentId: 'fork-zero', prompt: 'ZERO-PROMPT' });
    expect((await zero.handle.result()).finalText).toContain('ZERO-PROMPT');
    const zeroFirst = requestsOf('fork-zero')[0]!;
    expect(zeroFirst.messages).toHaveLength(1);
    expect(JSON.stringify(zeroFirst.messages)).toContain('make files');

    // The last turn, no prompt: the answer was already given; the fork ends with it and calls no model.
    const last = await source.fork({ turn: 3, agentId: 'fork-last' });
    const lastResult = await last.handle.result();
    expect(lastResult.status).toBe('completed');
    expect(lastResult.finalText).toBe('SOURCE-DONE');
    expect(requestsOf('fork-last')).toHaveLength(0);

    // With a worktree: the files as of turn 1, including the one Bash made (and not turn 2's line).
    const files = await source.fork({ turn: 1, agentId: 'fork-files', worktree: true });
    const filesResult = await files.handle.result();
    expect(filesResult.finalText).toBe('FILES-DONE');
    const catResult = JSON.stringify(requestsOf('fork-files')[1]!.messages.at(-1));
    expect(catResult).toContain('one');
    expect(catResult).not.toContain('two');
    expect(readFileSync(path.join(env.workspace, 'made-by-bash.txt'), 'utf8')).toBe('one\ntwo\n');
  });
});

describe('rewind', () => {
  it('rewinds a running root with running children: later children stop, earlier ones run on, the tree stays consistent', async () => {
    const flag = path.join(mkdtempSync(path.join(os.tmpdir(), 'rewind-flag-')), 'flag');
    env.script(
      agentNamed('rewound-root', [
        { toolUses: [spawnInBackground('early', 'EARLY-TASK')] },
        { toolUses: [spawnInBackground('late', 'LATE-TASK')] },
        { toolUses: [bash(`for i in $(seq 1 100); do test -f ${flag} && break; sleep 0.2; done`)] },
        { text: 'ROOT-DONE' },
        { text: 'ROOT-NOTIFIED' },
        { text: 'ROOT-NOTIFIED' },
        { text: 'ROOT-NOTIFIED' },
      ]),
      {
        match: { userIncludes: 'EARLY-TASK' },
        turns: [
          { toolUses: [bash(`for i in $(seq 1 150); do test -f ${flag} && break; sleep 0.2; done`)] },
          { text: 'EARLY-DONE' },
        ],
      },
      {
        match: { userIncludes: 'LATE-TASK' },
        turns: [
          { toolUses: [bash(`for i in $(seq 1 300); do test -f ${flag} && break; sleep 0.2; done`)] },
          { text: 'LATE-DONE' },
        ],
      },
    );
    const root = await env.start({ prompt: 'start two children', name: 'rewound-root' });
    await until(
      () => root.turns(),
      (snapshot) => snapshot.boundaries.length >= 3,
      'turn 2',
    );
    const ack = await root.rewind({ turn: 1, prompt: 'NEW-DIRECTION' });
    expect(ack.mode).toBe('in-place');
    if (ack.mode !== 'in-place') return;
    expect(ack.ack.stoppedChildren).toEqual([`${root.agentId}.2`]);
    expect(ack.ack.droppedTurns).toBeGreaterThanOrEqual(1);
    const tree = await env.temporal.client.workflow.getHandle(root.agentId).query(treeQuery);
    const late = tree.nodes.find((node) => node.agentId === `${root.agentId}.2`);
    const early = tree.nodes.find((node) => node.agentId === `${root.agentId}.1`);
    expect(late?.status).not.toBe('running');
    expect(early?.status).toBe('running');
    writeFileSync(flag, 'go');
    const result = await root.result();
    expect(result.status).toBe('completed');
    // After the rewind the conversation went on from turn 1: the late child was started again, with a new id.
    const requests = requestsOf(root.agentId);
    const afterRewind = requests.find((request) => JSON.stringify(request.messages).includes('NEW-DIRECTION'))!;
    expect(afterRewind.messages).toHaveLength(3);
    expect(JSON.stringify(afterRewind.messages)).not.toContain('LATE-TASK');
    rmSync(path.dirname(flag), { recursive: true, force: true });
  });

  it('restores files with --files, refuses when someone else changed them, and rewinds a finished agent in a new run', async () => {
    initRepository();
    const flag = path.join(mkdtempSync(path.join(os.tmpdir(), 'rewind-flag-')), 'flag');
    env.script(
      agentNamed('file-writer', [
        { toolUses: [bash('echo a > f.txt')] },
        { toolUses: [bash(`test -f ${flag} || { echo b > f.txt; echo x > g.txt; }`)] },
        { text: 'WRITER-DONE {{last_user_text}}' },
      ]),
    );
    const writer = await env.start({ prompt: 'write files', name: 'file-writer' });
    expect((await writer.result()).finalText).toContain('WRITER-DONE');
    expect(readFileSync(path.join(env.workspace, 'g.txt'), 'utf8')).toBe('x\n');
    writeFileSync(path.join(env.workspace, 'someone-else.txt'), 'mine\n');
    await expect(writer.rewind({ turn: 1, files: true })).rejects.toThrow(/someone-else\.txt/);
    expect(existsSync(path.join(env.workspace, 'g.txt'))).toBe(true);
    rmSync(path.join(env.workspace, 'someone-else.txt'));
    writeFileSync(flag, 'skip');
    const outcome = await writer.rewind({ turn: 1, files: true, prompt: 'AGAIN' });
    expect(outcome.mode).toBe('new-run');
    const result = await outcome.handle.result();
    expect(result.finalText).toContain('WRITER-DONE');
    expect(readFileSync(path.join(env.workspace, 'f.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(path.join(env.workspace, 'g.txt'))).toBe(false);
    const boundaries = (await writer.turns()).boundaries;
    expect(boundaries.map((boundary) => boundary.turn)).toEqual([0, 1, 2, 3]);
    rmSync(path.dirname(flag), { recursive: true, force: true });
  });
});
