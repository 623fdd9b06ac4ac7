import { agentHeaderNames, agentHeaders } from '../shared/model/agent-headers';
import type Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { conversationQuery } from '../shared/protocol/definitions';
import { ErrorType } from '../shared/protocol/errors';
import {
  addTokenUsage,
  emptyTokenUsage,
  totalTokens,
  type ContentBlock,
  type MessageParam,
  type StopReason,
  type TokenUsage,
} from '../shared/model/messages';
import type { ModelCallInput, ModelCallResult } from '../shared/model/model-call';
import { compactionPurpose } from '../shared/model/compaction';
import { compactionRequestMessages } from './compaction-request';
import { ConversationCache, ConversationMismatchError } from './conversation-cache';
import { toModelInvocationFailure } from './model-errors';
import { buildModelRequest, type ModelRequestBody } from './request-builder';
import { SharedPrefixGate } from './shared-prefix-gate';
import { RenderedStarts, runKey } from './rendered-starts';
import { forkDirectiveIndex } from '../shared/agents/fork-layout';
import { definitionsFor } from './tool-catalog';
import { toolUsesOf } from '../shared/tools/tool-results';
import { LiveText } from './live-text';
import { liveLimits } from '../shared/protocol/live-activity';
import { trackCurrentCall, type RunningCalls } from './tools/running-calls';
import { PreReads, type PreRead } from './pre-reads';
import { BilledUsage } from './billed-usage';
import { chargeBudget } from './budget-charge';
import type { LiveModelDetails } from '../shared/protocol/live-activity';
import type { SettingsLookRequest, SettingsReloadResult } from '../shared/agents/settings-look';

/** Collaborators of the model activity, passed in so tests use real clients pointed at local servers. */
export interface ModelActivityDependencies {
  anthropic: Anthropic;
  temporalClient: Client;
  conversationCache?: ConversationCache;
  /** Heartbeat at least this often while waiting on the stream. */
  heartbeatIntervalMs?: number;
  /** Staggers sibling forks' first requests (default: one per worker process). */
  prefixGate?: SharedPrefixGate;
  /** System prompts this worker rendered as local activities (a run's first call takes its own from here). */
  renderedStarts?: RenderedStarts;
  /** This worker's running calls: a cancelled turn aborts its model call here at once (`abortRunningCalls`). */
  runningCalls?: RunningCalls;
  /** Runs one Read, Glob or Grep: with it, a call whose input asks starts the answer's leading file reads (src/activities/pre-reads.ts). */
  preRead?: PreRead;
  /** A root's settings look, run with its turn's call (src/activities/settings-reload.ts). */
  lookAtSettings?: (request: SettingsLookRequest) => Promise<SettingsReloadResult | undefined>;
}

/** For a fork's first request: the key of what it shares with its siblings (all but its directive). */
function sharedPrefixKey(body: ModelRequestBody): string | undefined {
  const last = body.messages[body.messages.length - 1];
  const directive = forkDirectiveIndex(last);
  if (directive === undefined || !last || typeof last.content === 'string') return undefined;
  const shared = last.content.slice(0, directive);
  return SharedPrefixGate.keyOf({
    model: body.model,
    system: body.system,
    tools: body.tools,
    messages: body.messages.slice(0, -1),
    shared,
  });
}

function toContentBlocks(content: Anthropic.Messages.ContentBlock[]): ContentBlock[] {
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
    else if (block.type === 'thinking')
      blocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
  }
  return blocks;
}

