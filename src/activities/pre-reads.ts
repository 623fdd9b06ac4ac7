// An answer's leading Reads, Globs and Greps run as they stream in (docs/architecture.md, "Reads with the model call").
import type Anthropic from '@anthropic-ai/sdk';
import { messageOf } from '../shared/protocol/errors';
import { conversationLimits, maxConcurrentToolCalls } from '../shared/protocol/limits';
import type { ContentBlock } from '../shared/model/messages';
import type { PreReadRequest } from '../shared/model/model-call';
import type { FileReadToolName } from '../shared/policy/tool-classification';
import type { ReadBatchOutcome, ToolCallInput, ToolCallResult } from '../shared/tools/tools';

/** Runs one file read (the tool's own function) under the model call's cancellation. */
export type PreRead = (tool: FileReadToolName, input: ToolCallInput, signal: AbortSignal) => Promise<ToolCallResult>;

interface Started {
  id: string;
  tool: FileReadToolName;
  outcome: Promise<ReadBatchOutcome>;
}

/** How much a model call's answer carries, and how long it waits for its file reads once it has ended. */
export interface PreReadLimits {
  maxChars: number;
  maxWaitMs: number;
}

/** The file reads one model call started: offered each complete content block of the stream, settled with the answer. */
export class PreReads {
  private readonly started: Started[] = [];
  /** False once another tool call came: a read after it may depend on it (a Write of the same file). */
  private leading = true;
  /** Aborts the reads; made with the first read, so a call starting none adds no listener to its signal. */
  private running?: AbortController;
  private stopped = false;
  private readonly onCancel = (): void => this.running?.abort(this.signal.reason);

  constructor(
    private readonly read: PreRead,
    private readonly request: PreReadRequest,
    private readonly signal: AbortSignal,
    private readonly limits: PreReadLimits = {
      maxChars: conversationLimits.maxPreReadChars,
      maxWaitMs: conversationLimits.maxPreReadWaitMs,
    },
  ) {}

  /** A content block complete in the stream: a read among the answer's leading tool calls starts now. */
  offer(block: Anthropic.Messages.ContentBlock): void {
    if (block.type !== 'tool_use' || !this.leading || this.stopped) return;
    const tool = this.request.tools.find((name) => name === block.name);
    // At most one window of concurrent calls (the workflow runs no more at once): the rest run after the call.
    if (!tool || this.started.length >= maxConcurrentToolCalls || !isObject(block.input)) {
      this.leading = false;
      return;
    }
    const input: ToolCallInput = { context: this.request.context, toolUseId: block.id, input: block.input };
    const outcome = this.read(tool, input, this.runningSignal()).then(
      (result): ReadBatchOutcome => ({ result }),
      (error: unknown): ReadBatchOutcome => ({ failure: messageOf(error) }),
    );
    this.started.push({ id: block.id, tool, outcome });
  }

  /** Outcomes by tool_use id of reads done within `maxWaitMs` and `maxChars`; the rest abort and run later. */
  async settle(content: readonly ContentBlock[]): Promise<Record<string, ReadBatchOutcome> | undefined> {
    if (this.started.length === 0) return this.stopWith(undefined);
    const inAnswer = new Set(
      content.flatMap((block) => (block.type === 'tool_use' ? [`${block.id}\u0000${block.name}`] : [])),
    );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.limits.maxWaitMs);
    });
    const kept: Record<string, ReadBatchOutcome> = {};
    let chars = 0;
    let any = false;
    try {
      for (const { id, tool, outcome } of this.started) {
        if (!inAnswer.has(`${id}\u0000${tool}`)) break;
        const settled = await Promise.race([outcome, deadline]);
        if (!settled) break;
        chars += JSON.stringify(settled).length;
        if (chars > this.limits.maxChars) break;
        kept[id] = settled;
        any = true;
      }
    } finally {
      clearTimeout(timer);
    }
    return this.stopWith(any ? kept : undefined);
  }

  /** Stops what still runs (nothing waits for it any more) and lets go of the model call's signal; also when the call failed. */
  stop(): void {
    this.stopped = true;
    if (!this.running) return;
    this.signal.removeEventListener('abort', this.onCancel);
    this.running.abort(new Error('the model call no longer waits for this read'));
  }

  /** The signal the reads run with, linked to the model call's from the first read on. */
  private runningSignal(): AbortSignal {
    if (!this.running) {
      this.running = new AbortController();
      if (this.signal.aborted) this.onCancel();
      else this.signal.addEventListener('abort', this.onCancel, { once: true });
    }
    return this.running.signal;
  }

  private stopWith<T>(value: T): T {
    this.stop();
    return value;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
