// A Claude Agent SDK program's `agents` and command hooks, as it passes them to `query({ prompt, options })`.
// run.ts hands both, unchanged, to `startAgent`: the same agents run durably as Temporal workflows.
import type { AgentDefinition } from 'durable-subagents';

export const agents: Record<string, AgentDefinition> = {
  'code-reviewer': {
    description: 'Expert code reviewer. Use after code changes, or when asked to review code for bugs.',
    prompt:
      'You are a senior code reviewer. Read the code, run its tests, and report each bug with its file and line. ' +
      'Do not change files.',
    tools: ['Read', 'Grep', 'Glob', 'Bash'],
    model: 'inherit',
    maxTurns: 8,
  },
};

/** Command hooks in Claude Code's settings shape (what `settingSources: ['project']` loads from .claude/settings.json). */
export const hooks = {
  PreToolUse: [
    {
      matcher: 'Bash',
      hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR/.claude/hooks/guard-bash.mjs"' }],
    },
  ],
  PostToolUse: [
    { matcher: '*', hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR/.claude/hooks/log-event.mjs"' }] },
  ],
  Stop: [{ hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR/.claude/hooks/log-event.mjs"' }] }],
};
