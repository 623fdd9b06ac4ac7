import type { ToolDefinition } from './messages';

/** Model-facing definitions of the coordination tools (deterministic data: part of the cache prefix). */
export const agentToolDefinitions: Record<'Agent' | 'SendMessage' | 'TaskStop', ToolDefinition> = {
  Agent: {
    name: 'Agent',
    description:
      'Launch a subagent to handle a task on its own, with its own context window. Give a short description and a complete, ' +
      'self-contained prompt: the subagent sees only that prompt, not this conversation. subagent_type picks the agent type ' +
      '(general-purpose when omitted). Foreground (default) waits and returns the result; run_in_background: true returns at once ' +
      'and you are notified when it completes. Use SendMessage with the returned agentId to continue an agent.',
    input_schema: {
      type: 'object',
      properties: {
        description: { type: 'string', description: 'A short (3-5 word) description of the task' },
        prompt: { type: 'string', description: 'The task for the agent to perform' },
        subagent_type: { type: 'string', description: 'The type of agent to use for this task' },
        model: { type: 'string', description: 'Optional model override (haiku, sonnet, opus, or a model id)' },
        run_in_background: { type: 'boolean', description: 'Run the agent in the background and be notified when it completes' },
        name: { type: 'string', description: 'Name to address the agent by with SendMessage' },
        isolation: { type: 'string', enum: ['worktree'], description: 'Run the agent in its own git worktree' },
        cwd: { type: 'string', description: 'Absolute working directory for the agent (exclusive with isolation)' },
      },
      required: ['description', 'prompt'],
      additionalProperties: false,
    },
  },
  SendMessage: {
    name: 'SendMessage',
    description:
      'Send a message to another agent of this tree by name or agentId. A running agent receives it at its next turn boundary; ' +
      'a finished subagent of yours is resumed with it in the background (you are notified when it completes).',
    input_schema: {
      type: 'object',
      properties: {
        to: { type: 'string', description: 'The agent name or agentId' },
        message: { type: 'string', description: 'The message' },
      },
      required: ['to', 'message'],
      additionalProperties: false,
    },
  },
  TaskStop: {
    name: 'TaskStop',
    description: 'Stop one of your own running background subagents (and everything it started) by agentId or name.',
    input_schema: {
      type: 'object',
      properties: { task_id: { type: 'string', description: 'The agentId or name of the task to stop' } },
      required: ['task_id'],
      additionalProperties: false,
    },
  },
};
