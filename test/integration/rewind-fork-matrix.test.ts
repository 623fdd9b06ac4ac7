// @slow
// Issue 49's fork matrix on the real server: {finished, running} × {root, depth-2 subagent} sources, each forked at
// turns 0, a middle one and its last boundary, with and without a prompt; every fork's first request is checked byte for
// byte against the source's request it branches from.
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentHandle } from '../../src/client/client';
import { treeQuery } from '../../src/shared/protocol/definitions';
import type { TurnBoundary } from '../../src/shared/rewind/turns';
import { useAgentTestEnv } from '../helpers/agent-env';
import { gitWorkspace, newFlag, until, waitForFlag } from '../helpers/rewind-workspace';
import { answeredCallsOf, answeredRequestsOf, type RequestBody } from '../helpers/model-requests';
import { agentNamed, agentPrompted, bash, spawn, type ScriptedAgent } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

/** Ids unique to this run: the dev server may outlive one run of the file. */
const run = randomUUID().slice(0, 6);

/** One fork of the matrix: the boundary, an optional prompt, and the id the fork will get. */
interface ForkCase {
  label: string;
  turn: number;
  prompt?: string;
  agentId: string;
}

/** The source being forked: where its forks go, and what it has answered if it finished. */
interface Source {
  handle: AgentHandle;
  /** Its last boundary when forked. */
  lastTurn: number;
  /** Its answer, when it has finished (its last boundary follows that answer). */
  answer?: string;
  /** In-tree forks: the parent that starts them, and the tree's root; absent: each fork is a new root. */
  tree?: { parentId: string; rootId: string };
}

/** The six forks of a source: turns 0, 1 (the middle) and the last, each without and with a prompt. */
function forkCases(prefix: string, lastTurn: number, idOf: (index: number, label: string) => string): ForkCase[] {
  const cases: ForkCase[] = [];
  for (const turn of [0, 1, lastTurn]) {
    for (const withPrompt of [false, true]) {
      const label = `${prefix}-t${turn}${withPrompt ? '-p' : ''}`;
      cases.push({
        label,
        turn,
        agentId: idOf(cases.length, label),
        ...(withPrompt ? { prompt: `PROMPT-${label.toUpperCase()}` } : {}),
      });
    }
  }
  return cases;
}

/** The forks' scenario entries: each answers once, after the turns it inherited. */
function forkScripts(cases: readonly ForkCase[]): ScriptedAgent[] {
  return cases.map((fork) => ({
    match: { agentId: fork.agentId },
    turnOffset: fork.turn,
    turns: [{ text: answerOf(fork) }],
  }));
}

const answerOf = (fork: ForkCase): string => `FORK-${fork.label.toUpperCase()}`;

const json = (value: unknown): string => JSON.stringify(value);

/** The usage the model server reported for an agent's answered request `index`. */
const usageOf = (agentId: string, index: number) => answeredCallsOf(env.modelServer, agentId)[index]?.usage;

/** Every prompt token of a request, cached or not. */
const promptTokens = (usage: ReturnType<typeof usageOf>): number =>
  (usage?.input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0);

/**
 * The cache served the whole source request the fork branches from (its turn N+1, or its last after an answer); a fork
 * without a prompt sends nothing else, so nothing is written or sent uncached.
 */
function expectCacheRead(sourceId: string, fork: ForkCase, referenceIndex: number): void {
  const usage = usageOf(fork.agentId, 0);
  expect(usage?.cache_read_input_tokens, fork.label).toBeGreaterThan(0);
  expect(usage?.cache_read_input_tokens, fork.label).toBe(promptTokens(usageOf(sourceId, referenceIndex)));
  if (fork.prompt === undefined) {
    expect(usage?.cache_creation_input_tokens, fork.label).toBe(0);
    expect(usage?.input_tokens, fork.label).toBe(0);
  }
}

/** A message as the request builder marks it without its cache breakpoint (it moves to the new last block). */
function withoutBreakpoints(message: RequestBody['messages'][number]): unknown {
  if (typeof message.content === 'string') return message;
  return {
    ...message,
    content: message.content.map(({ cache_control: _breakpoint, ...block }) => block),
  };
}

/**
 * A boundary without its `atMs`. That time is not replay-stable: when a local activity (renderAgentStart,
 * checkpointWorkspace) resolves after its workflow task was completed, the live run reads the next task's start time
 * and a replay reads the activity's recorded completion time (seen here: turn 0 up to 200 ms later live than replayed).
 */
