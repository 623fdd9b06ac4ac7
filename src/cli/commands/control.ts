import { parseArgs } from 'node:util';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { TreeNode } from '../../shared/definitions';
import { CliError, ExitCode } from '../exit-codes';
import { formatUsage } from '../format';
import { connect, withAgent } from './agents';

function updateFailureMessage(error: unknown): string | undefined {
  if (error instanceof WorkflowUpdateFailedError) return (error.cause as Error | undefined)?.message ?? error.message;
  return undefined;
}

async function interrupt(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { reason: { type: 'string' } } });
  return withAgent(positionals[0], async (handle) => {
    await handle.interrupt({ by: 'user', reason: values.reason ?? 'interrupted from the CLI' });
    console.log(`interrupt sent to ${handle.agentId}: its current turn is cancelled; the agent stays`);
    return ExitCode.ok;
  });
}

async function steer(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  const [agentId, ...words] = positionals;
  const text = words.join(' ').trim();
  if (!text) throw new CliError('steer needs guidance text: subagents steer <agentId> "focus on the tests"');
  return withAgent(agentId, async (handle) => {
    try {
      const ack = await handle.steer(text);
      console.log(`steer queued for ${handle.agentId} at turn ${ack.turn}; delivered at its next turn boundary`);
      return ExitCode.ok;
    } catch (error) {
      if (error instanceof Error && /finished/.test(error.message)) throw new CliError(error.message, ExitCode.agentUnsuccessful);
      throw error;
    }
  });
}

async function approvals(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  return withAgent(positionals[0], async (handle) => {
    const pending = await handle.approvals();
    if (values.json) console.log(JSON.stringify(pending));
    else if (pending.length === 0) console.log('No pending approval requests.');
    else for (const request of pending) console.log(`${request.requestId}\t${request.agentId} (${request.agentType})\t${request.inputSummary}`);
    return ExitCode.ok;
  });
}

async function approve(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { deny: { type: 'boolean', default: false }, always: { type: 'boolean', default: false }, reason: { type: 'string' } },
  });
  const [rootId, requestId] = positionals;
  if (!requestId) throw new CliError('approve needs the root agentId and a request id: subagents approve <rootId> <requestId> [--deny] [--always]');
  if (values.deny && values.always) throw new CliError('--always applies to approvals only; drop it or drop --deny.');
  return withAgent(rootId, async (handle) => {
    try {
      await handle.answerApproval(requestId, { approve: !values.deny, always: values.always, reason: values.reason });
    } catch (error) {
      const message = updateFailureMessage(error);
      if (message) throw new CliError(message, ExitCode.notFound);
      throw error;
    }
    console.log(`${values.deny ? 'denied' : values.always ? 'approved (always, for this tree)' : 'approved'} ${requestId}`);
    return ExitCode.ok;
  });
}

async function pauseSpawning(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { resume: { type: 'boolean', default: false } } });
  return withAgent(positionals[0], async (handle) => {
    await handle.pauseSpawning(!values.resume);
    console.log(values.resume ? `spawning resumed in the tree of ${handle.agentId}` : `spawning paused in the tree of ${handle.agentId}; running agents go on`);
    return ExitCode.ok;
  });
}

function treeLines(nodes: TreeNode[], live: Map<string, string>, rootId: string): string[] {
  const children = new Map<string, TreeNode[]>();
  for (const node of nodes) children.set(node.parentAgentId ?? '', [...(children.get(node.parentAgentId ?? '') ?? []), node]);
  const lines: string[] = [];
  const walk = (parentId: string, indent: string) => {
    for (const node of children.get(parentId) ?? []) {
      const label = `${node.agentType}${node.name ? ` "${node.name}"` : ''}: ${node.description ?? ''}`;
      lines.push(`${indent}${node.agentId}  ${label}  [${node.background ? 'background' : 'foreground'}, ${node.status}] ${live.get(node.agentId) ?? ''}`.trimEnd());
      walk(node.agentId, `${indent}  `);
    }
  };
  walk(rootId, '  ');
  return lines;
}

/** `ls --tree <rootId>`: the root's tree query, enriched with each running agent's own status. */
export async function lsTree(rootId: string, json: boolean): Promise<number> {
  const client = await connect();
  try {
    const root = client.getAgent(rootId);
    const [tree, rootStatus] = await Promise.all([root.tree(), root.status()]);
    const live = new Map<string, string>();
    const statuses: Record<string, unknown> = { [rootId]: rootStatus };
    for (const node of tree.nodes.filter((candidate) => candidate.status === 'running')) {
      const status = await client.getAgent(node.agentId).status().catch(() => undefined);
      if (!status) continue;
      statuses[node.agentId] = status;
      const seconds = Math.round((Date.now() - status.startedAtMs) / 1000);
      live.set(node.agentId, `turn ${status.turn}, ${seconds}s, last tool ${status.lastTool ?? '-'}, ${formatUsage(status.usage)}${status.pendingApprovals ? `, ${status.pendingApprovals} pending approval(s)` : ''}`);
    }
    if (json) {
      console.log(JSON.stringify({ ...tree, statuses }));
      return ExitCode.ok;
    }
    console.log(`${rootId}  ${rootStatus.agentType}  [root, ${rootStatus.state}] turn ${rootStatus.turn}, ${formatUsage(rootStatus.treeUsage)} (tree)`);
    for (const line of treeLines(tree.nodes, live, rootId)) console.log(line);
    console.log(`spawning ${tree.spawningPaused ? 'PAUSED' : 'allowed'} · tokens ${tree.tokensUsed}${tree.tokenBudget ? ` / budget ${tree.tokenBudget}` : ''} · ${tree.pendingApprovals.length} pending approval(s)`);
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}

/** The control-plane commands. */
export const controlCommands = { interrupt, steer, approvals, approve, 'pause-spawning': pauseSpawning };
