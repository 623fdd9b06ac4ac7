import { parseArgs } from 'node:util';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { CliError, ExitCode } from '../exit-codes';
import { withAgent } from '../session';

function updateFailureMessage(error: unknown): string | undefined {
  if (error instanceof WorkflowUpdateFailedError) return (error.cause as Error | undefined)?.message ?? error.message;
  return undefined;
}

async function interrupt(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { reason: { type: 'string' } },
  });
  return withAgent(
    positionals[0],
    async (handle) => {
      await handle.interrupt({ by: 'user', reason: values.reason ?? 'interrupted from the CLI' });
      console.log(`interrupt sent to ${handle.agentId}: its current turn is cancelled; the agent stays`);
      return ExitCode.ok;
    },
    'interrupt',
  );
}

async function steer(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  const [agentId, ...words] = positionals;
  const text = words.join(' ').trim();
  if (!text) throw new CliError('steer needs guidance text: subagents steer <agentId> "focus on the tests"');
  return withAgent(
    agentId,
    async (handle) => {
      try {
        const ack = await handle.steer(text);
        console.log(`steer queued for ${handle.agentId} at turn ${ack.turn}; delivered at its next turn boundary`);
        return ExitCode.ok;
      } catch (error) {
        if (error instanceof Error && /finished/.test(error.message))
          throw new CliError(error.message, ExitCode.agentUnsuccessful);
        throw error;
      }
    },
    'steer',
  );
}

async function approvals(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  return withAgent(positionals[0], async (handle) => {
    const pending = await handle.approvals();
    if (values.json) console.log(JSON.stringify(pending));
    else if (pending.length === 0) console.log('No pending approval requests.');
    else
      for (const request of pending)
        console.log(`${request.requestId}\t${request.agentId} (${request.agentType})\t${request.inputSummary}`);
    return ExitCode.ok;
  });
}

/** `--input`: the JSON object an approved call runs with instead of the model's input. */
function approvedInput(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`--input must be a JSON object, e.g. '{"command": "npm test"}': ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CliError(`--input must be a JSON object (the tool's input), not ${JSON.stringify(value)}.`);
  return value as Record<string, unknown>;
}

async function approve(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      deny: { type: 'boolean', default: false },
      always: { type: 'boolean', default: false },
      reason: { type: 'string' },
      input: { type: 'string' },
    },
  });
  const [rootId, requestId] = positionals;
  if (!requestId)
    throw new CliError(
      'approve needs the root agentId and a request id: subagents approve <rootId> <requestId> [--deny] [--always] [--input JSON]',
    );
  if (values.deny && values.always) throw new CliError('--always applies to approvals only; drop it or drop --deny.');
  if (values.deny && values.input !== undefined)
    throw new CliError('--input gives the input an approved call runs with; drop it or drop --deny.');
  const updatedInput = values.input === undefined ? undefined : approvedInput(values.input);
  return withAgent(
    rootId,
    async (handle) => {
      try {
        await handle.answerApproval(requestId, {
          approve: !values.deny,
          always: values.always,
          reason: values.reason,
          ...(updatedInput ? { updatedInput } : {}),
        });
      } catch (error) {
        const message = updateFailureMessage(error);
        if (message) throw new CliError(message, ExitCode.notFound);
        throw error;
      }
      console.log(
        `${values.deny ? 'denied' : values.always ? 'approved (always, for this tree)' : 'approved'} ${requestId}${updatedInput ? ' with the given input' : ''}`,
      );
      return ExitCode.ok;
    },
    'approve',
  );
}

async function pauseSpawning(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { resume: { type: 'boolean', default: false } },
  });
  return withAgent(
    positionals[0],
    async (handle) => {
      await handle.pauseSpawning(!values.resume);
      console.log(
        values.resume
          ? `spawning resumed in the tree of ${handle.agentId}`
          : `spawning paused in the tree of ${handle.agentId}; running agents go on`,
      );
      return ExitCode.ok;
    },
    'pause',
  );
}

async function compact(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { instructions: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  return withAgent(
    positionals[0],
    async (handle) => {
      try {
        const ack = await handle.compact({ instructions: values.instructions });
        if (values.json) console.log(JSON.stringify(ack));
        else
          console.log(
            `compaction queued for ${handle.agentId} at turn ${ack.turn} (context about ${ack.estimatedTokens} of ${ack.window} tokens); it runs at its next turn boundary, or at once if it is waiting`,
          );
        return ExitCode.ok;
      } catch (error) {
        if (error instanceof Error && /finished|Invalid compact/.test(error.message))
          throw new CliError(error.message, ExitCode.agentUnsuccessful);
        throw error;
      }
    },
    'compact',
  );
}

/** The control-plane commands. */
export const controlCommands = { interrupt, steer, approvals, approve, 'pause-spawning': pauseSpawning, compact };