const boundaryFacts = (boundaries: readonly TurnBoundary[]) => boundaries.map(({ atMs: _time, ...facts }) => facts);

/** Forks the source at one boundary and checks placement, the first request's bytes, the cache, the answer, the source. */
async function forkAndCheck(source: Source, fork: ForkCase): Promise<void> {
  const before = (await source.handle.turns()).boundaries;
  const sourceRequests = answeredRequestsOf(env.modelServer, source.handle.agentId);
  const forked = await source.handle.fork({
    turn: fork.turn,
    ...(fork.prompt !== undefined ? { prompt: fork.prompt } : {}),
    ...(source.tree ? {} : { agentId: fork.agentId }),
  });
  const result = await forked.handle.result();

  // Placement: a root's fork is a new root; a subagent's fork is its parent's child at depth 2.
  expect(forked.agentId, fork.label).toBe(fork.agentId);
  if (source.tree) {
    expect(forked.placement, fork.label).toBe('tree');
    expect(forked.startedBy, fork.label).toBe(source.tree.parentId);
    const tree = await env.temporal.client.workflow.getHandle(source.tree.rootId).query(treeQuery);
    const node = tree.nodes.find((entry) => entry.agentId === fork.agentId);
    expect(node?.parentAgentId, fork.label).toBe(source.tree.parentId);
    expect(node?.depth, fork.label).toBe(2);
  } else {
    expect(forked.placement, fork.label).toBe('root');
    expect(forked.startedBy, fork.label).toBeUndefined();
  }

  expect(result.status, fork.label).toBe('completed');
  const forkRequests = answeredRequestsOf(env.modelServer, fork.agentId);
  if (source.answer !== undefined && fork.turn === source.lastTurn && fork.prompt === undefined) {
    // The boundary is the source's answer: the fork ends with it and calls no model.
    expect(result.finalText, fork.label).toBe(source.answer);
    expect(forkRequests, fork.label).toHaveLength(0);
  } else {
    expect(result.finalText, fork.label).toBe(answerOf(fork));
    expect(forkRequests, fork.label).toHaveLength(1);
    expectSharedPrefix(source, fork, forkRequests[0]!, sourceRequests);
    expectCacheRead(source.handle.agentId, fork, Math.min(fork.turn, sourceRequests.length - 1));
  }

  // The source is untouched: the same boundaries (a running source is held in Bash, so it has no new one).
  expect(boundaryFacts((await source.handle.turns()).boundaries), fork.label).toEqual(boundaryFacts(before));
}

/** The fork's first request against the source's request at turn N+1 (or its last, when N is its answer). */
function expectSharedPrefix(source: Source, fork: ForkCase, first: RequestBody, sourceRequests: RequestBody[]): void {
  const next = sourceRequests[fork.turn];
  const reference = next ?? sourceRequests.at(-1)!;
  expect(json(first.system), fork.label).toBe(json(reference.system));
  expect(json(first.tools), fork.label).toBe(json(reference.tools));
  if (next && fork.prompt === undefined) {
    // It goes on as the source did: its request is the source's next one.
    expect(json(first.messages), fork.label).toBe(json(next.messages));
    return;
  }
  if (next) {
    // The prompt joins the boundary's last user message (after its tool results), which takes the breakpoint.
    expect(json(first.messages.slice(0, -1)), fork.label).toBe(json(next.messages.slice(0, -1)));
    const last = withoutBreakpoints(next.messages.at(-1)!) as { role: string; content: unknown[] };
    const promptBlock = { type: 'text', text: fork.prompt, cache_control: { type: 'ephemeral' } };
    expect(json(first.messages.at(-1)), fork.label).toBe(json({ ...last, content: [...last.content, promptBlock] }));
    return;
  }
  // After the source's answer: its last request's messages, the answer, then the prompt as a new user message.
  const count = reference.messages.length;
  expect(first.messages, fork.label).toHaveLength(count + 2);
  expect(json(first.messages.slice(0, count).map(withoutBreakpoints)), fork.label).toBe(
    json(reference.messages.map(withoutBreakpoints)),
  );
  expect(json(withoutBreakpoints(first.messages[count]!)), fork.label).toBe(
    json({ role: 'assistant', content: [{ type: 'text', text: source.answer }] }),
  );
  expect(json(first.messages[count + 1]), fork.label).toBe(
    json({ role: 'user', content: [{ type: 'text', text: fork.prompt, cache_control: { type: 'ephemeral' } }] }),
  );
}

