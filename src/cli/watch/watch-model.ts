/** The live tree of `subagents watch`: what one poll saw (a frame) and the events between two frames. Pure. */
import type { AgentResult, AgentStatusSnapshot } from '../../shared/agents/agent';
import type { LiveActivity } from '../../client/live-activities';
import type { BudgetAccount, BudgetAction, BudgetSnapshot } from '../../shared/budget/budget';
import { totalTokens, type TokenUsage } from '../../shared/model/messages';
import type { TreeNode, TreeSnapshot } from '../../shared/protocol/tree';

/** One agent as the watcher shows it. */
export interface WatchNode {
  agentId: string;
  parentAgentId?: string;
  depth: number;
  agentType: string;
  name?: string;
  description?: string;
  /** Its status state while it runs; its result's status (completed, failed, cancelled, …) once it has one; "finished" when only the tree knows it ended. */
  state: string;
  turn: number;
  /** The tool it runs or is calling now. */
  currentTool?: string;
  tokens: number;
  startedAtMs: number;
  finishedAtMs?: number;
  /** The last line of its live text (the model's streamed text, or a command's output). */
  lastLine?: string;
  stalled?: boolean;
}

/** A cap reached in the tree: whose subtree, and the ledger's reason ("the tree's budget of 20,000 tokens, 19,870 used"). */
export interface BudgetReached {
  agentId: string;
  reason: string;
}

/** A capped tree's ledger as the watcher shows it. */
export interface WatchBudget {
  action: BudgetAction;
  /** The root's account: the whole tree's spending and caps. */
  tree: BudgetAccount;
  /** The caps reached, in the ledger's order. */
  reached: BudgetReached[];
}

/** What one poll saw. */
export interface WatchFrame {
  rootAgentId: string;
  /** Depth first: the root, then each child followed by its descendants. */
  nodes: WatchNode[];
  /** The tail of the root's streamed text (the current model call's). */
  rootText: string;
  /** Set for a tree with caps. */
  budget?: WatchBudget;
  result?: AgentResult;
}

/** One change between two frames, as `watch --json` prints it. */
export type WatchEvent =
  | ({ event: 'started' } & WatchNode)
  | ({ event: 'updated' } & WatchNode)
  | ({ event: 'finished' } & WatchNode)
  | ({ event: 'budget_reached' } & BudgetReached)
  | { event: 'result'; result: AgentResult };

const terminal = (state: string): boolean =>
  !['starting', 'calling_model', 'running_tools', 'waiting', 'running'].includes(state);

function tokensOf(usage: TokenUsage | undefined): number {
  return usage ? totalTokens(usage) : 0;
}

function lastLineOf(live: readonly LiveActivity[]): { line?: string; tool?: string; text?: string } {
  for (const activity of live) {
    const details = activity.details;
    if (details?.kind === 'model') {
      const lines = details.text.split('\n').filter((line) => line.trim() !== '');
      const last = lines[lines.length - 1];
      return { ...(last ? { line: last } : {}), ...(details.tool ? { tool: details.tool } : {}), text: details.text };
    }
    if (details?.kind === 'tool') {
      const last =
        details.lines?.[details.lines.length - 1] ??
        (details.filesListed !== undefined ? `${details.filesListed} files listed` : undefined);
      return { ...(last ? { line: last } : {}), tool: details.tool };
    }
  }
  return {};
}

/** What a poll read: the root's tree query and status, and each running agent's status and live activities. */
export interface PollReading {
  tree: TreeSnapshot;
  rootStatus: AgentStatusSnapshot;
  statuses: ReadonlyMap<string, AgentStatusSnapshot>;
  live: ReadonlyMap<string, readonly LiveActivity[]>;
  /** Results of finished agents whose status query went unanswered (read from the server, no worker needed). */
  results?: ReadonlyMap<string, AgentResult>;
  /** The tree's ledger, read when the tree has caps. */
  budget?: BudgetSnapshot;
}

/** The watcher's view of a ledger; undefined without the root's account. */
function watchBudgetOf(snapshot: BudgetSnapshot): WatchBudget | undefined {
  const tree = snapshot.accounts.find((account) => account.agentId === snapshot.rootAgentId);
  if (!tree) return undefined;
  const reached = snapshot.accounts.flatMap((account) =>
    account.exhausted ? [{ agentId: account.agentId, reason: account.exhausted }] : [],
  );
  return { action: snapshot.action, tree, reached };
}

function nodeOf(
  base: Pick<
    WatchNode,
    'agentId' | 'parentAgentId' | 'depth' | 'agentType' | 'name' | 'description' | 'startedAtMs' | 'finishedAtMs'
  >,
  status: AgentStatusSnapshot | undefined,
  live: readonly LiveActivity[],
  previous: WatchNode | undefined,
  ended: boolean,
  result?: AgentResult,
): WatchNode {
  const liveLine = lastLineOf(live);
  const final = status?.result ?? result;
  const state =
    final?.status ??
    (ended
      ? previous && terminal(previous.state)
        ? previous.state
        : 'finished'
      : (status?.state ?? previous?.state ?? 'starting'));
  const currentTool = terminal(state) ? undefined : (liveLine.tool ?? status?.currentTools[0]);
  const lastLine = liveLine.line ?? previous?.lastLine;
  const node: WatchNode = {
    ...(Object.fromEntries(Object.entries(base).filter(([, value]) => value !== undefined)) as typeof base),
    state,
    turn: status?.turn ?? previous?.turn ?? 0,
    tokens: status
      ? tokensOf(status.result?.usage ?? status.usage)
      : final
        ? tokensOf(final.usage)
        : (previous?.tokens ?? 0),
  };
  if (currentTool) node.currentTool = currentTool;
  if (lastLine) node.lastLine = lastLine;
  if (status?.stalled && !terminal(state)) node.stalled = true;
  return node;
}

