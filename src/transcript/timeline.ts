import type { MessageParam, StopReason, TokenUsage } from '../shared/model/messages';

/** What a completed model call returned besides its content: what Claude Code's assistant records carry. */
export interface ModelCallFacts {
  id: string;
  model: string;
  stopReason: StopReason;
  usage: TokenUsage;
  requestId?: string;
}

/** The history events that matter for dating messages, across all runs of an agent, in order. */
export type TimelineEvent =
  | { kind: 'runStarted'; timeMs: number }
  | { kind: 'modelScheduled'; timeMs: number }
  /** `producedMessage` is false when the model returned no content (the workflow appends nothing then). */
  | { kind: 'modelCompleted'; timeMs: number; producedMessage: boolean; call?: ModelCallFacts }
  /** Anything that wakes the workflow: a tool or child finishing, a signal, an update, a timer. */
  | { kind: 'inbound'; timeMs: number };

/** Each message's time: assistant k at the k-th content-producing model call, others at what woke the workflow. */
export function messageTimestamps(
  messages: readonly Pick<MessageParam, 'role'>[],
  inheritedCount: number,
  events: readonly TimelineEvent[],
): number[] {
  const startMs = events.find((event) => event.kind === 'runStarted')?.timeMs ?? events[0]?.timeMs ?? 0;
  const completions = events.flatMap((event, index) =>
    event.kind === 'modelCompleted' && event.producedMessage ? [index] : [],
  );
  const times: number[] = [];
  let nextCompletion = 0;
  let lastAssistantEvent = -1;
  for (const [index, message] of messages.entries()) {
    const previous = times[index - 1] ?? startMs;
    let timeMs: number;
    if (index < inheritedCount || (message.role === 'user' && lastAssistantEvent < 0)) {
      timeMs = startMs;
    } else if (message.role === 'assistant') {
      const eventIndex = completions[nextCompletion++];
      if (eventIndex === undefined) {
        timeMs = previous;
      } else {
        timeMs = events[eventIndex]!.timeMs;
        lastAssistantEvent = eventIndex;
      }
    } else {
      timeMs = userMessageTime(events, lastAssistantEvent);
    }
    times.push(Math.max(timeMs, previous));
  }
  return times;
}

function userMessageTime(events: readonly TimelineEvent[], afterIndex: number): number {
  let bound = events.findIndex((event, index) => index > afterIndex && event.kind === 'modelScheduled');
  if (bound < 0) bound = events.length;
  for (let index = bound - 1; index > afterIndex; index--) {
    const event = events[index]!;
    if (event.kind === 'inbound' || event.kind === 'runStarted') return event.timeMs;
  }
  return events[afterIndex]!.timeMs;
}

/** The model call behind each assistant message, as in {@link messageTimestamps}; undefined for the others. */
export function messageCalls(
  messages: readonly Pick<MessageParam, 'role'>[],
  inheritedCount: number,
  events: readonly TimelineEvent[],
): (ModelCallFacts | undefined)[] {
  const calls = events.flatMap((event) =>
    event.kind === 'modelCompleted' && event.producedMessage ? [event.call] : [],
  );
  let next = 0;
  return messages.map((message, index) =>
    index >= inheritedCount && message.role === 'assistant' ? calls[next++] : undefined,
  );
}
