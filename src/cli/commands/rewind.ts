import { parseArgs } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import { CliError, ExitCode } from '../exit-codes';
import { connect, follow } from '../session';
import { exitCodeFor, formatResult } from '../format';
import type { SubagentsClient } from '../../client/client';
import { renderBranchDiff, renderTurns } from '../rewind-view';
import { branchDiff } from '../../shared/rewind/branch-diff';
import { compareLatestFiles, loadBranchSide } from '../../client/branch-diff-loader';

// fork, rewind, diff and turns (docs/rewind.md, docs/cli.md).

/** `--turn N`: a whole number; anything else is a usage error that says what to give. */
function turnOf(value: string | undefined, usage: string): number {
  if (value === undefined) throw new CliError(`--turn is required: ${usage}`);
  if (!/^\d+$/.test(value) || Number(value) > 1_000_000)
    throw new CliError(`--turn takes a whole number from 0 (the opening) to 1000000; got "${value}". ${usage}`);
  return Number(value);
}

/** Runs a command against Temporal; a refusal from the agent is exit 1 with its words, an unknown agent exit 4. */
async function withClient(run: (client: SubagentsClient) => Promise<number>): Promise<number> {
  const client = await connect();
  try {
    return await run(client);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (error instanceof WorkflowNotFoundError) throw new CliError(error.message, ExitCode.notFound);
    if (error instanceof Error && /^No agent /.test(error.message))
      throw new CliError(error.message, ExitCode.notFound);
    if (error instanceof Error && !/ECONNREFUSED|UNAVAILABLE/.test(error.message))
      throw new CliError(error.message, ExitCode.agentUnsuccessful);
    throw error;
  } finally {
    await client.close();
  }
}

const forkUsage =
  'subagents fork <agentId> --turn N [--prompt TEXT] [--type T] [--cwd DIR | --worktree] [--root] [--follow] [--json]';

async function fork(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      turn: { type: 'string' },
      prompt: { type: 'string' },
      type: { type: 'string' },
      cwd: { type: 'string' },
      worktree: { type: 'boolean', default: false },
      root: { type: 'boolean', default: false },
      follow: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const [agentId] = positionals;
  if (!agentId) throw new CliError(`fork needs an agentId: ${forkUsage}`);
  const turn = turnOf(values.turn, forkUsage);
  if (values.cwd && values.worktree) throw new CliError(`give --cwd or --worktree, not both: ${forkUsage}`);
  return withClient(async (client) => {
    const forked = await client.getAgent(agentId).fork({
      turn,
      ...(values.prompt !== undefined ? { prompt: values.prompt } : {}),
      ...(values.type !== undefined ? { type: values.type } : {}),
      ...(values.cwd !== undefined ? { cwd: values.cwd } : {}),
      ...(values.worktree ? { worktree: true } : {}),
      ...(values.root ? { root: true } : {}),
    });
    const { handle, ...shown } = forked;
    if (!values.follow) {
      console.log(
        values.json
          ? JSON.stringify(shown)
          : `forked ${agentId} at turn ${turn} as ${forked.agentId} (${forked.placement === 'tree' ? `beside it, a child of ${forked.startedBy}` : 'a new root'})` +
              (forked.note ? `\n${forked.note}` : ''),
      );
      return ExitCode.ok;
    }
    const result = await follow(handle, values.json ? () => {} : undefined);
    console.log(values.json ? JSON.stringify(result) : formatResult(result));
    return exitCodeFor(result);
  });
}

const rewindUsage = 'subagents rewind <agentId> --turn N [--files] [--prompt TEXT] [--json]';

async function rewind(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      turn: { type: 'string' },
      files: { type: 'boolean', default: false },
      prompt: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [agentId] = positionals;
  if (!agentId) throw new CliError(`rewind needs an agentId: ${rewindUsage}`);
  const turn = turnOf(values.turn, rewindUsage);
  return withClient(async (client) => {
    const outcome = await client.getAgent(agentId).rewind({
      turn,
      ...(values.files ? { files: true } : {}),
      ...(values.prompt !== undefined ? { prompt: values.prompt } : {}),
    });
    if (values.json) {
      console.log(JSON.stringify(outcome));
      return ExitCode.ok;
    }
    if (outcome.mode === 'new-run') {
      console.log(`${agentId} had finished: a new run of it starts at turn ${turn}`);
      return ExitCode.ok;
    }
    const { ack } = outcome;
    const lines = [`rewound ${agentId} to turn ${turn} (${ack.droppedTurns} later turn(s) dropped)`];
    if (ack.stoppedChildren.length) lines.push(`stopped children started after it: ${ack.stoppedChildren.join(', ')}`);
    if (ack.releasedTasks.length) lines.push(`released board tasks: ${ack.releasedTasks.join(', ')}`);
    if (values.files)
      lines.push(
        ack.restoredFiles.length
          ? `restored files:\n${ack.restoredFiles.map((change) => `  ${change.status} ${change.path}`).join('\n')}`
          : 'files already as of that turn',
      );
    console.log(lines.join('\n'));
    return ExitCode.ok;
  });
}

async function diff(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const [a, b] = positionals;
  if (!a || !b) throw new CliError('diff needs two agentIds: subagents diff <agentA> <agentB> [--json]');
  return withClient(async (client) => {
    const [sideA, sideB] = await Promise.all([
      loadBranchSide(client.temporal.workflow, a),
      loadBranchSide(client.temporal.workflow, b),
    ]);
    const result = branchDiff(sideA, sideB);
    const files = await compareLatestFiles(result.filesA, result.filesB);
    console.log(values.json ? JSON.stringify({ ...result, files }) : renderBranchDiff(result, files));
    return ExitCode.ok;
  });
}

async function turns(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const [agentId] = positionals;
  if (!agentId) throw new CliError('turns needs an agentId: subagents turns <agentId> [--json]');
  return withClient(async (client) => {
    const snapshot = await client.getAgent(agentId).turns();
    const note =
      snapshot.checkpointsUnavailable ??
      (snapshot.writesFiles ? undefined : 'its tools do not change files: no checkpoints are taken');
    console.log(values.json ? JSON.stringify(snapshot) : renderTurns(agentId, snapshot.boundaries, note));
    return ExitCode.ok;
  });
}

export const rewindCommands = { fork, rewind, diff, turns };
