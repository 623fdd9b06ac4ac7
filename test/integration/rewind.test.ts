// @slow
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { treeQuery } from '../../src/shared/protocol/definitions';
import { readAgentTranscript } from '../../src/transcript/export';
import { formatTranscripts } from '../../src/transcript/human-view';
import { turnConversationQuery } from '../../src/shared/rewind/rewind-protocol';
import { useAgentTestEnv } from '../helpers/agent-env';
import { recordHistory } from '../helpers/histories';
import { git, gitWorkspace, newFlag, until } from '../helpers/rewind-workspace';
import { rootAccount, servedToTree } from '../helpers/budget-accounts';
import { BoardClient } from '../../src/client/board-client';
import { treeBoardId } from '../../src/shared/board/board';
import { agentNamed, agentWithId, bash, spawn, spawnInBackground } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

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

describe('fork', () => {
  it('forks a finished root at turns 0, middle and last: the exact prefix, with and without a prompt, files from a worktree', async () => {
    gitWorkspace(env.workspace);
    // A root fork keeps its source's name: the forks' own entries come first (the first match wins).
    env.script(
      agentWithId('fork-mid', [{ text: 'unused' }, { text: 'FORK-MID-ANSWER' }]),
      agentWithId('fork-zero', [{ text: 'FORK-ZERO to {{last_user_text}}' }]),
      agentWithId('fork-files', [
        { text: 'unused' },
        { toolUses: [bash('cat made-by-bash.txt')] },
        { text: 'FILES-DONE' },
      ]),
      agentNamed('source', [
        { toolUses: [bash('echo one > made-by-bash.txt')] },
        { toolUses: [bash('echo two >> made-by-bash.txt')] },
        { text: 'SOURCE-DONE' },
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
    expect(git(env.workspace, 'log', '--oneline', 'main').trim().split('\n')).toHaveLength(1);
    expect(git(env.workspace, 'status', '--porcelain')).toContain('made-by-bash.txt');

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
    await recordHistory(env.temporal.client, 'fork-files', 'fork-worktree-files');
    await recordHistory(env.temporal.client, 'fork-mid', 'fork-mid-no-prompt');
  });
});

describe('rewind', () => {
  it('rewinds a running root with running children: later children stop, earlier ones run on, the tree stays consistent', async () => {
    const flag = newFlag(env.workspace);
    env.script(
      agentNamed('rewound-root', [
        {
          toolUses: [
            { name: 'TaskCreate', input: { subject: 'claimed late', description: 'claimed after turn 1' } },
            spawnInBackground('early', 'EARLY-TASK'),
          ],
        },
        {
          toolUses: [
            { name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } },
            spawnInBackground('late', 'LATE-TASK'),
          ],
        },
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
    const root = await env.start({
      prompt: 'start two children',
      name: 'rewound-root',
      limits: { budget: { caps: { tokens: 50_000_000 } } },
    });
    await until(
      () => root.turns(),
      (snapshot) => snapshot.boundaries.length >= 3,
      'turn 2',
    );
    const ack = await root.rewind({ turn: 1, prompt: 'NEW-DIRECTION' });
    expect(ack.mode).toBe('in-place');
    if (ack.mode !== 'in-place') return;
    expect(ack.ack.stoppedChildren).toEqual([`${root.agentId}.2`]);
    // The claim made after turn 1 went back to the board (the branch claims again if it wants it).
    expect(ack.ack.releasedTasks).toEqual(['1']);
    const board = await new BoardClient(env.temporal.client, env.taskQueue).snapshot(treeBoardId(root.agentId));
    expect(board.tasks.find((task) => task.id === '1')?.returnedCount).toBe(1);
    expect(ack.ack.droppedTurns).toBeGreaterThanOrEqual(1);
    const tree = await env.temporal.client.workflow.getHandle(root.agentId).query(treeQuery);
    const late = tree.nodes.find((node) => node.agentId === `${root.agentId}.2`);
    const early = tree.nodes.find((node) => node.agentId === `${root.agentId}.1`);
    expect(late?.status).not.toBe('running');
    expect(early?.status).toBe('running');
    writeFileSync(flag, 'go');
    const result = await root.result();
    expect(result.status).toBe('completed');
    // Tokens of the dropped turns and of the stopped child stay counted: the ledger equals what was served.
    const budget = await root.budget();
    expect(rootAccount(budget).subtree.tokens).toBe(servedToTree(env.modelServer, root.agentId));
    expect(rootAccount(budget).reservedTokens).toBe(0);
    // After the rewind the conversation went on from turn 1: the late child was started again, with a new id.
    const requests = requestsOf(root.agentId);
    const afterRewind = requests.find((request) => JSON.stringify(request.messages).includes('NEW-DIRECTION'))!;
    expect(afterRewind.messages).toHaveLength(3);
    expect(JSON.stringify(afterRewind.messages)).not.toContain('LATE-TASK');
    await recordHistory(env.temporal.client, root.agentId, 'rewind-in-place-root');
    rmSync(path.dirname(flag), { recursive: true, force: true });
  });

  it('restores files with --files, refuses when someone else changed them, and rewinds a finished agent in a new run', async () => {
    gitWorkspace(env.workspace);
    const flag = newFlag(env.workspace);
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
    await recordHistory(env.temporal.client, writer.agentId, 'rewind-new-run-files');
    rmSync(path.dirname(flag), { recursive: true, force: true });
  });
});

describe('rewind refusals of a running agent', () => {
  it('refuses --files while someone else changed a file, changes nothing, and the agent goes on', async () => {
    gitWorkspace(env.workspace);
    env.script(
      agentNamed('waiter', [
        { toolUses: [bash('echo one > waiter.txt')] },
        { text: 'WAITING' },
        { text: 'GOT {{last_user_text}}' },
      ]),
    );
    const agent = await env.start({ prompt: 'write and wait', name: 'waiter', interactive: { idleTimeoutMs: 60_000 } });
    await until(
      () => agent.status(),
      (status) => status.state === 'waiting',
      'the agent to wait',
    );
    writeFileSync(path.join(env.workspace, 'theirs.txt'), "not the agent's\n");
    await expect(agent.rewind({ turn: 0, files: true })).rejects.toThrow(
      /RewindRefused: .*by someone else:\n {2}added theirs\.txt/s,
    );
    expect(readFileSync(path.join(env.workspace, 'waiter.txt'), 'utf8')).toBe('one\n');
    expect((await agent.turns()).boundaries.map((boundary) => boundary.turn)).toEqual([0, 1, 2]);
    rmSync(path.join(env.workspace, 'theirs.txt'));
    await env.client.send(agent.agentId, 'STILL-HERE');
    // The agent was not stuck by the refused update: the message reaches its next model call.
    await until(
      async () => requestsOf(agent.agentId),
      (requests) => requests.some((request) => JSON.stringify(request.messages).includes('STILL-HERE')),
      'the next model call',
    );
    await agent.close();
  });
});

describe('fork in the tree', () => {
  it('forks a running depth-2 subagent beside it: a child of its parent, counted by the tree; the source runs on', async () => {
    const flag = newFlag(env.workspace);
    const wait = `for i in $(seq 1 300); do test -f ${flag} && break; sleep 0.2; done`;
    env.script(
      agentNamed('tree-root', [{ toolUses: [spawn('middle', 'MIDDLE-TASK')] }, { text: 'ROOT-DONE' }]),
      { match: { userIncludes: 'FORKED-LEAF' }, turnOffset: 1, turns: [{ text: 'FORK-LEAF-DONE' }] },
      {
        match: { userIncludes: 'MIDDLE-TASK' },
        turns: [
          { toolUses: [spawnInBackground('leaf', 'LEAF-TASK')] },
          { toolUses: [bash(wait)] },
          { text: 'MIDDLE-DONE' },
          { text: 'MIDDLE-NOTIFIED' },
          { text: 'MIDDLE-NOTIFIED' },
        ],
      },
      {
        match: { userIncludes: 'LEAF-TASK' },
        turns: [{ toolUses: [bash('echo leaf > leaf.txt')] }, { toolUses: [bash(wait)] }, { text: 'LEAF-DONE' }],
      },
    );
    const root = await env.start({ prompt: 'build a tree', name: 'tree-root' });
    const leafId = `${root.agentId}.1.1`;
    const leaf = env.client.getAgent(leafId);
    await until(
      () => leaf.turns(),
      (snapshot) => snapshot.boundaries.length >= 2,
      'the leaf to finish turn 1',
    );
    const before = (await leaf.turns()).boundaries;
    const forked = await leaf.fork({ turn: 1, prompt: 'FORKED-LEAF' });
    expect(forked.placement).toBe('tree');
    expect(forked.startedBy).toBe(`${root.agentId}.1`);
    expect(forked.agentId).toBe(`${root.agentId}.1.2`);
    expect((await forked.handle.result()).finalText).toBe('FORK-LEAF-DONE');
    const tree = await env.temporal.client.workflow.getHandle(root.agentId).query(treeQuery);
    const node = tree.nodes.find((entry) => entry.agentId === forked.agentId);
    expect(node?.depth).toBe(2);
    // The fork's first request: the leaf's second request's prefix byte for byte, the prompt added to its last message.
    const leafSecond = requestsOf(leafId)[1]!;
    const forkFirst = requestsOf(forked.agentId)[0]!;
    expect(JSON.stringify(forkFirst.system)).toBe(JSON.stringify(leafSecond.system));
    expect(JSON.stringify(forkFirst.tools)).toBe(JSON.stringify(leafSecond.tools));
    expect(JSON.stringify(forkFirst.messages.slice(0, -1))).toBe(JSON.stringify(leafSecond.messages.slice(0, -1)));
    expect(JSON.stringify(forkFirst.messages.at(-1))).toContain('FORKED-LEAF');
    // The source was not touched by the fork.
    expect((await leaf.turns()).boundaries.slice(0, before.length)).toEqual(before);
    writeFileSync(flag, 'go');
    expect((await root.result()).status).toBe('completed');
    expect((await leaf.result()).finalText).toBe('LEAF-DONE');
    rmSync(path.dirname(flag), { recursive: true, force: true });
  });

  it('refuses bad forks and rewinds with a clear message, changing nothing', async () => {
    env.script(agentNamed('short', [{ text: 'SHORT-DONE' }]));
    const agent = await env.start({ prompt: 'short task', name: 'short' });
    await agent.result();
    await expect(agent.fork({ turn: 5 })).rejects.toThrow(/turns 0 to 1; there is no turn 5/);
    await expect(agent.fork({ turn: -1 })).rejects.toThrow(/whole number/);
    await expect(agent.rewind({ turn: 9 })).rejects.toThrow(/there is no turn 9/);
    await expect(agent.fork({ turn: 0, cwd: '/definitely/not/here' })).rejects.toThrow(/does not exist/);
    await expect(env.client.getAgent('no-such-agent').fork({ turn: 0 })).rejects.toThrow(/No agent "no-such-agent"/);
    // Hostile update inputs are refused at the boundary.
    const workflow = env.temporal.client.workflow.getHandle(agent.agentId);
    await expect(workflow.query(turnConversationQuery, { turn: 'x' } as never)).rejects.toThrow(
      /Invalid turnConversation/,
    );
  });
});

describe('the Rewind tool', () => {
  it('is off by default, and when given, takes the agent back to an earlier turn with its files', async () => {
    gitWorkspace(env.workspace);
    const flag = newFlag(env.workspace);
    env.script(
      { match: { agentName: 'rewinder', userIncludes: 'NOTE-X' }, turnOffset: 1, turns: [{ text: 'AFTER-REWIND' }] },
      agentNamed('rewinder', [
        { toolUses: [bash('echo a > tool-f.txt')] },
        { toolUses: [bash(`echo b > tool-f.txt; echo c > tool-g.txt; touch ${flag}`)] },
        { toolUses: [{ name: 'Rewind', input: { turn: 1, files: true, note: 'NOTE-X: approach b failed' } }] },
      ]),
      agentNamed('plain', [{ text: 'PLAIN-DONE' }]),
    );
    const plain = await env.start({ prompt: 'plain', name: 'plain' });
    await plain.result();
    const offered = requestsOf(plain.agentId)[0]!.tools as { name: string }[];
    expect(offered.map((tool) => tool.name)).not.toContain('Rewind');

    const agent = await env.start({
      prompt: 'try two approaches',
      name: 'rewinder',
      tools: ['Bash', 'Read', 'Rewind'],
    });
    const result = await agent.result();
    expect(result.finalText).toBe('AFTER-REWIND');
    expect(readFileSync(path.join(env.workspace, 'tool-f.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(path.join(env.workspace, 'tool-g.txt'))).toBe(false);
    const last = requestsOf(agent.agentId).at(-1)!;
    expect(last.messages).toHaveLength(3);
    expect(JSON.stringify(last.messages)).toContain('NOTE-X: approach b failed');
    expect(JSON.stringify(last.messages)).not.toContain('tool-g.txt');
    await recordHistory(env.temporal.client, agent.agentId, 'rewind-tool');
    rmSync(path.dirname(flag), { recursive: true, force: true });
  });
});

describe('the transcript of a rewind to an earlier run', () => {
  it('shows each message once and marks the rewind, when the turn is held by a run before a continue-as-new', async () => {
    await env.writeFiles({ 'notes.txt': 'some notes\n' });
    const read = { name: 'Read', input: { file_path: 'notes.txt' } };
    env.script(
      {
        match: { agentName: 'across', userIncludes: 'AGAIN-FROM-ONE' },
        turnOffset: 1,
        turns: [{ text: 'SECOND-DONE' }],
      },
      agentNamed('across', [...Array.from({ length: 6 }, () => ({ toolUses: [read] })), { text: 'FIRST-DONE' }]),
    );
    const agent = await env.start({
      prompt: 'read across runs',
      name: 'across',
      interactive: { idleTimeoutMs: 60_000 },
      // Low enough that turn 1 is held by the first run when the agent waits (about 6 events a turn).
      limits: { continueAsNewAfterEvents: 30 },
    });
    await until(
      () => agent.status(),
      (status) => status.state === 'waiting',
      'the agent to wait',
    );
    const boundaries = (await agent.turns()).boundaries;
    const description = await env.temporal.client.workflow.getHandle(agent.agentId).describe();
    expect(boundaries.find((boundary) => boundary.turn === 1)!.runId).not.toBe(description.runId);
    const outcome = await agent.rewind({ turn: 1, prompt: 'AGAIN-FROM-ONE' });
    expect(outcome.mode).toBe('in-place');
    await until(
      async () => requestsOf(agent.agentId),
      (requests) => requests.some((request) => JSON.stringify(request.messages).includes('AGAIN-FROM-ONE')),
      'the call after the rewind',
    );
    const transcript = await until(
      () => readAgentTranscript(env.temporal.client, agent.agentId),
      (read) => read.messages.some(({ message }) => JSON.stringify(message).includes('SECOND-DONE')),
      'the answer after the rewind in the transcript',
    );
    expect(transcript.runIds.length).toBeGreaterThanOrEqual(2);
    const texts = transcript.messages.map(({ message }) => JSON.stringify(message));
    expect(texts.filter((text, index) => texts.indexOf(text) !== index)).toEqual([]);
    expect(texts.filter((text) => text.includes('read across runs'))).toHaveLength(1);
    // The rewind is marked after the answer it left (FIRST-DONE); the new branch follows it.
    expect(transcript.rewinds).toHaveLength(1);
    const rewind = transcript.rewinds![0]!;
    expect(rewind).toMatchObject({ turn: 1, by: 'user' });
    expect(texts[rewind.afterIndex]).toContain('FIRST-DONE');
    expect(texts.slice(rewind.afterIndex + 1).join('\n')).toContain('AGAIN-FROM-ONE');
    const lines = formatTranscripts([transcript]).split('\n');
    const mark = lines.findIndex((line) => line.startsWith('── rewound to turn 1 by user'));
    expect(mark).toBeGreaterThan(0);
    expect(lines.slice(mark + 1).join('\n')).toContain('SECOND-DONE');
    await agent.close();
    await agent.result();
    await recordHistory(env.temporal.client, agent.agentId, 'rewind-in-place-earlier-run');
  });
});