/** No request of the source carries a fork's prompt: the forks never reached it. */
function expectNoForkPrompt(agentId: string, cases: readonly ForkCase[]): void {
  const sent = json(answeredRequestsOf(env.modelServer, agentId).map((request) => request.messages));
  for (const fork of cases) if (fork.prompt !== undefined) expect(sent).not.toContain(fork.prompt);
}

/** A source's work before its answer: two Bash turns that change nothing (so turn 1 is a middle one). */
const twoSteps = [{ toolUses: [bash('echo one')] }, { toolUses: [bash('echo two')] }];

describe('fork matrix: turns 0, middle and last, with and without a prompt', () => {
  it('forks a finished root six times: new roots sharing its prefix', async () => {
    gitWorkspace(env.workspace);
    const rootId = `${run}-fr`;
    const cases = forkCases('fr', 3, (_index, label) => `${run}-${label}`);
    // A root's fork keeps its name: the forks' entries come first.
    env.script(...forkScripts(cases), agentNamed('fr-source', [...twoSteps, { text: 'FR-DONE' }]));
    const source = await env.start({ prompt: 'finished root', name: 'fr-source', agentId: rootId });
    expect((await source.result()).finalText).toBe('FR-DONE');
    expect((await source.turns()).boundaries.map((boundary) => boundary.turn)).toEqual([0, 1, 2, 3]);
    for (const fork of cases) await forkAndCheck({ handle: source, lastTurn: 3, answer: 'FR-DONE' }, fork);
    expectNoForkPrompt(rootId, cases);
  });

  it('forks a running root six times while it waits in Bash; it then finishes as scripted', async () => {
    const flag = newFlag(env.workspace);
    const rootId = `${run}-rr`;
    const cases = forkCases('rr', 2, (_index, label) => `${run}-${label}`);
    env.script(
      ...forkScripts(cases),
      agentNamed('rr-source', [...twoSteps, { toolUses: [bash(waitForFlag(flag))] }, { text: 'RR-DONE' }]),
    );
    const source = await env.start({ prompt: 'running root', name: 'rr-source', agentId: rootId });
    // Held in its third turn's Bash: boundaries 0 to 2, its third request answered.
    await until(
      async () => ({ turns: await source.turns(), requests: answeredRequestsOf(env.modelServer, rootId).length }),
      (state) => state.turns.boundaries.length === 3 && state.requests === 3,
      'the root to wait in Bash',
    );
    const before = (await source.turns()).boundaries;
    for (const fork of cases) await forkAndCheck({ handle: source, lastTurn: 2 }, fork);
    expect((await source.describe()).status.name).toBe('RUNNING');
    writeFileSync(flag, 'go');
    const result = await source.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('RR-DONE');
    const after = (await source.turns()).boundaries;
    expect(after.map((boundary) => boundary.turn)).toEqual([0, 1, 2, 3, 4]);
    expect(boundaryFacts(after.slice(0, 3))).toEqual(boundaryFacts(before));
    expectNoForkPrompt(rootId, cases);
    rmSync(path.dirname(flag), { recursive: true, force: true });
  });

  it('forks a finished depth-2 subagent six times beside it while its parent runs, then as a new root', async () => {
    const flag = newFlag(env.workspace);
    const rootId = `${run}-fs`;
    const middleId = `${rootId}.1`;
    const leafId = `${rootId}.1.1`;
    // The parent's next child ids: the leaf is its first child.
    const cases = forkCases('fs', 3, (index) => `${middleId}.${index + 2}`);
    const afterTree: ForkCase = { label: 'fs-late-t1', turn: 1, agentId: `${run}-fs-late-t1` };
    env.script(
      ...forkScripts([...cases, afterTree]),
      agentNamed('fs-root', [{ toolUses: [spawn('middle', 'FS-MIDDLE-TASK')] }, { text: 'FS-ROOT-DONE' }]),
      agentPrompted('FS-MIDDLE-TASK', [
        { toolUses: [spawn('leaf', 'FS-LEAF-TASK')] },
        { toolUses: [bash(waitForFlag(flag))] },
        { text: 'FS-MIDDLE-DONE' },
      ]),
      agentPrompted('FS-LEAF-TASK', [...twoSteps, { text: 'FS-LEAF-DONE' }]),
    );
    const root = await env.start({ prompt: 'finished leaf', name: 'fs-root', agentId: rootId });
    const leaf = env.client.getAgent(leafId);
    const middle = env.client.getAgent(middleId);
    // The leaf exists once its parent has started it.
    const leafResult = await until(
      () => leaf.result(),
      () => true,
      'the leaf to finish',
    );
    expect(leafResult.finalText).toBe('FS-LEAF-DONE');
    // The leaf's parent is held in Bash: the forks are placed beside the leaf.
    await until(
      async () => answeredRequestsOf(env.modelServer, middleId).length,
      (count) => count === 2,
      'the middle agent to wait in Bash',
    );
    expect((await leaf.turns()).boundaries.map((boundary) => boundary.turn)).toEqual([0, 1, 2, 3]);
    const source: Source = { handle: leaf, lastTurn: 3, answer: 'FS-LEAF-DONE', tree: { parentId: middleId, rootId } };
    for (const fork of cases) await forkAndCheck(source, fork);
    writeFileSync(flag, 'go');
    expect((await middle.result()).finalText).toBe('FS-MIDDLE-DONE');
    expect((await root.result()).finalText).toBe('FS-ROOT-DONE');

    // The whole tree has finished: the leaf's fork is a new root, with a note that says why.
    const late = await leaf.fork({ turn: afterTree.turn, agentId: afterTree.agentId });
    expect(late.placement).toBe('root');
    expect(late.note).toContain(middleId);
    expect((await late.handle.result()).finalText).toBe(answerOf(afterTree));
    const lateFirst = answeredRequestsOf(env.modelServer, afterTree.agentId)[0]!;
    const leafSecond = answeredRequestsOf(env.modelServer, leafId)[1]!;
    expect(json(lateFirst.system)).toBe(json(leafSecond.system));
    expect(json(lateFirst.tools)).toBe(json(leafSecond.tools));
    expect(json(lateFirst.messages)).toBe(json(leafSecond.messages));
    expectCacheRead(leafId, afterTree, 1);
    expectNoForkPrompt(leafId, cases);
    rmSync(path.dirname(flag), { recursive: true, force: true });
  });

  it('forks a running depth-2 subagent six times beside it while its parent waits for it in the foreground', async () => {
    const flag = newFlag(env.workspace);
    const rootId = `${run}-rs`;
    const middleId = `${rootId}.1`;
    const leafId = `${rootId}.1.1`;
    const cases = forkCases('rs', 2, (index) => `${middleId}.${index + 2}`);
    env.script(
      ...forkScripts(cases),
      agentNamed('rs-root', [{ toolUses: [spawn('middle', 'RS-MIDDLE-TASK')] }, { text: 'RS-ROOT-DONE' }]),
      agentPrompted('RS-MIDDLE-TASK', [{ toolUses: [spawn('leaf', 'RS-LEAF-TASK')] }, { text: 'RS-MIDDLE-DONE' }]),
      agentPrompted('RS-LEAF-TASK', [...twoSteps, { toolUses: [bash(waitForFlag(flag))] }, { text: 'RS-LEAF-DONE' }]),
    );
    const root = await env.start({
      prompt: 'running leaf',
      name: 'rs-root',
      agentId: rootId,
      // The leaf stays in the foreground however slow the machine (its parent waits for it all along).
      limits: { autoBackgroundMs: 600_000 },
    });
    const leaf = env.client.getAgent(leafId);
    await until(
      async () => ({ turns: await leaf.turns(), requests: answeredRequestsOf(env.modelServer, leafId).length }),
      (state) => state.turns.boundaries.length === 3 && state.requests === 3,
      'the leaf to wait in Bash',
    );
    const before = (await leaf.turns()).boundaries;
    const source: Source = { handle: leaf, lastTurn: 2, tree: { parentId: middleId, rootId } };
    for (const fork of cases) await forkAndCheck(source, fork);
    expect((await leaf.describe()).status.name).toBe('RUNNING');
    writeFileSync(flag, 'go');
    expect((await leaf.result()).finalText).toBe('RS-LEAF-DONE');
    expect((await root.result()).finalText).toBe('RS-ROOT-DONE');
    const after = (await leaf.turns()).boundaries;
    expect(after.map((boundary) => boundary.turn)).toEqual([0, 1, 2, 3, 4]);
    expect(boundaryFacts(after.slice(0, 3))).toEqual(boundaryFacts(before));
    // The parent waited for its leaf, not for the forks: its answer follows the leaf's result.
    expect(json(answeredRequestsOf(env.modelServer, middleId).at(-1)!.messages)).toContain('RS-LEAF-DONE');
    expectNoForkPrompt(leafId, cases);
    rmSync(path.dirname(flag), { recursive: true, force: true });
  });
});
