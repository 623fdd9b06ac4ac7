import { ApplicationFailure } from '@temporalio/workflow';
import type { ToolCallInput, ToolCallResult } from '../../shared/tools/tools';
import { localReadActivities, localReadOptions } from '../runtime/activity-proxies';
import { afterMicrotaskTurns } from '../runtime/microtask-turns';

/** Microtask turns a Read waits for the rest of its batch; deterministic, as microtasks replay in order. */
const gatherTurns = 3;

interface Waiting {
  input: ToolCallInput;
  summary: string;
  resolve(result: ToolCallResult): void;
  reject(error: unknown): void;
}

/** Reads waiting for their batch to go out. Module state: the tool runners reading here have no agent part. */
let gathering: Waiting[] | undefined;

/** One Read batched with the turn's other Reads in one local activity (docs/operations.md). */
export function readLocally(input: ToolCallInput, summary: string): Promise<ToolCallResult> {
  return new Promise<ToolCallResult>((resolve, reject) => {
    if (gathering) {
      gathering.push({ input, summary, resolve, reject });
      return;
    }
    gathering = [{ input, summary, resolve, reject }];
    afterMicrotaskTurns(gatherTurns, sendGathered);
  });
}

/** A Read of a batch (or started with the model call, src/workflows/tools/pre-reads.ts) that threw: a failure of that call alone, not retried. */
export function readFailure(message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, nonRetryable: true });
}

function sendGathered(): void {
  const batch = gathering ?? [];
  gathering = undefined;
  if (batch.length > 1) {
    void sendBatch(batch);
    return;
  }
  // One Read: its own local activity.
  for (const waiting of batch) {
    localReadActivities.Read.executeWithOptions({ ...localReadOptions, summary: waiting.summary }, [
      waiting.input,
    ]).then(waiting.resolve, waiting.reject);
  }
}

async function sendBatch(batch: Waiting[]): Promise<void> {
  const summary =
    `Read ×${batch.length}: ${batch.map((waiting) => waiting.summary.replace(/^Read /, '')).join(', ')}`.slice(0, 200);
  try {
    const outcomes = await localReadActivities.readBatch.executeWithOptions({ ...localReadOptions, summary }, [
      batch.map((waiting) => waiting.input),
    ]);
    batch.forEach((waiting, index) => {
      const outcome = outcomes[index];
      if (outcome && 'result' in outcome) waiting.resolve(outcome.result);
      else waiting.reject(readFailure(outcome?.failure ?? 'the batch returned no result for this Read'));
    });
  } catch (error) {
    for (const waiting of batch) waiting.reject(error);
  }
}
