import { ApplicationFailure } from '@temporalio/common';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  dropAgentCheckpoints,
  listStoredCheckpoints,
  pruneStoredCheckpoints,
  retentionFromEnv,
  type AgentCheckpoints,
  type CheckpointInventory,
} from '../../checkpoints/index';
import { ErrorType } from '../../shared/protocol/errors';
import { CliError, ExitCode } from '../exit-codes';
import { formatTable } from '../table';

// `subagents checkpoints`: the workspace checkpoints kept in a repository (docs/rewind.md). Local: no server needed.

const usage = 'usage: subagents checkpoints [--dir DIR] [--drop AGENT_ID]... [--prune [--older-than DAYS]] [--json]';

function ageOf(atMs: number, nowMs: number): string {
  const minutes = Math.max(0, Math.round((nowMs - atMs) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 48 * 60) return `${Math.round(minutes / 60)} h`;
  return `${Math.round(minutes / (24 * 60))} d`;
}

function table(agents: readonly AgentCheckpoints[], nowMs: number): string[] {
  const rows = [
    ['AGENT', 'CHECKPOINTS', 'TURNS', 'NEWEST', 'OLDEST'],
    ...agents.map((agent) => [
      agent.agentId,
      String(agent.count),
      agent.firstTurn === agent.lastTurn ? String(agent.firstTurn) : `${agent.firstTurn}–${agent.lastTurn}`,
      `${ageOf(agent.newestAtMs, nowMs)} ago`,
      `${ageOf(agent.oldestAtMs, nowMs)} ago`,
    ]),
  ];
  return formatTable(rows);
}

function describe(inventory: CheckpointInventory, nowMs: number): string[] {
  if (inventory.kind === 'unavailable') return [`No checkpoints for ${inventory.root}: ${inventory.reason}`];
  const where = inventory.store === 'private' ? `${inventory.root} (this machine's private store)` : inventory.root;
  if (inventory.agents.length === 0) return [`No agent checkpoints in ${where}.`];
  return [`Checkpoints in ${where}:`, ...table(inventory.agents, nowMs)];
}

/** `--older-than DAYS`: a whole number of days from 0; the workers' SUBAGENTS_CHECKPOINT_MAX_AGE_DAYS by default. */
function daysOf(value: string | undefined): number {
  if (value === undefined) return retentionFromEnv(process.env).maxAgeDays;
  if (!/^\d+$/.test(value) || Number(value) > 36_500)
    throw new CliError(
      `--older-than takes a whole number of days (0 drops every checkpoint); got "${value}". ${usage}`,
    );
  return Number(value);
}

/** The store's refusals (a bad id, a missing directory) as usage errors; git's failures as exit 1, without a stack. */
function asCliError(what: string) {
  return (error: unknown): never => {
    if (error instanceof ApplicationFailure) {
      const usageError = error.type === ErrorType.InvalidCheckpointInput || error.type === ErrorType.NotADirectory;
      throw new CliError(`${what}: ${error.message}`, usageError ? ExitCode.usage : ExitCode.agentUnsuccessful);
    }
    throw error;
  };
}

/** `subagents checkpoints`: lists each agent's checkpoints in a repository; `--drop` and `--prune` delete them. */
export async function checkpointsCommand(argv: string[]): Promise<number> {
  let values: { dir?: string; drop?: string[]; prune?: boolean; 'older-than'?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        dir: { type: 'string' },
        drop: { type: 'string', multiple: true },
        prune: { type: 'boolean', default: false },
        'older-than': { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${usage}`);
  }
  if (values['older-than'] !== undefined && !values.prune)
    throw new CliError(`--older-than goes with --prune. ${usage}`);
  if (values.prune && values.drop) throw new CliError(`give --drop or --prune, not both. ${usage}`);
  const dir = path.resolve(values.dir ?? process.cwd());
  const nowMs = Date.now();
  const print = (json: unknown, lines: string[]) =>
    console.log(values.json ? JSON.stringify(json, null, 2) : lines.join('\n'));

  if (values.drop) {
    const dropped: { agentId: string; count: number }[] = [];
    for (const agentId of values.drop) {
      // A hostile or mistyped id is refused by the store before git sees it: a usage error, nothing dropped.
      const count = await dropAgentCheckpoints(dir, agentId).catch(asCliError(`--drop ${JSON.stringify(agentId)}`));
      dropped.push({ agentId, count });
    }
    const after = await listStoredCheckpoints(dir).catch(asCliError(dir));
    print({ dropped, ...after }, [
      ...dropped.map(({ agentId, count }) =>
        count === 0 ? `No checkpoints of ${agentId} in ${dir}.` : `Dropped ${count} checkpoint(s) of ${agentId}.`,
      ),
      '',
      ...describe(after, nowMs),
    ]);
    return ExitCode.ok;
  }
  if (values.prune) {
    const days = daysOf(values['older-than']);
    const result = await pruneStoredCheckpoints(dir, days).catch(asCliError(dir));
    if ('kind' in result) {
      print(result, describe(result, nowMs));
      return ExitCode.ok;
    }
    const removed = result.removed.reduce((sum, entry) => sum + entry.count, 0);
    print(result, [
      removed === 0
        ? `Nothing to prune: no checkpoint in ${result.root} is older than ${days} day(s).`
        : `Pruned ${removed} checkpoint(s) older than ${days} day(s) of ${result.removed.length} agent(s): ` +
          result.removed.map((entry) => `${entry.agentId} (${entry.count})`).join(', '),
      '',
      ...describe({ kind: 'store', root: result.root, store: result.store, agents: result.kept }, nowMs),
    ]);
    return ExitCode.ok;
  }
  const inventory = await listStoredCheckpoints(dir).catch(asCliError(dir));
  print(inventory, describe(inventory, nowMs));
  return ExitCode.ok;
}
