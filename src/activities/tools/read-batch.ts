// A turn's Reads in one local activity, waking the workflow task once (docs/operations.md, "Worker tuning").
import { Context } from '@temporalio/activity';
import { messageOf } from '../../shared/protocol/errors';
import type { ReadBatchOutcome, ToolCallInput, ToolCallResult } from '../../shared/tools/tools';

/** The batch activity over the single Read activity: every input read side by side, each with its own outcome. */
export function createReadBatchActivity(read: (input: ToolCallInput) => Promise<ToolCallResult>): {
  readBatch: (inputs: ToolCallInput[]) => Promise<ReadBatchOutcome[]>;
} {
  return {
    readBatch: async (inputs) => {
      const settled = await Promise.allSettled(inputs.map((input) => read(input)));
      // Cancelled (the turn was interrupted or the agent stopped): the batch is cancelled as a whole, as one Read would be.
      const signal = Context.current().cancellationSignal;
      if (signal.aborted) throw settled.find((outcome) => outcome.status === 'rejected')?.reason ?? signal.reason;
      return settled.map((outcome) =>
        outcome.status === 'fulfilled' ? { result: outcome.value } : { failure: messageOf(outcome.reason) },
      );
    },
  };
}
