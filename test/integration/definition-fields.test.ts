/** The fields of an agent file that change what an agent does (docs/agent-definitions.md), on a real Temporal server. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentTestEnv, type AgentTestEnv } from '../helpers/agent-env';

let env: AgentTestEnv;

beforeAll(async () => {
  env = await createAgentTestEnv({ kind: 'echo' });
});

afterAll(async () => {
  await env?.close();
});

const scenario = (agents: unknown[]) => ({ kind: 'scripted' as const, scenario: { agents } as never });

function writeAgent(file: string, text: string): void {
  const full = path.join(env.workspace, '.claude', 'agents', file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
}

/** Model request bodies of one agent, parsed. */
function requestsOf(agentId: string): Array<Record<string, unknown>> {
  return env.modelServer
    .requests()
    .filter((request) => request.path === '/v1/messages' && request.headers['x-subagents-agent-id'] === agentId)
    .map((request) => JSON.parse(request.rawBody) as Record<string, unknown>);
}

describe('definition fields on a real server', () => {
  it('effort reaches every model call of the agent as output_config.effort, and color its tree node and status', async () => {
    writeAgent('painter.md', '---\nname: painter\ndescription: Paints\ntools: Read\neffort: low\ncolor: pink\n---\nYou paint.\n');
    env.modelServer.setBehaviour(
      scenario([
        {
          match: { agentName: 'effort-root' },
          turns: [{ toolUses: [{ name: 'Agent', input: { description: 'paint', prompt: 'paint it', subagent_type: 'painter' } }] }, { text: 'root done' }],
        },
        { match: { agentType: 'painter' }, turns: [{ toolUses: [{ name: 'Read', input: { file_path: 'missing.txt' } }] }, { text: 'painted' }] },
      ]),
    );
    const handle = await env.start({ prompt: 'paint', name: 'effort-root', model: 'claude-opus-4-6' });
    expect((await handle.result()).status).toBe('completed');
    const child = `${handle.agentId}.1`;
    const childRequests = requestsOf(child);
    expect(childRequests).toHaveLength(2);
    for (const body of childRequests) expect(body.output_config).toEqual({ effort: 'low' });
    // The root's type has no effort: its calls carry none.
    for (const body of requestsOf(handle.agentId)) expect(body).not.toHaveProperty('output_config');
    expect(env.modelServer.requests().filter((request) => request.headers['x-subagents-agent-id'] === child).map((request) => request.effort)).toEqual(['low', 'low']);

    const tree = await handle.tree();
    expect(tree.nodes.find((node) => node.agentId === child)).toMatchObject({ agentType: 'painter', color: 'pink' });
    const status = await env.client.getAgent(child).status();
    expect(status).toMatchObject({ agentType: 'painter', color: 'pink' });
  });
});
