import { parseArgs } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import { stallLimitsProblem, type AgentHandle } from '../../client/client';
import { maxStallTimeoutMs, minStallTimeoutMs } from '../../shared/protocol/limits';
import type { PermissionMode } from '../../shared/agents/agent';
import { maxWorkspaceWaitMs, minWorkspaceWaitMs, parseWorkerId } from '../../shared/workspace/workspace-routing';
import { CliError, ExitCode } from '../exit-codes';
import { exitCodeFor, formatResult } from '../format';
import { connect, follow } from '../session';
import { closedStatusOf } from '../temporal-session';
import { startBudget } from '../budget-args';
import { definitionColours, watchMode } from './watch';
import { watchTree } from '../watch/watch-loop';

async function start(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      type: { type: 'string' },
      model: { type: 'string' },
      cwd: { type: 'string' },
      name: { type: 'string' },
      'max-turns': { type: 'string' },
      'permission-mode': { type: 'string' },
      interactive: { type: 'boolean', default: false },
      'idle-timeout': { type: 'string' },
      board: { type: 'string' },
      worker: { type: 'string' },
      'worker-wait': { type: 'string' },
      follow: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'stall-timeout': { type: 'string' },
      'stall-stop': { type: 'boolean', default: false },
      plain: { type: 'boolean', default: false },
      'max-tokens': { type: 'string' },
      'max-cost-usd': { type: 'string' },
      'max-budget-usd': { type: 'string' },
      'max-tool-calls': { type: 'string' },
      'max-time': { type: 'string' },
      'max-agents': { type: 'string' },
      'on-budget': { type: 'string' },
    },
  });
  const prompt = positionals.join(' ').trim();
  if (!prompt) throw new CliError('start needs a prompt: subagents start "what to do" [--type T] [--follow]');
  const maxTurns = values['max-turns'] === undefined ? undefined : Number(values['max-turns']);
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 1))
    throw new CliError('--max-turns must be a positive integer.');
  const modes = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk', 'bubble'];
  const permissionMode = values['permission-mode'];
  if (permissionMode !== undefined && !modes.includes(permissionMode))
    throw new CliError(`--permission-mode must be one of ${modes.join(', ')}.`);
  const idleSeconds = values['idle-timeout'] === undefined ? 600 : Number(values['idle-timeout']);
  if (!Number.isFinite(idleSeconds) || idleSeconds <= 0)
    throw new CliError('--idle-timeout is in seconds and must be positive.');
  const placement = workerPlacement(values.worker, values['worker-wait']);
  const stallSeconds = values['stall-timeout'] === undefined ? undefined : Number(values['stall-timeout']);
  const stallLimits = {
    ...(stallSeconds === undefined ? {} : { stallTimeoutMs: Math.round(stallSeconds * 1000) }),
    ...(values['stall-stop'] ? { stallAction: 'stop' as const } : {}),
  };
  const stallProblem = stallLimitsProblem(stallLimits);
  if (stallProblem || (stallSeconds !== undefined && !Number.isFinite(stallSeconds)))
    throw new CliError(
      `--stall-timeout is in seconds, from ${minStallTimeoutMs / 1000} to ${maxStallTimeoutMs / 1000} (got "${values['stall-timeout']}").`,
    );
  const budget = startBudget(values);
  const limits = { ...stallLimits, ...(budget ? { budget } : {}) };
  const client = await connect();
  try {
    let handle: AgentHandle;
    try {
      handle = await client.startAgent({
        ...placement,
        prompt,
        type: values.type,
        model: values.model,
        cwd: values.cwd,
        name: values.name,
        maxTurns,
        permissionMode: permissionMode as PermissionMode | undefined,
        interactive: values.interactive ? { idleTimeoutMs: idleSeconds * 1000 } : undefined,
        taskBoard: values.board,
        ...(Object.keys(limits).length > 0 ? { limits } : {}),
      });
    } catch (error) {
      if (
        error instanceof Error &&
        /^Unknown agent type|^The working directory|resolves to no tools|^Bad task board|^Bad budget/.test(
          error.message,
        )
      )
        throw new CliError(error.message);
      throw error;
    }
    if (!values.follow) {
      console.log(values.json ? JSON.stringify({ agentId: handle.agentId }) : handle.agentId);
      return ExitCode.ok;
    }
    if (!values.json) console.error(`started ${handle.agentId}`);
    // The live tree (or plain lines) goes to stderr; stdout keeps only the result.
    const result = values.json
      ? await follow(handle, () => {})
      : await watchTree(client, handle.agentId, {
          mode: watchMode({ json: false, plain: values.plain, isTty: Boolean(process.stderr.isTTY) }),
          print: (line) => console.error(line),
          stream: process.stderr,
          colours: await definitionColours(values.cwd ?? process.cwd()),
        });
    console.log(values.json ? JSON.stringify(result) : formatResult(result));
    return exitCodeFor(result);
  } finally {
    await client.close();
  }
}

