import type { ToolDefinition } from '../model/messages';

/** TaskOutput's limits (Claude Code's: block by default, 30 s, at most 10 minutes). */
export const taskOutputLimits = {
  defaultTimeoutMs: 30_000,
  maxTimeoutMs: 600_000,
  /** Characters of a running subagent's latest text shown. */
  latestTextChars: 2000,
} as const;

/** The model-facing definition of TaskOutput (plain data: part of the cache prefix). */
export const taskOutputDefinition: ToolDefinition = {
  name: 'TaskOutput',
  description: `Retrieves the output of one of your own subagents (tasks), running or finished.

- task_id: the agentId (or name) of a subagent you started. Without task_id, lists your running subagents and what each is doing.
- block: true (default) waits until the subagent finishes or timeout passes; false returns its current state at once.
- timeout: how long to wait, in milliseconds, when block is true (default 30000, at most 600000).
- A running subagent shows its state, turn, the tool it ran last, the tokens it used and its latest text; a finished one shows its final result.
- Background subagents notify you when they finish: use TaskOutput to check on one before that, or to wait for one; do not poll in a loop.`,
  input_schema: {
    type: 'object',
    properties: {
      task_id: {
        type: 'string',
        description: 'The agentId or name of the subagent; omit it to list your running subagents',
      },
      block: { type: 'boolean', description: 'Whether to wait for the subagent to finish (default true)' },
      timeout: {
        type: 'number',
        minimum: 0,
        maximum: taskOutputLimits.maxTimeoutMs,
        description: 'Max wait time in ms when block is true (default 30000)',
      },
    },
    additionalProperties: false,
  },
};
