import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, setEnvironment } from '../../helpers/in-process-cli';

// Usage errors of fork, rewind, diff and turns come before any connection: with Temporal pointed at a closed port,
// a case that tried to connect would fail with exit 3 (unavailable), not 2.
let restore: (() => void) | undefined;
beforeAll(() => {
  restore = setEnvironment({ TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_NAMESPACE: 'default' });
});
afterAll(() => restore?.());

/** Exit 2, one `subagents <command>:` line that contains every `expected` piece, and nothing on stdout. */
async function expectUsageError(args: string[], ...expected: (string | RegExp)[]): Promise<string> {
  const { code, out, err } = await cli(...args);
  expect(code, `${args.join(' ')}\n${err}`).toBe(2);
  expect(out).toBe('');
  expect(err).toMatch(new RegExp(`^subagents ${args[0]}: `));
  for (const piece of expected) expect(err).toMatch(piece);
  return err;
}

const forkUsage = 'subagents fork <agentId> --turn N';
const rewindUsage = 'subagents rewind <agentId> --turn N';

describe('subagents fork: usage errors', () => {
  it('without an agentId asks for one and shows the usage', async () => {
    await expectUsageError(['fork'], 'fork needs an agentId', forkUsage);
    await expectUsageError(['fork', '--turn', '2'], 'fork needs an agentId', forkUsage);
  });

  it('without --turn says it is required', async () => {
    await expectUsageError(['fork', 'agent-1'], '--turn is required', forkUsage);
  });

  it.each(['x', '1.5', '', ' 1', '1e3', '0x10', '+1', '٣'])('--turn %j asks for a whole number', async (turn) => {
    await expectUsageError(
      ['fork', 'agent-1', '--turn', turn],
      `--turn takes a whole number from 0 (the opening) to 1000000; got "${turn}"`,
      forkUsage,
    );
  });

  it('--turn -1 is refused as a usage error that names --turn', async () => {
    // node:util parseArgs takes "-1" for a flag, and says how to pass a value that starts with a dash.
    await expectUsageError(['fork', 'agent-1', '--turn', '-1'], "'--turn'", 'usage: subagents fork');
    await expectUsageError(['fork', 'agent-1', '--turn=-1'], 'got "-1"', forkUsage);
  });

  it('--turn without a value says the value is missing', async () => {
    await expectUsageError(['fork', 'agent-1', '--turn'], "Option '--turn <value>' argument missing");
  });

  it('--cwd with --worktree asks for one of them', async () => {
    await expectUsageError(
      ['fork', 'agent-1', '--turn', '2', '--cwd', '/tmp', '--worktree'],
      'give --cwd or --worktree, not both',
      forkUsage,
    );
  });

  it('an unknown flag is named, with the one meant', async () => {
    await expectUsageError(['fork', 'agent-1', '--turn', '2', '--worktre'], "Unknown option '--worktre'", '--worktree');
  });
});

describe('subagents rewind: usage errors', () => {
  it('without an agentId asks for one', async () => {
    await expectUsageError(['rewind', '--turn', '1'], 'rewind needs an agentId', rewindUsage);
  });

  it('without --turn says it is required', async () => {
    await expectUsageError(['rewind', 'agent-1'], '--turn is required', rewindUsage);
    await expectUsageError(['rewind', 'agent-1', '--files', '--prompt', 'again'], '--turn is required', rewindUsage);
  });

  it.each(['x', '1.5', '-1'])('--turn=%s asks for a whole number', async (turn) => {
    await expectUsageError(['rewind', 'agent-1', `--turn=${turn}`], 'whole number', `got "${turn}"`, rewindUsage);
  });
});

describe('subagents diff and turns: usage errors', () => {
  it('diff with one agentId, or none, asks for two', async () => {
    await expectUsageError(['diff', 'agent-1'], 'diff needs two agentIds', 'subagents diff <agentA> <agentB>');
    await expectUsageError(['diff'], 'diff needs two agentIds');
    await expectUsageError(['diff', '--json', 'agent-1'], 'diff needs two agentIds');
  });

  it('turns without an agentId asks for one', async () => {
    await expectUsageError(['turns'], 'turns needs an agentId', 'subagents turns <agentId>');
    await expectUsageError(['turns', '--json'], 'turns needs an agentId');
  });
});

describe('subagents --help', () => {
  it('lists fork, rewind, diff and turns with their options', async () => {
    const { code, out } = await cli('--help');
    expect(code).toBe(0);
    expect(out).toContain(
      'subagents fork <agentId> --turn N [--prompt TEXT] [--type T] [--cwd DIR | --worktree] [--root] [--follow] [--json]',
    );
    expect(out).toContain('subagents rewind <agentId> --turn N [--files] [--prompt TEXT] [--json]');
    expect(out).toContain('subagents diff <agentA> <agentB> [--json]');
    expect(out).toContain('subagents turns <agentId> [--json]');
  });

  it.each(['fork', 'rewind', 'diff', 'turns'])('`%s --help` prints its usage, exit 0', async (command) => {
    const { code, out } = await cli(command, '--help');
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`^usage: subagents ${command} `));
  });
});
