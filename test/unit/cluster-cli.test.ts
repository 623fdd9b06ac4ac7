// Bad arguments of `subagents start --worker` and `subagents cluster` are refused before anything
// connects or starts, with a message that says what is allowed.
import { describe, expect, it } from 'vitest';
import { agentCommands } from '../../src/cli/commands/agents';
import { clusterCommand } from '../../src/cli/commands/cluster';
import { CliError, ExitCode } from '../../src/cli/exit-codes';

async function refusal(run: Promise<number>): Promise<CliError> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CliError);
  expect((error as CliError).exitCode).toBe(ExitCode.usage);
  return error as CliError;
}

describe('subagents start --worker', () => {
  it.each([
    [['--worker', 'two words'], /Invalid --worker "two words": use 1 to 63 letters/],
    [['--worker', ''], /Invalid --worker ""/],
    [['--worker', '../../etc'], /Invalid --worker/],
    [['--worker', 'w'.repeat(300)], /Invalid --worker "w{77}\.\.\."/],
    [['--worker-wait', '30'], /--worker-wait needs --worker/],
    [['--worker', 'w1', '--worker-wait', 'soon'], /--worker-wait is in seconds, from 1 to 86400 \(got "soon"\)/],
    [['--worker', 'w1', '--worker-wait', '0.2'], /--worker-wait is in seconds/],
    [['--worker', 'w1', '--worker-wait', '1e12'], /--worker-wait is in seconds/],
    [['--worker', 'w1', '--worker-wait=-5'], /--worker-wait is in seconds/],
  ])('refuses %j', async (flags, message) => {
    const error = await refusal(agentCommands.start(['do something', ...flags]));
    expect(error.message).toMatch(message);
  });
});

describe('subagents cluster', () => {
  it.each([
    [['up', '--workers', '0'], /--workers must be a whole number from 1 to 16 \(got "0"\)/],
    [['up', '--workers', '17'], /--workers must be a whole number from 1 to 16/],
    [['up', '--workers', 'two'], /--workers must be a whole number/],
    [['up', '--model-url', 'not a url'], /--model-url must be an http\(s\) URL/],
    [['sideways'], /usage: subagents cluster up/],
    [[], /usage: subagents cluster up/],
  ])('refuses %j', async (argv, message) => {
    const error = await refusal(clusterCommand(argv));
    expect(error.message).toMatch(message);
  });
});
