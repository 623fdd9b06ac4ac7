// A minimal root agent's spec, for unit tests of the inputs built from it.
import type { RootSpec } from '../../src/shared/agents/agent-input';
import { defaultAgentLimits } from '../../src/shared/protocol/limits';

export const testRootSpec: RootSpec = {
  agentId: 'agent-1',
  agentType: 'general-purpose',
  prompt: 'p',
  model: 'claude-test-tiny',
  definitionPrompt: '',
  tools: ['Read'],
  cwd: '/w',
  workspaceRoot: '/w',
  permissionMode: 'default',
  maxTurns: 5,
  limits: defaultAgentLimits,
};
