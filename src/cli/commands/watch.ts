/** `subagents watch <rootId|runId> [--plain] [--json] [--interval MS] [--dir DIR]`: a live view of a running tree or script run. */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import { loadAgentDefinitions } from '../../project/agent-definitions/load';
import type { AgentResult } from '../../shared/agents/agent';
import { CliError, ExitCode } from '../exit-codes';
import { formatResult } from '../format';
import { connect } from '../session';
import { watchTree, type WatchMode } from '../watch/watch-loop';
import { watchScriptRun } from '../watch/script-run-watch';
import { scriptRunWorkflowType } from '../../shared/scripts/script-run';

const usage = 'watch <rootId|runId> [--plain] [--json] [--interval MS] [--dir DIR]';

/** Parsed arguments of `subagents watch`. */
export interface WatchArgs {
  rootId: string;
  mode: WatchMode;
  intervalMs: number;
  dir: string;
}

/** The display mode: JSON events, plain lines (asked for, or stdout is no terminal), or the redrawn tree. */
export function watchMode(options: { json: boolean; plain: boolean; isTty: boolean }): WatchMode {
  if (options.json) return 'json';
  return options.plain || !options.isTty ? 'plain' : 'tree';
}

/** Parses the command line; throws CliError (exit 2) saying what to fix. */
export function parseWatchArgs(argv: string[], isTty: boolean): WatchArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        plain: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        interval: { type: 'string' },
        dir: { type: 'string' },
      },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\nusage: subagents ${usage}`);
  }
  const [rootId, ...extra] = parsed.positionals;
  if (!rootId || extra.length > 0)
    throw new CliError(`Give exactly one root agentId (see \`subagents ls\`).\nusage: subagents ${usage}`);
  const intervalMs = parsed.values.interval === undefined ? 500 : Number(parsed.values.interval);
  if (!Number.isInteger(intervalMs) || intervalMs < 100 || intervalMs > 60_000)
    throw new CliError(`--interval is in ms, a whole number from 100 to 60000 (got "${parsed.values.interval}").`);
  return {
    rootId,
    mode: watchMode({ json: parsed.values.json, plain: parsed.values.plain, isTty }),
    intervalMs,
    dir: path.resolve(parsed.values.dir ?? process.cwd()),
  };
}

/** Agent type → definition `color`, from the definitions seen from `dir` (none when they cannot be read). */
export async function definitionColours(dir: string): Promise<Map<string, string>> {
  const colours = new Map<string, string>();
  try {
    const { definitions } = await loadAgentDefinitions({ cwd: dir });
    for (const definition of Object.values(definitions)) {
      const colour = definition.unsupported?.color;
      if (typeof colour === 'string') colours.set(definition.name, colour);
    }
  } catch {
    // Colours are a nicety.
  }
  return colours;
}

/** Exit 0 when the root completed, 1 otherwise; 4 for an unknown agent. */
export async function watchCommand(argv: string[]): Promise<number> {
  const args = parseWatchArgs(argv, Boolean(process.stdout.isTTY));
  const client = await connect();
  let result: AgentResult;
  try {
    let workflowType: string;
    try {
      workflowType = (await client.temporal.workflow.getHandle(args.rootId).describe()).type;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw new CliError(`No agent "${args.rootId}".`, ExitCode.notFound);
      throw error;
    }
    const print = (line: string): void => console.log(line);
    // A script run shows its phases and agents (its scriptRun query) rather than a tree of agents.
    result =
      workflowType === scriptRunWorkflowType
        ? await watchScriptRun(client.getWorkflowRun(args.rootId), {
            mode: args.mode,
            print,
            intervalMs: args.intervalMs,
          })
        : await watchTree(client, args.rootId, {
            mode: args.mode,
            print,
            intervalMs: args.intervalMs,
            colours: await definitionColours(args.dir),
          });
  } finally {
    await client.close();
  }
  if (args.mode !== 'json') console.log(`\n${formatResult(result)}`);
  return result.status === 'completed' ? ExitCode.ok : ExitCode.agentUnsuccessful;
}
