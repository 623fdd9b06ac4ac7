/** Arguments of `subagents run` (docs/cli.md), parsed before anything connects. */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ScriptSource } from '../client/script-source';
import { scriptArgsProblem, scriptRunOptionsProblem } from '../client/script-run-input';
import { savedScriptNameProblem } from '../project/scripts/saved-scripts';
import { scriptLimits } from '../shared/scripts/script-run';
import { parseWholeCount } from './budget-args';
import { runUsage } from './command-usage';
import { CliError } from './exit-codes';

/** Parsed arguments of `subagents run`. */
export interface RunArgs {
  script: ScriptSource;
  args?: unknown;
  follow: boolean;
  plain: boolean;
  json: boolean;
  cwd: string;
  name?: string;
  model?: string;
  maxConcurrentAgents?: number;
  tokenBudget?: number;
  resumeFromRunId?: string;
  workflowId?: string;
}

/** A path (with `/` or ending in .js) is a file; a bare word is a saved script of `.claude/workflows`. */
export function scriptSourceOf(argument: string, cwd: string): ScriptSource {
  if (argument.endsWith('.js') || argument.includes('/') || argument.includes(path.sep))
    return { path: path.resolve(cwd, argument) };
  const problem = savedScriptNameProblem(argument);
  if (problem) throw new CliError(`${problem} To run a file, give its path (path/to/script.js).`);
  return { name: argument };
}

/** The `--args` value: JSON within scriptLimits.maxArgsBytes. */
export function parseScriptArgs(text: string): unknown {
  if (Buffer.byteLength(text, 'utf8') > scriptLimits.maxArgsBytes * 2)
    throw new CliError(`--args is over ${scriptLimits.maxArgsBytes} bytes of JSON; pass less data (or a file path).`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `--args must be JSON (${(error as Error).message}); quote it for the shell, e.g. --args '{"dir":"src"}'.`,
    );
  }
  const problem = scriptArgsProblem(value);
  if (problem) throw new CliError(`--args: ${problem}`);
  return value;
}

/** Parses `subagents run`; throws CliError (exit 2) saying what to fix. */
export function parseRunArgs(argv: string[], cwd = process.cwd()): RunArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      args: { type: 'string' },
      follow: { type: 'boolean', default: false },
      plain: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      'max-concurrent': { type: 'string' },
      'max-tokens': { type: 'string' },
      'resume-from': { type: 'string' },
      id: { type: 'string' },
      cwd: { type: 'string' },
      model: { type: 'string' },
    },
  });
  const [scriptArgument, ...extra] = positionals;
  if (!scriptArgument) throw new CliError(`run needs a script: subagents ${runUsage}`);
  if (extra.length > 0)
    throw new CliError(
      `run takes one script; got also ${extra.map((word) => JSON.stringify(word)).join(', ')}. Pass the script's input with --args JSON.`,
    );
  const runCwd = path.resolve(cwd, values.cwd ?? '.');
  const maxConcurrentAgents =
    values['max-concurrent'] === undefined ? undefined : parseWholeCount(values['max-concurrent'], '--max-concurrent');
  const tokenBudget =
    values['max-tokens'] === undefined ? undefined : parseWholeCount(values['max-tokens'], '--max-tokens');
  const workflowId = values.id;
  const problem = scriptRunOptionsProblem({ maxConcurrentAgents, tokenBudget, workflowId });
  if (problem)
    throw new CliError(
      problem
        .replace(/^maxConcurrentAgents/, '--max-concurrent')
        .replace(/^tokenBudget/, '--max-tokens')
        .replace(/^workflowId/, '--id'),
    );
  return {
    script: scriptSourceOf(scriptArgument, cwd),
    ...(values.args !== undefined ? { args: parseScriptArgs(values.args) } : {}),
    follow: values.follow,
    plain: values.plain,
    json: values.json,
    cwd: runCwd,
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(maxConcurrentAgents !== undefined ? { maxConcurrentAgents } : {}),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
    ...(values['resume-from'] !== undefined ? { resumeFromRunId: values['resume-from'] } : {}),
    ...(workflowId !== undefined ? { workflowId } : {}),
  };
}
