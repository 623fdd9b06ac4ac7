import { maxConcurrentToolCalls } from '../../shared/protocol/limits';
import type { ToolUseBlock } from '../../shared/model/messages';

/** A group of tool calls run together: consecutive read-only calls concurrently, others alone. */
export interface ToolBatch {
  concurrent: boolean;
  calls: ToolUseBlock[];
}

/**
 * Runs `items` at most `width` at a time, in order, starting the next as soon as any running one
 * ends (a sliding window, as Claude Code runs a message's concurrent tool calls), not in fixed
 * batches that each wait for their slowest. Resolves when all have ended; the first rejection rejects.
 */
export async function inSlidingWindow<T>(items: readonly T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, width), items.length) }, lane));
}

/**
 * Splits one turn's tool calls into batches, keeping their order: runs of consecutive read-only
 * calls become one concurrent batch (at most `maxConcurrent`), every other call is its own batch.
 */
export function partitionToolCalls(
  calls: readonly ToolUseBlock[],
  isReadOnly: (name: string) => boolean,
  maxConcurrent = maxConcurrentToolCalls,
): ToolBatch[] {
  const batches: ToolBatch[] = [];
  for (const call of calls) {
    const last = batches[batches.length - 1];
    if (isReadOnly(call.name) && last?.concurrent && last.calls.length < maxConcurrent) {
      last.calls.push(call);
    } else {
      batches.push({ concurrent: isReadOnly(call.name), calls: [call] });
    }
  }
  return batches;
}