/** The tree's agents a poll reads: the running ones, and finished ones whose ending the watcher has not shown yet. */
export function nodesToRead(tree: TreeSnapshot, previous: WatchFrame | undefined): TreeNode[] {
  const shownEnded = new Set(previous?.nodes.filter((seen) => terminal(seen.state)).map((seen) => seen.agentId));
  return tree.nodes.filter((node) => node.status === 'running' || !shownEnded.has(node.agentId));
}

/** Builds the frame of one poll; `previous` keeps what a finished agent no longer reports (its tokens, its last line). */
export function buildFrame(reading: PollReading, previous?: WatchFrame): WatchFrame {
  const before = new Map(previous?.nodes.map((node) => [node.agentId, node]));
  const { tree, rootStatus } = reading;
  const rootLive = reading.live.get(tree.rootAgentId) ?? [];
  const root = nodeOf(
    {
      agentId: tree.rootAgentId,
      depth: 0,
      agentType: rootStatus.agentType,
      name: rootStatus.name,
      description: rootStatus.description,
      startedAtMs: rootStatus.startedAtMs,
      // An ended root's elapsed time is its run's, not the time since it started.
      ...(rootStatus.result ? { finishedAtMs: rootStatus.startedAtMs + rootStatus.result.durationMs } : {}),
    },
    rootStatus,
    rootLive,
    before.get(tree.rootAgentId),
    rootStatus.result !== undefined,
  );
  const children = new Map<string, TreeNode[]>();
  for (const node of tree.nodes)
    children.set(node.parentAgentId ?? tree.rootAgentId, [
      ...(children.get(node.parentAgentId ?? tree.rootAgentId) ?? []),
      node,
    ]);
  const nodes: WatchNode[] = [root];
  const visit = (parentId: string): void => {
    for (const node of (children.get(parentId) ?? []).sort((left, right) => left.startedAtMs - right.startedAtMs)) {
      nodes.push(
        nodeOf(
          {
            agentId: node.agentId,
            parentAgentId: node.parentAgentId,
            depth: node.depth,
            agentType: node.agentType,
            name: node.name,
            description: node.description,
            startedAtMs: node.startedAtMs,
            finishedAtMs: node.finishedAtMs,
          },
          reading.statuses.get(node.agentId),
          reading.live.get(node.agentId) ?? [],
          before.get(node.agentId),
          node.status === 'finished',
          reading.results?.get(node.agentId),
        ),
      );
      visit(node.agentId);
    }
  };
  visit(tree.rootAgentId);
  // A poll whose ledger query went unanswered keeps what the last one read.
  const budget = (reading.budget ? watchBudgetOf(reading.budget) : undefined) ?? previous?.budget;
  return {
    rootAgentId: tree.rootAgentId,
    nodes,
    rootText: lastLineOf(rootLive).text ?? '',
    ...(budget ? { budget } : {}),
    ...(rootStatus.result ? { result: rootStatus.result } : {}),
  };
}

const sameShown = (left: WatchNode, right: WatchNode): boolean => JSON.stringify(left) === JSON.stringify(right);

/** The events from `previous` to `next`: appeared, changed, caps reached, finished (root last), the root's result. */
export function frameEvents(previous: WatchFrame | undefined, next: WatchFrame): WatchEvent[] {
  const before = new Map(previous?.nodes.map((node) => [node.agentId, node]));
  const events: WatchEvent[] = [];
  const finished: WatchNode[] = [];
  for (const node of next.nodes) {
    const old = before.get(node.agentId);
    const ended = terminal(node.state) && (!old || !terminal(old.state));
    if (!old) {
      if (!ended) events.push({ event: 'started', ...node });
    } else if (!ended && !terminal(old.state) && !sameShown(old, node)) {
      // A finished agent's later details (its finish time as the tree records it) are no news.
      events.push({ event: 'updated', ...node });
    }
    if (ended) finished.push(node);
  }
  const seenReached = new Set(previous?.budget?.reached.map((reached) => `${reached.agentId}\n${reached.reason}`));
  for (const reached of next.budget?.reached ?? [])
    if (!seenReached.has(`${reached.agentId}\n${reached.reason}`)) events.push({ event: 'budget_reached', ...reached });
  const finishedAt = (node: WatchNode): number =>
    node.depth === 0 ? Number.POSITIVE_INFINITY : (node.finishedAtMs ?? Number.POSITIVE_INFINITY);
  for (const node of finished.sort((left, right) => finishedAt(left) - finishedAt(right) || right.depth - left.depth))
    events.push({ event: 'finished', ...node });
  if (next.result && !previous?.result) events.push({ event: 'result', result: next.result });
  return events;
}