/** Resolves once `signal` is aborted. */
function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Creates `callModel`: reads the conversation by reference, streams one model turn, classifies errors. */
export function createModelActivities(dependencies: ModelActivityDependencies) {
  const cache = dependencies.conversationCache ?? new ConversationCache();
  const heartbeatIntervalMs = dependencies.heartbeatIntervalMs ?? 5000;
  const prefixGate = dependencies.prefixGate ?? new SharedPrefixGate();
  const renderedStarts = dependencies.renderedStarts ?? new RenderedStarts();

  /** A run's first call, on the worker that rendered its start: its entry opens with that prompt, and the tail brings the messages. */
  function openFromRenderedStart(key: string, input: ModelCallInput): void {
    if (!input.opening || input.tail?.from !== 0 || cache.has(key)) return;
    const systemPrompt = renderedStarts.take(key, input.opening.systemPromptHash);
    if (systemPrompt !== undefined) cache.open(key, { systemPrompt, tools: input.opening.tools });
  }

  async function callModel(input: ModelCallInput): Promise<ModelCallResult> {
    const context = Context.current();
    const handle = dependencies.temporalClient.workflow.getHandle(input.agentId, input.runId);
    const key = runKey(input.agentId, input.runId);
    openFromRenderedStart(key, input);
    let conversation;
    try {
      conversation = await cache.get(
        key,
        input.messageCount,
        input.conversationHash,
        (from) => handle.query(conversationQuery, { from }),
        input.tail,
      );
    } catch (error) {
      // Retryable: the workflow waits on this activity, so a mismatch is passing (a query answered mid-replay).
      if (error instanceof ConversationMismatchError)
        throw ApplicationFailure.retryable(error.message, ErrorType.ConversationMismatch);
      throw error;
    }
    const tools = definitionsFor(conversation.tools, conversation.extraTools);
    // A budgeted call (docs/budgets.md): what earlier attempts were billed, charged if a crash kept them from it.
    const billing = input.budget ? await earlierAttempts(input, context) : undefined;
    const body = buildModelRequest({
      model: input.model,
      maxTokens: billing ? billing.maxTokens : input.maxOutputTokens,
      systemPrompt: conversation.systemPrompt,
      tools,
      messages: input.compaction
        ? compactionRequestMessages(conversation.messages, {
            ...input.compaction,
            systemPrompt: conversation.systemPrompt,
            tools,
          })
        : conversation.messages,
      ...(input.thinking ? { thinking: input.thinking } : {}),
      ...(input.effort ? { effort: input.effort } : {}),
    });
    const headers = agentHeaders({ id: input.agentId, type: input.agentType, name: input.agentName });
    if (input.compaction) headers[agentHeaderNames.purpose] = compactionPurpose;

    // Heartbeat details carry the live text (src/shared/protocol/live-activity.ts): shown by describe and the UI, never in history.
    const live = new LiveText(input.turn);
    const billed = new BilledUsage();
    let charged = false;
    const details = (): LiveModelDetails =>
      billing
        ? {
            ...live.details,
            billing: {
              attempt: context.info.attempt,
              before: billing.before,
              charged,
              ...optionalUsage(billed.billed()),
            },
          }
        : live.details;
    let lastBeatMs = Date.now();
    const beat = (): void => {
      lastBeatMs = Date.now();
      context.heartbeat(details());
    };
    const timer = setInterval(beat, heartbeatIntervalMs);
    // Cancellation comes only with a heartbeat's answer, so a stopped turn aborts here at once (docs/architecture.md).
    const tracked = trackCurrentCall(dependencies.runningCalls);
    const prefixKey = sharedPrefixKey(body);
    let prefixStarted: (() => void) | undefined;
    let preReads: PreReads | undefined;
    try {
      prefixStarted = prefixKey ? await prefixGate.enter(prefixKey, tracked.signal) : undefined;
      const stream = dependencies.anthropic.messages.stream(body as Anthropic.Messages.MessageStreamParams, {
        signal: tracked.signal,
        headers,
      });
      stream.on('streamEvent', (event) => {
        prefixStarted?.();
        live.onEvent(event);
        if (billing) billed.observe(event);
        // The input is billed from message_start on: the next attempt learns it from this heartbeat if this worker dies.
        if (billing && event.type === 'message_start') beat();
        if (Date.now() - lastBeatMs >= liveLimits.intervalMs) beat();
      });
      // The answer's leading file reads start as each is complete in the stream (src/activities/pre-reads.ts).
      preReads =
        input.preRead && dependencies.preRead && !input.compaction
          ? new PreReads(dependencies.preRead, input.preRead, tracked.signal)
          : undefined;
      if (preReads) stream.on('contentBlock', (block) => preReads?.offer(block));
      const message = await stream.finalMessage();
      const usage = usageFrom(message.usage);
      const content = toContentBlocks(message.content);
      const read = await preReads?.settle(content);
      // After the answer: the look sees what changed up to the moment this turn's tools run.
      const settingsLook =
        input.settingsLook && dependencies.lookAtSettings
          ? await dependencies.lookAtSettings(input.settingsLook).catch(() => undefined)
          : undefined;
      // A complete answer is charged by its workflow's next reservation; a lease's call here (no workflow task).
      const leaseCharged =
        input.budget?.leaseId !== undefined &&
        (await chargeBudget(dependencies.temporalClient, input, context.info.attempt, usage, {
          final: true,
          toolCalls: toolUsesOf(content).length,
        }));
      charged = billing !== undefined;
      return {
        ...(billing ? { attempt: context.info.attempt } : {}),
        ...(leaseCharged ? { charged: true } : {}),
        id: message.id,
        content,
        stopReason: (message.stop_reason ?? 'end_turn') as StopReason,
        model: message.model,
        ...(stream.request_id ? { requestId: stream.request_id } : {}),
        usage,
        ...(read ? { preReads: read } : {}),
        ...(settingsLook ? { settingsLook } : {}),
      };
    } catch (error) {
      // Billed but cut or failed (or billed nothing): the ledger holds its estimate until it hears.
      if (billing && !charged) {
        charged = await chargeBudget(
          dependencies.temporalClient,
          input,
          context.info.attempt,
          billed.billed() ?? emptyTokenUsage(),
          { final: false },
        );
        beat();
      }
      // Aborted locally: end only with Temporal's cancellation, else the server may refuse the task closing the agent.
      if (tracked.signal.aborted && !context.cancellationSignal.aborted) await untilAborted(context.cancellationSignal);
      throw toModelInvocationFailure(error);
    } finally {
      prefixStarted?.();
      preReads?.stop();
      clearInterval(timer);
      tracked.done();
    }
  }

  /** Earlier attempts' billing from the last heartbeat: charged if unpaid, taken off max_tokens (docs/budgets.md). */
  async function earlierAttempts(
    input: ModelCallInput,
    context: Context,
  ): Promise<{ before: TokenUsage; maxTokens: number }> {
    const previous = (context.info.heartbeatDetails as Partial<LiveModelDetails> | undefined)?.billing;
    if (!previous) return { before: emptyTokenUsage(), maxTokens: input.maxOutputTokens };
    if (previous.billed && !previous.charged)
      await chargeBudget(dependencies.temporalClient, input, previous.attempt, previous.billed, { final: false });
    const before = addTokenUsage(previous.before, previous.billed ?? emptyTokenUsage());
    const maxTokens = input.maxOutputTokens - totalTokens(before);
    if (maxTokens < 1) {
      throw ApplicationFailure.nonRetryable(
        `earlier attempts of this model call were billed ${totalTokens(before)} tokens, all its reservation in the tree's budget allowed; it is not tried again.`,
        ErrorType.BudgetExhausted,
      );
    }
    return { before, maxTokens };
  }

  /** A fork child's inherited prefix, read from the parent by query so it is recorded once, in the child's history. */
  async function fetchConversation(input: {
    agentId: string;
    runId: string;
    messageCount: number;
    conversationHash: string;
  }): Promise<MessageParam[]> {
    const handle = dependencies.temporalClient.workflow.getHandle(input.agentId, input.runId);
    try {
      const conversation = await cache.get(
        `${input.agentId}/${input.runId}`,
        input.messageCount,
        input.conversationHash,
        (from) => handle.query(conversationQuery, { from }),
      );
      return conversation.messages;
    } catch (error) {
      // Not retryable: the parent runs on, so a mismatch means another run of it (continued as new) for good.
      if (error instanceof ConversationMismatchError)
        throw ApplicationFailure.nonRetryable(error.message, ErrorType.ConversationMismatch);
      throw error;
    }
  }

  /** A compaction turn: the same call with the compaction instruction (its own activity type, so history and the UI tell it apart). */
  async function compactConversation(
    input: ModelCallInput & Required<Pick<ModelCallInput, 'compaction'>>,
  ): Promise<ModelCallResult> {
    return callModel(input);
  }

  return { callModel, compactConversation, fetchConversation };
}

function optionalUsage(usage: TokenUsage | undefined): { billed?: TokenUsage } {
  return usage ? { billed: usage } : {};
}

/** The API's usage in the runtime's shape. */
function usageFrom(usage: Anthropic.Messages.Usage): TokenUsage {
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
    cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
  };
}
