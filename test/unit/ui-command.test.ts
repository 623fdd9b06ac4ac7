import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { agentUiUrl, uiCommand } from '../../src/cli/commands/ui';
import { CliError, ExitCode } from '../../src/cli/exit-codes';

/** No temporal.toml can be found from here, so only the variables given count. */
const env = (variables: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  HOME: path.join(os.tmpdir(), 'no-such-home'),
  ...variables,
});

async function printed(argv: string[], variables: Record<string, string> = {}): Promise<string> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  expect(await uiCommand(argv, env(variables))).toBe(ExitCode.ok);
  expect(log).toHaveBeenCalledTimes(1);
  return String(log.mock.calls[0]![0]);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('subagents ui', () => {
  it('prints the workflow page on the local dev server UI by default', async () => {
    expect(await printed(['agent-1234abcd'])).toBe('http://127.0.0.1:8233/namespaces/default/workflows/agent-1234abcd');
  });

  it('takes the base from SUBAGENTS_UI_URL and the namespace from TEMPORAL_NAMESPACE', async () => {
    const url = await printed(['agent-1.2'], {
      SUBAGENTS_UI_URL: 'https://cloud.temporal.io/',
      TEMPORAL_NAMESPACE: 'agents.a1b2c',
    });
    expect(url).toBe('https://cloud.temporal.io/namespaces/agents.a1b2c/workflows/agent-1.2');
  });

  it('links one run with --run and lets --namespace win', async () => {
    const url = await printed(['agent-1', '--run', 'run-9', '--namespace', 'other'], { TEMPORAL_NAMESPACE: 'agents' });
    expect(url).toBe('http://127.0.0.1:8233/namespaces/other/workflows/agent-1/run-9/history');
  });

  it('encodes ids that are not URL-safe', () => {
    expect(agentUiUrl({ baseUrl: 'http://ui', namespace: 'default', agentId: 'my agent/1' })).toBe(
      'http://ui/namespaces/default/workflows/my%20agent%2F1',
    );
  });

  it('refuses a missing or extra agentId with a usage error', async () => {
    await expect(uiCommand([], env())).rejects.toThrow(CliError);
    await expect(uiCommand(['a', 'b'], env())).rejects.toMatchObject({
      exitCode: ExitCode.usage,
      message: expect.stringContaining('usage: subagents ui'),
    });
    await expect(uiCommand(['a', '--nope'], env())).rejects.toMatchObject({ exitCode: ExitCode.usage });
  });
});
