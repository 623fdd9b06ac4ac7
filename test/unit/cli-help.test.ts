import { describe, expect, it } from 'vitest';
import { consoleCapture } from '../helpers/console-capture';
import { main } from '../../src/cli/main';
import { closest, editDistance, flagsOf } from '../../src/cli/suggest';

describe('did you mean', () => {
  it('counts edits, a swap of neighbours as one', () => {
    expect(editDistance('status', 'status')).toBe(0);
    expect(editDistance('stauts', 'status')).toBe(1);
    expect(editDistance('--jsn', '--json')).toBe(1);
    expect(editDistance('', 'ab')).toBe(2);
  });

  it('suggests the closest known word within two edits, and nothing for a stranger', () => {
    expect(closest('stauts', ['start', 'status', 'stop'])).toBe('status');
    expect(closest('--tre', flagsOf('ls [--all] [--json] | ls --tree <rootId> [--json]'))).toBe('--tree');
    expect(closest('deploy', ['start', 'status', 'stop'])).toBeUndefined();
    expect(closest('x', ['ls'])).toBeUndefined();
  });
});

describe('the CLI without a server', () => {
  const { printed, capture } = consoleCapture();

  it('answers --help and -h of every command with its usage, exit 0, without running it', async () => {
    capture();
    for (const command of ['steer', 'status', 'stop', 'watch', 'board', 'mcp', 'model-server', 'demo', 'dev']) {
      expect(await main([command, '--help']), command).toBe(0);
      expect(printed.at(-1), command).toMatch(new RegExp(`^usage: subagents ${command}`));
    }
    expect(await main(['steer', '-h'])).toBe(0);
    // After `--` it is an argument, not a request for help.
    expect(await main(['steer', '--', '--help'])).not.toBe(0);
  });

  it('suggests the command or flag meant, exit 2', async () => {
    capture();
    expect(await main(['stauts', 'agent-1'])).toBe(2);
    expect(printed.join('\n')).toContain('Unknown command "stauts". Did you mean "status"?');
    expect(await main(['status', 'agent-1', '--jsn'])).toBe(2);
    expect(printed.join('\n')).toContain("subagents status: Unknown option '--jsn'. Did you mean --json?");
  });
});
