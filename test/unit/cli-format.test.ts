import { describe, expect, it } from 'vitest';
import { formatProgress } from '../../src/cli/format';
import { describeModelEndpoint } from '../../src/config';
import type { AgentStatusSnapshot } from '../../src/shared/agent';
import { emptyTokenUsage } from '../../src/shared/messages';

const status = (fields: Partial<AgentStatusSnapshot>): AgentStatusSnapshot => ({
  agentId: 'agent-1',
  agentType: 'general-purpose',
  model: 'm',
  state: 'running_tools',
  turn: 2,
  maxTurns: 50,
  currentTools: [],
  usage: emptyTokenUsage(),
  toolUses: 1,
  startedAtMs: 0,
  messageCount: 3,
  treeUsage: emptyTokenUsage(),
  children: [],
  acceptsSteering: true,
  pendingApprovals: 0,
  rejectedInputs: { count: 0 },
  ...fields,
});

describe('the progress line', () => {
  it('says what the agent waits for instead of "running undefined" while an approval waits', () => {
    const line = formatProgress(status({ pendingApprovals: 1, waitingFor: 'approval of Bash (subagents approvals agent-1)' }));
    expect(line).toContain('waiting for approval of Bash (subagents approvals agent-1)');
    expect(line).not.toContain('undefined');
    expect(formatProgress(status({}))).toContain('running tools');
    expect(formatProgress(status({ currentTools: ['Read', 'Grep'] }))).toContain('running Read, Grep');
    expect(formatProgress(status({ state: 'waiting', waitingFor: 'the next message' }))).toContain('waiting for the next message');
  });
});

describe("the worker's model endpoint line", () => {
  it('names the endpoint requests really go to: the base URL wins over the real API, even with a key', () => {
    expect(describeModelEndpoint({ anthropicApiKey: 'sk', anthropicBaseUrl: 'http://127.0.0.1:8788' })).toBe('http://127.0.0.1:8788 (API key set)');
    expect(describeModelEndpoint({ anthropicApiKey: 'sk' })).toBe('https://api.anthropic.com (API key set)');
    expect(describeModelEndpoint({ anthropicBaseUrl: 'http://localhost:1' })).toBe('http://localhost:1');
  });
});
