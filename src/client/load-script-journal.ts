// A finished script run's journal of `agent()` calls, for a new run to reuse (Claude Code's `resumeFromRunId`): one
// implementation for the client (`runWorkflow`, `subagents run --resume-from`) and the worker (the Workflow tool).
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { z } from 'zod';
import { ErrorType, errorText } from '../shared/protocol/errors';
import { scriptJournalQuery } from '../shared/scripts/script-queries';
import { scriptRunWorkflowType, type ScriptJournalEntry } from '../shared/scripts/script-run';
import type { LoadScriptJournalResult } from '../shared/scripts/script-sources';

/** How long the run may take to answer its journal query (a closed run is replayed on a worker to answer). */
const journalQueryTimeoutMs = 30_000;

const journalSchema = z.array(
  z.object({
    index: z.number().int().positive(),
    key: z.string(),
    agentId: z.string(),
    status: z.enum(['completed', 'failed', 'cancelled']),
    value: z.unknown().optional(),
    error: z.string().optional(),
    tokens: z.number(),
  }),
);

function refused(detail: string): { ok: false; error: string } {
  return { ok: false, error: errorText(ErrorType.ScriptResumeRefused, detail) };
}

/** Loads run `runId`'s journal; refuses an unknown run, another kind of workflow, a running run, or one with no finished call. */
export async function loadScriptJournal(temporalClient: Client, runId: string): Promise<LoadScriptJournalResult> {
  if (typeof runId !== 'string' || runId.trim() === '')
    return refused(
      'the run id to resume from is empty; give the run id of a finished script run (`subagents workflows` lists them).',
    );
  const handle = temporalClient.workflow.getHandle(runId);
  let description: Awaited<ReturnType<typeof handle.describe>>;
  try {
    description = await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError)
      return refused(
        `no script run "${runId}" to resume from; give the run id of a finished script run (\`subagents workflows\` lists them).`,
      );
    throw error;
  }
  if (description.type !== scriptRunWorkflowType)
    return refused(
      `"${runId}" is not a script run (it is a ${description.type} workflow); give the run id of a finished script run.`,
    );
  if (description.status.name === 'RUNNING' || description.status.name === 'PAUSED')
    return refused(`run "${runId}" is still running; stop it first or wait for it to finish, then resume from it.`);
  const answer = await temporalClient.withDeadline(Date.now() + journalQueryTimeoutMs, () =>
    handle.query(scriptJournalQuery),
  );
  const parsed = journalSchema.safeParse(answer);
  if (!parsed.success)
    return refused(
      `run "${runId}" answered its journal query with something that is not a journal; run the script afresh.`,
    );
  const journal = parsed.data.map(entryOf);
  if (journal.length === 0)
    return refused(
      `run "${runId}" finished no agent() call, so there is nothing to resume; run the script afresh, without resuming.`,
    );
  return { ok: true, source: { runId, journal } };
}

/** An entry as the contract's type, optional fields only when present. */
function entryOf(entry: z.infer<typeof journalSchema>[number]): ScriptJournalEntry {
  const { value, error, ...rest } = entry;
  return { ...rest, ...(value !== undefined ? { value } : {}), ...(error !== undefined ? { error } : {}) };
}
