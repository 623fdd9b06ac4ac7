import type { RunWorkflowOptions } from '../../src/client/script-run-input';
import type { AgentTestEnv } from './agent-env';

/** A script's `meta` header line (docs/workflows.md), for scripts written inline in tests. */
export const scriptHeader = (name: string, description = 'a test script'): string =>
  `export const meta = { name: '${name}', description: '${description}' };\n`;

/** A run's options in a test environment: its workspace, the tiny model, no prompts, no forks. */
export function scriptRunOptions(env: AgentTestEnv, more: RunWorkflowOptions = {}): RunWorkflowOptions {
  return {
    cwd: env.workspace,
    model: 'claude-test-tiny',
    permissionMode: 'bypassPermissions',
    limits: { forking: false },
    ...more,
  };
}
