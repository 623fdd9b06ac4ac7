import type { ToolDefinition } from '../model/messages';

/** Model-facing definitions of the coordination tools (deterministic data: part of the cache prefix). */
export const agentToolDefinitions: Record<'Agent' | 'SendMessage' | 'TaskStop', ToolDefinition> = {
  Agent: {
    name: 'Agent',
    description: `Launches a subagent: a new agent with its own context window that works on a task on its own and returns one final message to you.

The agent types you can start, with their tools and models, and how to use them are listed in a <system-reminder> in your first message.

What each call does:
- subagent_type names an agent type: the agent gets that type's own system prompt and tools, and sees ONLY your prompt, not this conversation. Write a complete, self-contained brief.
- subagent_type "fork" forks you: the child continues from this conversation with your system prompt, tools and model, so its prompt is a short directive. A fork runs in the background unless run_in_background is false, and cannot fork again.
- Without subagent_type: a general-purpose agent, unless forking is on for this run, in which case it is a fork (your first message says which).
- A foreground call waits and returns the agent's final message, then its agentId (except for the one-shot types Explore and Plan). run_in_background: true returns the agentId at once; you are notified with the result when it finishes (do not poll).
- isolation: "worktree" runs the agent in a new git worktree (its own branch), removed if nothing changed, kept and reported otherwise. cwd runs it in another directory instead (not with isolation).
- Every call starts a new agent. To continue one with its context, use SendMessage with its agentId or name.
- The result is for you, not the user: relay what matters.
- Only the fields below exist; a call with any other field is refused.`,
    input_schema: {
      type: 'object',
      properties: {
        description: { type: 'string', description: 'A short (3-5 word) description of the task' },
        prompt: { type: 'string', description: 'The task: a complete brief for a named type, a directive for a fork' },
        subagent_type: { type: 'string', description: 'The agent type to start, or "fork" to fork yourself' },
        model: {
          type: 'string',
          description: 'Optional model override (haiku, sonnet, opus, or a model id); a fork always uses your model',
        },
        run_in_background: {
          type: 'boolean',
          description: 'true: return at once and be notified when the agent finishes; false: wait for it',
        },
        name: { type: 'string', description: 'A name to address the agent by with SendMessage' },
        isolation: { type: 'string', enum: ['worktree'], description: 'Run the agent in its own git worktree' },
        cwd: { type: 'string', description: 'Absolute working directory for the agent (exclusive with isolation)' },
        budget: {
          type: 'object',
          description: 'Optional caps for the agent and everything it starts; it never gets more than you have left',
          properties: {
            max_tokens: { type: 'integer', minimum: 1, description: 'Tokens (input, output and cache) it may use' },
            max_cost_usd: { type: 'number', exclusiveMinimum: 0, description: 'US dollars it may spend' },
            max_tool_calls: { type: 'integer', minimum: 1, description: 'Tool calls it may make' },
            max_time_seconds: { type: 'number', exclusiveMinimum: 0, description: 'Wall time it may run, in seconds' },
          },
          additionalProperties: false,
        },
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
