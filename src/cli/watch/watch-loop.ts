/** Polls a tree and shows it as it changes: a redrawn tree (TTY), one line per change (plain), or JSON events. */
import { createLogUpdate } from 'log-update';
import type { SubagentsClient } from '../../client/client';
import type { LiveActivity } from '../../client/live-activities';
import type { AgentResult, AgentStatusSnapshot } from '../../shared/agents/agent';
import { budgetQuery } from '../../shared/protocol/definitions';
import { budgetOfCappedTree } from '../budget-status';
import { budgetLine, budgetReachedLine, plainLine, plainNote, renderTree, type RenderOptions } from './render';
import { buildFrame, frameEvents, nodesToRead, type WatchEvent, type WatchFrame } from './watch-model';

/** How the watcher shows the tree. */
export type WatchMode = 'tree' | 'plain' | 'json';

/** Options of {@link watchTree}. */
export interface WatchOptions {
  mode: WatchMode;
  /** Where lines go (plain, json); the tree mode draws on `stream`. */
  print: (line: string) => void;
  stream?: NodeJS.WriteStream;
  /** Between polls (default 500 ms). */
  intervalMs?: number;
  /** Agent type → definition `color`. */
  colours?: ReadonlyMap<string, string>;
}

/** Polls until the root has a result, which it returns. A status query nobody answers (no worker yet) is waited out. */
export async function watchTree(
  client: SubagentsClient,
  rootAgentId: string,
  options: WatchOptions,
): Promise<AgentResult> {
  const intervalMs = options.intervalMs ?? 500;
  const stream = options.stream ?? process.stdout;
  const draw = options.mode === 'tree' ? createLogUpdate(stream, { showCursor: true }) : undefined;
  let frame: WatchFrame | undefined;
  let budgetShown: string | undefined;
  try {
    for (;;) {
      const next = await poll(client, rootAgentId, frame).catch(() => undefined);
      if (next) {
        const renderOptions: RenderOptions = {
          nowMs: Date.now(),
          styled: options.mode === 'tree',
          ...(options.colours ? { colours: options.colours } : {}),
          width: stream.columns,
        };
        const events = frameEvents(frame, next);
        if (options.mode === 'json') for (const event of events) options.print(JSON.stringify(event));
        else if (options.mode === 'plain') {
          for (const event of events) {
            if (event.event === 'budget_reached') options.print(plainNote(budgetReachedLine(event), renderOptions));
            else if (event.event !== 'result') options.print(plainLine(event, renderOptions));
          }
          // The tree's spending, when an agent started or ended or a cap was reached (not on every tick).
          const spending = next.budget ? budgetLine(next.budget, renderOptions.nowMs) : undefined;
          if (spending && spending !== budgetShown && events.some(changesTheTree)) {
            options.print(plainNote(spending, renderOptions));
            budgetShown = spending;
          }
        } else draw?.(renderTree(next, renderOptions));
        frame = next;
        if (next.result) return next.result;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  } finally {
    draw?.done();
  }
}

const changesTheTree = (event: WatchEvent): boolean =>
  event.event === 'started' ||
  event.event === 'finished' ||
  event.event === 'budget_reached' ||
  event.event === 'result';

async function poll(
  client: SubagentsClient,
  rootAgentId: string,
  previous: WatchFrame | undefined,
): Promise<WatchFrame> {
  const root = client.getAgent(rootAgentId);
  const [tree, rootStatus] = await Promise.all([root.tree(), root.status()]);
  // An uncapped tree is asked again only when agents join: a child's caps come with it, none are set later.
  const readLedger =
    previous === undefined || previous.budget !== undefined || tree.nodes.length + 1 > previous.nodes.length;
  const budget = readLedger
    ? await budgetOfCappedTree(() => client.temporal.workflow.getHandle(rootAgentId).query(budgetQuery))
    : undefined;
  const statuses = new Map<string, AgentStatusSnapshot>();
  const live = new Map<string, readonly LiveActivity[]>();
  const results = new Map<string, AgentResult>();
  if (!rootStatus.result) live.set(rootAgentId, await root.live().catch(() => []));
  await Promise.all(
    nodesToRead(tree, previous).map(async (node) => {
      const handle = client.getAgent(node.agentId);
      const status = await handle.status().catch(() => undefined);
      if (status) statuses.set(node.agentId, status);
      // A finished agent may not answer its status query, or answer before its result is set: ask the server.
      if (node.status === 'finished' && !status?.result) {
        const result = await handle.result().catch(() => undefined);
        if (result) results.set(node.agentId, result);
      }
      if (node.status === 'running') live.set(node.agentId, await handle.live().catch(() => []));
    }),
  );
  return buildFrame({ tree, rootStatus, statuses, live, results, ...(budget ? { budget } : {}) }, previous);
}
