import { maxConcurrentToolCalls } from '../../shared/protocol/limits';
import type { ToolUseBlock } from '../../shared/model/messages';

/** A group of tool calls run together: consecutive read-only calls concurrently, others alone. */
export interface ToolBatch {
  concurrent: boolean;
  calls: ToolUseBlock[];
}

/** Runs `items` at most `width` at a time in a sliding window; the first rejection rejects. */
export async function inSlidingWindow<T>(
  items: readonly T[],
  width: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, width), items.length) }, lane));
}

/** Splits a turn's calls into batches in order: consecutive read-only calls together, others alone. */
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