/** `--worker ID [--worker-wait SECONDS]`: the worker holding --cwd (docs/operations.md); checked before connecting. */
function workerPlacement(
  worker: string | undefined,
  waitSeconds: string | undefined,
): { worker?: string; workerWaitMs?: number } {
  if (worker === undefined) {
    if (waitSeconds !== undefined)
      throw new CliError('--worker-wait needs --worker: it is how long tool calls wait for that worker.');
    return {};
  }
  try {
    parseWorkerId(worker, '--worker');
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
  if (waitSeconds === undefined) return { worker };
  const workerWaitMs = Math.round(Number(waitSeconds) * 1000);
  if (!Number.isFinite(workerWaitMs) || workerWaitMs < minWorkspaceWaitMs || workerWaitMs > maxWorkspaceWaitMs) {
    throw new CliError(
      `--worker-wait is in seconds, from ${minWorkspaceWaitMs / 1000} to ${maxWorkspaceWaitMs / 1000} (got "${waitSeconds}").`,
    );
  }
  return { worker, workerWaitMs };
}

/** How long `stop` waits by default for the agent's workflow to close before saying it may be stuck. */
const defaultStopWaitSeconds = 30;

async function stop(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      reason: { type: 'string' },
      by: { type: 'string' },
      force: { type: 'boolean', default: false },
      wait: { type: 'string' },
    },
  });
  const agentId = positionals[0];
  if (!agentId)
    throw new CliError('stop needs an agentId: subagents stop <agentId> [--reason R] [--wait SECONDS] [--force]');
  const waitSeconds = values.wait === undefined ? defaultStopWaitSeconds : Number(values.wait);
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0) throw new CliError('--wait is in seconds (0 returns at once).');
  const by = values.by ?? 'user';
  const reason = values.reason ?? 'stopped from the CLI';
  const client = await connect();
  try {
    if (values.force) {
      let terminated: string[];
      try {
        terminated = await client.forceStop(agentId, { by, reason });
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) throw new CliError(`No agent "${agentId}".`, ExitCode.notFound);
        throw error;
      }
      console.log(
        terminated.length > 0
          ? `terminated ${terminated.join(', ')} (force-stopped by ${by}: ${reason})`
          : `${agentId} had already closed; nothing to terminate`,
      );
      return ExitCode.ok;
    }
    const handle = client.getAgent(agentId);
    try {
      await handle.stop({ by, reason });
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      const closed = await closedStatusOf(client.temporal, agentId);
      if (!closed) throw new CliError(`No agent "${agentId}".`, ExitCode.notFound);
      console.log(`Agent ${agentId} has already finished (${closed.toLowerCase()}); nothing to stop.`);
      return ExitCode.ok;
    }
    console.log(`stop requested for ${agentId} and its subtree`);
    if (waitSeconds === 0) return ExitCode.ok;
    const deadline = Date.now() + waitSeconds * 1000;
    while (Date.now() < deadline) {
      const closed = await closedStatusOf(client.temporal, agentId);
      if (closed) {
        console.log(`${agentId} closed (${closed.toLowerCase()})`);
        return ExitCode.ok;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new CliError(
      `${agentId} has not closed ${waitSeconds} s after the stop request: its workflow may be stuck (see \`temporal workflow describe -w ${agentId}\` or the Temporal UI). ` +
        `To end it and its subtree anyway: subagents stop ${agentId} --force --reason "..."`,
      ExitCode.agentUnsuccessful,
    );
  } finally {
    await client.close();
  }
}

async function send(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      root: { type: 'string' },
      follow: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const [target, ...words] = positionals;
  const text = words.join(' ').trim();
  if (!target || !text)
    throw new CliError('send needs a target and a message: subagents send <agentId|name> "text" [--root ROOT_ID]');
  const client = await connect();
  try {
    let agentId = target;
    if (values.root && target !== values.root && !target.startsWith(`${values.root}.`)) {
      const found = await client.findByName(values.root, target);
      if (!found)
        throw new CliError(`No running agent named "${target}" in the tree of ${values.root}.`, ExitCode.notFound);
      agentId = found;
    }
    let outcome;
    try {
      outcome = await client.send(agentId, text);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw new CliError(`No agent "${agentId}".`, ExitCode.notFound);
      if (error instanceof Error && error.message.includes('not resumed'))
        throw new CliError(error.message, ExitCode.agentUnsuccessful);
      throw error;
    }
    if (!values.follow) {
      console.log(
        values.json
          ? JSON.stringify({ agentId, delivered: outcome.delivered })
          : `${outcome.delivered === 'queued' ? 'queued for' : 'resumed'} ${agentId}`,
      );
      return ExitCode.ok;
    }
    const result = await follow(outcome.handle, values.json ? () => {} : undefined);
    console.log(values.json ? JSON.stringify(result) : formatResult(result));
    return exitCodeFor(result);
  } finally {
    await client.close();
  }
}

async function resume(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      follow: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
    },
  });
  const [agentId, ...words] = positionals;
  const prompt = words.join(' ').trim();
  if (!agentId || !prompt)
    throw new CliError(
      'resume needs an agentId and a prompt: subagents resume <agentId> "what to do next" [--force] [--follow]',
    );
  const client = await connect();
  try {
    let handle: AgentHandle;
    try {
      handle = await client.resume(agentId, prompt, { allowStopped: values.force });
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw new CliError(`No agent "${agentId}".`, ExitCode.notFound);
      if (error instanceof Error && /still running|not resumed|ResumeRefused|SpawnLimitReached/.test(error.message))
        throw new CliError(error.message, ExitCode.agentUnsuccessful);
      throw error;
    }
    if (!values.follow) {
      console.log(values.json ? JSON.stringify({ agentId, resumed: true }) : `resumed ${agentId}`);
      return ExitCode.ok;
    }
    const result = await follow(handle, values.json ? () => {} : undefined);
    console.log(values.json ? JSON.stringify(result) : formatResult(result));
    return exitCodeFor(result);
  } finally {
    await client.close();
  }
}

/** The agent-facing commands. */
export const agentCommands = { start, stop, send, resume };
