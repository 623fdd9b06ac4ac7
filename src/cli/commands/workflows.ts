/** `subagents workflows [RUNID]`: script runs from Temporal's visibility, or one run's phases, agents, logs and result. */
import { parseArgs } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import { listScriptRuns } from '../../client/script-runs';
import { scriptRunQuery } from '../../shared/scripts/script-queries';
import { scriptRunWorkflowType } from '../../shared/scripts/script-run';
import { CliError, ExitCode } from '../exit-codes';
import { parseWholeCount } from '../budget-args';
import { workflowsUsage } from '../command-usage';
import { connectTemporal } from '../temporal-session';
import { runDetailText, runListText } from '../workflows-view';

// A read-only command on a plain Temporal client: it loads no agent definitions (see temporal-session.ts).

/** Parsed arguments of `subagents workflows`. */
export interface WorkflowsArgs {
  runId?: string;
  running: boolean;
  limit: number;
  json: boolean;
}

/** Parses `subagents workflows`; throws CliError (exit 2) saying what to fix. */
export function parseWorkflowsArgs(argv: string[]): WorkflowsArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean', default: false },
      running: { type: 'boolean', default: false },
      limit: { type: 'string' },
    },
  });
  if (positionals.length > 1) throw new CliError(`Give at most one run id.\nusage: subagents ${workflowsUsage}`);
  const limit = values.limit === undefined ? 50 : parseWholeCount(values.limit, '--limit');
  if (limit > 1000) throw new CliError(`--limit is at most 1000 (got ${limit}).`);
  return {
    ...(positionals[0] !== undefined ? { runId: positionals[0] } : {}),
    running: values.running,
    limit,
    json: values.json,
  };
}

/** Without an id, the runs (newest first); with one, its phases, agents, logs and result. */
export async function workflowsCommand(argv: string[]): Promise<number> {
  const args = parseWorkflowsArgs(argv);
  const session = await connectTemporal();
  try {
    if (args.runId === undefined) {
      const listings = await listScriptRuns(session.temporal, { running: args.running, limit: args.limit });
      console.log(args.json ? JSON.stringify(listings) : runListText(listings, Date.now()));
      return ExitCode.ok;
    }
    const handle = session.temporal.workflow.getHandle(args.runId);
    let type: string;
    try {
      type = (await handle.describe()).type;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError)
        throw new CliError(`No script run "${args.runId}" (see \`subagents workflows\`).`, ExitCode.notFound);
      throw error;
    }
    if (type !== scriptRunWorkflowType)
      throw new CliError(
        `${args.runId} is a ${type}, not a script run; see it with \`subagents status ${args.runId}\`.`,
        ExitCode.notFound,
      );
    const snapshot = await handle.query(scriptRunQuery);
    console.log(args.json ? JSON.stringify(snapshot) : runDetailText(snapshot, Date.now()));
    return ExitCode.ok;
  } finally {
    await session.close();
  }
}
