/** `subagents run`: check a script and start it as the root of a new tree (docs/cli.md). */
import { ScriptRunRefused } from '../../client/script-run-input';
import { resolveScript, ScriptRefused } from '../../client/script-source';
import type { AgentResult } from '../../shared/agents/agent';
import { CliError, ExitCode } from '../exit-codes';
import { formatResult } from '../format';
import { parseRunArgs } from '../script-run-args';
import { connect } from '../session';
import { watchScriptRun } from '../watch/script-run-watch';
import { watchMode } from './watch';

const exitCodeFor = (result: AgentResult): number =>
  result.status === 'completed' ? ExitCode.ok : ExitCode.agentUnsuccessful;

/** Checks the script before connecting; prints the run id, or with --follow the live run and then its result. */
async function run(argv: string[]): Promise<number> {
  const args = parseRunArgs(argv);
  let checked;
  try {
    checked = await resolveScript(args.script, { cwd: args.cwd });
  } catch (error) {
    if (error instanceof ScriptRefused) throw new CliError(error.message);
    throw error;
  }
  const client = await connect();
  try {
    let handle;
    try {
      handle = await client.runCheckedWorkflow(checked, args.args, {
        cwd: args.cwd,
        ...(args.name !== undefined ? { name: args.name } : {}),
        ...(args.model !== undefined ? { model: args.model } : {}),
        ...(args.maxConcurrentAgents !== undefined ? { maxConcurrentAgents: args.maxConcurrentAgents } : {}),
        ...(args.tokenBudget !== undefined ? { tokenBudget: args.tokenBudget } : {}),
        ...(args.resumeFromRunId !== undefined ? { resumeFromRunId: args.resumeFromRunId } : {}),
        ...(args.workflowId !== undefined ? { workflowId: args.workflowId } : {}),
      });
    } catch (error) {
      if (error instanceof ScriptRunRefused || (error instanceof Error && /^The working directory/.test(error.message)))
        throw new CliError(error.message);
      throw error;
    }
    if (!args.follow) {
      console.log(args.json ? JSON.stringify({ runId: handle.runId }) : handle.runId);
      return ExitCode.ok;
    }
    if (!args.json) console.error(`started ${handle.runId}`);
    // The live run goes to stderr; stdout keeps only the result.
    const result = await watchScriptRun(handle, {
      mode: args.json ? 'json' : watchMode({ json: false, plain: args.plain, isTty: Boolean(process.stderr.isTTY) }),
      print: args.json ? () => {} : (line) => console.error(line),
      stream: process.stderr,
    });
    console.log(args.json ? JSON.stringify(result) : formatResult(result));
    return exitCodeFor(result);
  } finally {
    await client.close();
  }
}

/** The script run commands. */
export const scriptRunCommands = { run };
