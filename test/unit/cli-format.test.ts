import { describe, expect, it } from 'vitest';
import { formatProgress } from '../../src/cli/format';
import { treeLines } from '../../src/cli/commands/tree';
import { colorEnabled } from '../../src/shared/agents/agent-colors';
import type { TreeNode } from '../../src/shared/protocol/tree';
import { describeModelEndpoint } from '../../src/config/config';
import type { AgentStatusSnapshot } from '../../src/shared/agents/agent';
import { emptyTokenUsage } from '../../src/shared/model/messages';

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
  permissionDenials: { count: 0, byTool: {} },
  rejectedInputs: { count: 0 },
  ...fields,
});

describe('the progress line', () => {
  it("shows the agent's type, in its definition's colour only when colour is on", () => {
    expect(formatProgress(status({ agentType: 'reviewer', color: 'green' }))).toMatch(
      /^\[agent-1\] reviewer · turn 2\/50/,
    );
    expect(formatProgress(status({ agentType: 'reviewer', color: 'green' }), true)).toContain(
      '[agent-1] \u001b[32mreviewer\u001b[39m · turn',
    );
    expect(formatProgress(status({ agentType: 'reviewer', color: 'orange' }), true)).toContain(
      '\u001b[38;5;208mreviewer\u001b[39m',
    );
    // No colour in the definition: no escape codes even on a terminal.
    expect(formatProgress(status({ agentType: 'reviewer' }), true)).not.toContain('\u001b[');
  });

  it('colours a tree line by the node, and follows NO_COLOR / FORCE_COLOR', () => {
    const nodes: TreeNode[] = [
      {
        agentId: 'child-1',
        parentAgentId: 'root',
        agentType: 'reviewer',
        color: 'pink',
        depth: 1,
        background: false,
        status: 'running',
        startedAtMs: 0,
      },
    ];
    expect(treeLines(nodes, new Map(), 'root', true)[0]).toContain('\u001b[38;5;205mreviewer\u001b[39m: ');
    expect(treeLines(nodes, new Map(), 'root', false)[0]).toBe('  child-1  reviewer:   [foreground, running]');
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
  });

  it('says what the agent waits for instead of "running undefined" while an approval waits', () => {
    const line = formatProgress(
      status({ pendingApprovals: 1, waitingFor: 'approval of Bash (subagents approvals agent-1)' }),
    );
    expect(line).toContain('waiting for approval of Bash (subagents approvals agent-1)');
    expect(line).not.toContain('undefined');
    expect(formatProgress(status({}))).toContain('running tools');
    expect(formatProgress(status({ currentTools: ['Read', 'Grep'] }))).toContain('running Read, Grep');
    expect(formatProgress(status({ state: 'waiting', waitingFor: 'the next message' }))).toContain(
      'waiting for the next message',
    );
  });
});

describe("the worker's model endpoint line", () => {
  it('names the endpoint requests really go to: the base URL wins over the real API, even with a key', () => {
    expect(describeModelEndpoint({ anthropicApiKey: 'sk', anthropicBaseUrl: 'http://127.0.0.1:8788' })).toBe(
      'http://127.0.0.1:8788 (API key set)',
    );
    expect(describeModelEndpoint({ anthropicApiKey: 'sk' })).toBe('https://api.anthropic.com (API key set)');
    expect(describeModelEndpoint({ anthropicBaseUrl: 'http://localhost:1' })).toBe('http://localhost:1');
  });
});
