import { ApplicationFailure } from '@temporalio/workflow';
import type { ToolCallInput, ToolCallResult } from '../../shared/tools/tools';
import { localReadActivities, localReadOptions } from '../runtime/activity-proxies';
import { afterMicrotaskTurns } from '../runtime/microtask-turns';
import { hasPatch } from '../runtime/patches';

/**
 * Marks runs whose side-by-side Reads run in one `readBatch` local activity (docs/testing.md, patches).
 * Asked only when a batch has two Reads or more, so a run that reads one file at a time records
 * exactly the commands it did before.
 */
export const batchedReadsPatch = 'batched-local-reads';

/**
 * How many microtask turns a Read waits for the others of its turn before its batch goes out. The
 * calls of one batch of concurrent tools (src/workflows/tools/run-tools.ts) take the same steps, so they
 * reach this point in the same turn; one that needs more (an approval, a hook) goes in a batch of
 * its own. Deterministic: microtasks run in the same order on replay. (Counted with
 * `afterMicrotaskTurns`, which keeps the turns of the three awaits it replaced.)
 */
const gatherTurns = 3;

interface Waiting {
  input: ToolCallInput;
  summary: string;
  resolve(result: ToolCallResult): void;
  reject(error: unknown): void;
}

/** Reads waiting for their batch to go out (module state: one per workflow run, the sandbox loads modules per run). */
/** Stays module state: the workspace tool runners that read here are handed no agent part. */
let gathering: Waiting[] | undefined;

/**
 * One Read inside the workflow task (docs/operations.md, "Worker tuning"): with other Reads of the
 * same turn, in one local activity, so the workflow task is woken once for all of them.
 */
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
  if (batch.length > 1 && hasPatch(batchedReadsPatch)) {
    void sendBatch(batch);
    return;
  }
  // One Read (or a run from before batches): one local activity each, as before.
  for (const waiting of batch) {
    localReadActivities.Read.executeWithOptions({ ...localReadOptions, summary: waiting.summary }, [waiting.input]).then(waiting.resolve, waiting.reject);
  }
}

async function sendBatch(batch: Waiting[]): Promise<void> {
  const summary = `Read ×${batch.length}: ${batch.map((waiting) => waiting.summary.replace(/^Read /, '')).join(', ')}`.slice(0, 200);
  try {
    const outcomes = await localReadActivities.readBatch.executeWithOptions({ ...localReadOptions, summary }, [batch.map((waiting) => waiting.input)]);
    batch.forEach((waiting, index) => {
      const outcome = outcomes[index];
      if (outcome && 'result' in outcome) waiting.resolve(outcome.result);
      else waiting.reject(readFailure(outcome?.failure ?? 'the batch returned no result for this Read'));
    });
  } catch (error) {
    for (const waiting of batch) waiting.reject(error);
  }
}
