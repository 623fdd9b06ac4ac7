// One agent's conversation kept in memory and driven against the model server turn by turn: a request
// built as the runtime builds it, streamed with the Anthropic SDK, then the tool calls it asks for run with
// the activities' own functions. bench:overhead's in-process loop runs it in a plain loop; its bare-SDK
// loops run the same steps as an activity and a local activity of a workflow with nothing else in it
// (the durable one passing each answer, each turn's tool results and the messages of each request
// through the workflow, as an agent whose history is its transcript must).
import type Anthropic from '@anthropic-ai/sdk';
import { buildModelRequest } from '../../src/activities/request-builder';
import { toolRunners } from '../../src/activities/tools';
import { withoutCacheControl } from '../../src/model-server/tokens';
import type { ContentBlock, MessageParam, ToolDefinition, ToolUseBlock } from '../../src/shared/model/messages';
import { buildToolResultMessage, type ToolOutcome } from '../../src/shared/tools/tool-results';
import type { WorkspaceToolName } from '../../src/shared/policy/tool-classification';

/** The durable agent's first request, as the model server recorded it: where a replayed conversation starts. */
export interface FirstRequest {
  body: {
    model: string;
    max_tokens: number;
    system: { text: string }[];
    tools?: (ToolDefinition & { cache_control?: unknown })[];
    messages: MessageParam[];
  };
  headers: Record<string, string>;
}

export interface ServedConversation {
  readonly anthropic: Anthropic;
  readonly first: FirstRequest;
  readonly tools: ToolDefinition[];
  readonly systemPrompt: string;
  readonly messages: MessageParam[];
  readonly context: { agentId: string; workspaceRoot: string; cwd: string };
  /** The last answer's tool calls, waiting for their results. */
  pending: ToolUseBlock[];
  calls: number;
  /** When the last answer had been read (Date.now, the model server's clock). */
  answeredAt: number;
  modelMs: number;
  toolsMs: number;
}

/** A conversation that starts where the durable agent `agentId` started: its system prompt, tools, first message and headers. */
export function openConversation(
  anthropic: Anthropic,
  agentId: string,
  workspace: string,
  first: FirstRequest,
): ServedConversation {
  const { body } = first;
  const head = body.messages[0]!;
  // The first user message as the agent sent it, without the request builder's breakpoint (it adds its own).
  const content =
    typeof head.content === 'string'
      ? head.content
      : head.content.map(
          (block) => withoutCacheControl(block as unknown as Record<string, unknown>) as unknown as ContentBlock,
        );
  return {
    anthropic,
    first,
    tools: (body.tools ?? []).map(({ cache_control: _ignored, ...tool }) => tool as ToolDefinition),
    systemPrompt: body.system.map((block) => block.text).join(''),
    messages: [{ role: head.role, content }],
    context: { agentId, workspaceRoot: workspace, cwd: workspace },
    pending: [],
    calls: 0,
    answeredAt: 0,
    modelMs: 0,
    toolsMs: 0,
  };
}

/** The assistant message as the model activity records it (text and tool_use blocks: these scripted turns have no thinking). */
function assistantBlocks(content: Anthropic.Messages.ContentBlock[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const block of content) {
    if (block.type === 'text') blocks.push({ type: 'text', text: block.text });
    else if (block.type === 'tool_use')
      blocks.push({
        type: 'tool_use',
        id: block.id,
        name: block.name,
        input: (block.input ?? {}) as Record<string, unknown>,
      });
  }
  return blocks;
}

/** One model call: build the request, stream the answer, keep it; returns how many tool calls it asks for. */
export async function modelTurn(conversation: ServedConversation): Promise<number> {
  const started = performance.now();
  const { first, systemPrompt, tools, messages } = conversation;
  const request = buildModelRequest({
    model: first.body.model,
    maxTokens: first.body.max_tokens,
    systemPrompt,
    tools,
    messages,
  });
  const message = await conversation.anthropic.messages
    .stream(request as Anthropic.Messages.MessageStreamParams, { headers: first.headers })
    .finalMessage();
  conversation.answeredAt = Date.now();
  conversation.modelMs += performance.now() - started;
  conversation.calls += 1;
  const content = assistantBlocks(message.content);
  messages.push({ role: 'assistant', content });
  conversation.pending = content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
  return conversation.pending.length;
}

/** Runs the last answer's tool calls side by side with the activities' own functions and keeps their results. */
export async function toolTurn(conversation: ServedConversation): Promise<void> {
  answerPending(conversation, await runToolUses(conversation, conversation.pending));
}

/** The last answer's tool calls answered with `outcomes` (by tool_use id): the next request's tool results. */
export function answerPending(conversation: ServedConversation, outcomes: Record<string, ToolOutcome>): void {
  conversation.messages.push(buildToolResultMessage(conversation.pending, outcomes, 'missing'));
  conversation.pending = [];
}

/** Runs tool calls side by side with the activities' own functions; their outcomes, by tool_use id. */
export async function runToolUses(
  conversation: ServedConversation,
  uses: readonly ToolUseBlock[],
): Promise<Record<string, ToolOutcome>> {
  const started = performance.now();
  const toolEnv = { signal: new AbortController().signal, heartbeat: () => undefined };
  const outcomes: Record<string, ToolOutcome> = {};
  await Promise.all(
    uses.map(async (use) => {
      const result = await toolRunners[use.name as WorkspaceToolName](
        { context: conversation.context, toolUseId: use.id, input: use.input },
        toolEnv,
      );
      outcomes[use.id] = { content: result.content, isError: result.isError };
    }),
  );
  conversation.toolsMs += performance.now() - started;
  return outcomes;
}
