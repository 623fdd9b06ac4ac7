// Script runs from the client's side (docs/api.md): a run's handle and the list of runs from Temporal's visibility.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentStatusSnapshot } from '../shared/agents/agent';
import type { SteerAck } from '../shared/protocol/definitions';
import { scriptJournalQuery, scriptRunQuery } from '../shared/scripts/script-queries';
import { scriptRunWorkflowType, type ScriptJournalEntry, type ScriptRunSnapshot } from '../shared/scripts/script-run';
import { parentAgentIdKey, rootAgentIdKey } from '../shared/protocol/search-attributes';

/** What a run shares with an agent (an AgentHandle on the run's workflow; declared here so this module needs no client.ts). */
export interface RunAsAgent {
  result(): Promise<AgentResult>;
  status(): Promise<AgentStatusSnapshot>;
  stop(options?: { by?: string; reason?: string }): Promise<void>;
  steer(text: string, by?: string): Promise<SteerAck>;
}

/** A script run: its result, phases and journal; stop and steer as on an agent (a steer reaches its running agents). */
export class ScriptRunHandle {
  constructor(
    /** The run's workflow ID (its agents are `<runId>.<n>`). */
    readonly runId: string,
    private readonly run: WorkflowHandle,
    private readonly agent: RunAsAgent,
  ) {}

  /** Waits for the run's result: finalText is the script's return value (a string as is, else JSON). */
  result(): Promise<AgentResult> {
    return this.agent.result();
  }

  /** Phases, agents, logs and (once finished) the result (the `scriptRun` query: needs a worker). */
  snapshot(): Promise<ScriptRunSnapshot> {
    return this.run.query(scriptRunQuery);
  }

  /** Finished `agent()` calls in call order: what a run resuming from this one reuses. */
  journal(): Promise<ScriptJournalEntry[]> {
    return this.run.query(scriptJournalQuery);
  }

  /** The run as an agent of its tree: state, usage, and its result once finished (the `status` query). */
  status(): Promise<AgentStatusSnapshot> {
    return this.agent.status();
  }

  /** Stops the run and all its agents, recording who and why. */
  stop(options: { by?: string; reason?: string } = {}): Promise<void> {
    return this.agent.stop(options);
  }

  /** Guidance for the run's running agents, delivered at their next turn boundary. */
  steer(text: string, by = 'user'): Promise<SteerAck> {
    return this.agent.steer(text, by);
  }

  /** Temporal's description of the run's execution. */
  describe() {
    return this.run.describe();
  }
}

/** One run as Temporal's visibility lists it, with its snapshot when a worker answered the query in time. */
export interface ScriptRunListing {
  runId: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, CANCELED, TERMINATED, TIMED_OUT. */
  executionStatus: string;
  startTime: string;
  closeTime?: string;
  /** Set for a run an agent started (its Workflow tool); absent for a run a client started. */
  parentAgentId?: string;
  rootAgentId?: string;
  snapshot?: ScriptRunSnapshot;
}

/** Options of `listWorkflowRuns`. */
export interface ListWorkflowRunsOptions {
  /** Only running runs (default: all). */
  running?: boolean;
  /** At most this many, newest first (default 50). */
  limit?: number;
  /** Ask each run its snapshot (default true); false lists from visibility alone. */
  snapshots?: boolean;
  /** How long one snapshot query may take before the run is listed without it (default 5 s). */
  queryTimeoutMs?: number;
}

/** Script runs, newest first, from visibility (`WorkflowType = 'scriptRunWorkflow'`), each with its snapshot when it answers. */
export async function listScriptRuns(
  temporal: Client,
  options: ListWorkflowRunsOptions = {},
): Promise<ScriptRunListing[]> {
  const limit = options.limit ?? 50;
  const query = `WorkflowType = '${scriptRunWorkflowType}'${options.running ? " AND ExecutionStatus = 'Running'" : ''}`;
  const listings: ScriptRunListing[] = [];
  for await (const execution of temporal.workflow.list({ query })) {
    if (listings.length >= limit) break;
    const parentAgentId = execution.typedSearchAttributes.get(parentAgentIdKey);
    const rootAgentId = execution.typedSearchAttributes.get(rootAgentIdKey);
    listings.push({
      runId: execution.workflowId,
      executionStatus: execution.status.name,
      startTime: execution.startTime.toISOString(),
      ...(execution.closeTime ? { closeTime: execution.closeTime.toISOString() } : {}),
      ...(parentAgentId !== undefined ? { parentAgentId } : {}),
      ...(rootAgentId !== undefined ? { rootAgentId } : {}),
    });
  }
  if (options.snapshots === false) return listings;
  const timeoutMs = options.queryTimeoutMs ?? 5000;
  await Promise.all(
    listings.map(async (listing) => {
      try {
        // A run whose workers are gone cannot answer: it is listed from visibility alone.
        listing.snapshot = await temporal.withDeadline(Date.now() + timeoutMs, () =>
          temporal.workflow.getHandle(listing.runId).query(scriptRunQuery),
        );
      } catch {
        // Listed without its snapshot.
      }
    }),
  );
  return listings;
}
