import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject, afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestEnvironment, type TestEnvironment } from '../../src/api/testing';
import { defineTool } from '../../src/shared/tools/define-tool';
import { testHomeDir } from '../helpers/temporal';
import { scenario } from '../helpers/agent-env';
import { agentPrompted } from '../helpers/scripted-agents';

// `durable-subagents/testing` as a user's test runs it: one call, then agents with the user's own tools.
let env: TestEnvironment;
const deployed: string[] = [];
const deploy = defineTool({
  name: 'deploy_service',
  description: 'Deploys a service.',
  input: z.object({ service: z.string() }),
  needsApproval: true,
  run: ({ service }) => {
    deployed.push(service);
    return `deployed ${service}`;
  },
});

beforeAll(async () => {
  env = await startTestEnvironment({
    temporalAddress: inject('temporalAddress'),
    tools: [deploy],
    workerOptions: { workflowBundle: { codePath: inject('workflowBundlePath') } },
    behaviour: scenario([
      agentPrompted('Deploy the API', [
        { toolUses: [{ name: 'deploy_service', input: { service: 'api' } }] },
        { toolUses: [{ name: 'deploy_service', input: { service: 'db' } }] },
        { text: 'Done: {{last_tool_result}}' },
      ]),
    ]),
  });
}, 120_000);
afterAll(async () => {
  await env?.close();
});

describe('durable-subagents/testing', () => {
  it(
    'starts a worker with custom tools; a needsApproval tool waits for a person, runs when approved and not when denied',
    { timeout: 120_000 },
    async () => {
      const cwd = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-testing-env-')));
      const handle = await env.client.startAgent({
        prompt: 'Deploy the API, then the database.',
        cwd,
        homeDir: testHomeDir(),
        model: 'claude-test-tiny',
        permissionMode: 'default',
      });
      const answered: string[] = [];
      while (answered.length < 2) {
        const pending = (await handle.approvals()).filter((request) => !answered.includes(request.requestId));
        for (const request of pending) {
          expect(request.tool).toBe('deploy_service');
          // Approve the first call (api), deny the second (db).
          await handle.answerApproval(request.requestId, {
            approve: answered.length === 0,
            by: 'test',
            reason: answered.length === 0 ? 'ok' : 'not today',
          });
          answered.push(request.requestId);
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const result = await handle.result();
      expect(result.status).toBe('completed');
      expect(deployed).toEqual(['api']);
      expect(result.finalText).toMatch(/^Done: .*not today/s);
    },
  );
});
