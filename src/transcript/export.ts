import { isGrpcDeadlineError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { AgentWorkflowInput } from '../shared/agents/agent';
import { transcriptQuery } from '../shared/protocol/definitions';
import { readRunHistory, type PayloadDecoder, type RunFacts } from './history-events';
import { simpleGit } from 'simple-git';
import { stitchRuns, type RunLog } from './stitch';
import { messageCalls, messageTimestamps } from './timeline';
import type { AgentTranscript, TranscriptMetaRecord, TranscriptWorktree } from './transcript-types';

/** No worker answered the conversation query: transcripts are read by a worker replaying the history. */
export class NoWorkerError extends Error {
  override readonly name = 'NoWorkerError';

  constructor(
    readonly agentId: string,
    readonly taskQueue: string,
  ) {
    super(
      `No worker answered for agent ${agentId} (task queue "${taskQueue}"): a transcript is read by a worker replaying the agent's history. ` +
        'Start a worker: subagents worker',
    );
  }
}

/** Options of the transcript readers. */
export interface TranscriptReadOptions {
  /** How long to wait for a worker to answer the conversation query (default 15 s). */
  queryTimeoutMs?: number;
}

const defaultQueryTimeoutMs = 15_000;

/** Decodes payloads from a fetched history with the client's own codecs and payload converter. */
export function payloadDecoder(client: Client): PayloadDecoder {
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  return async (payloads) => {
    const first = payloads?.[0];
    if (!first) return undefined;
    let decoded = [first];
    for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
    return payloadConverter.fromPayload(decoded[0]!);
  };
}

/** Run ids of a workflow id, oldest first; the latest run is always included even if visibility lags. */
async function runIdsOf(client: Client, agentId: string, latestRunId: string): Promise<string[]> {
  const runs: { runId: string; startMs: number }[] = [];
  const escaped = agentId.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${escaped}'` })) {
    runs.push({ runId: execution.runId, startMs: execution.startTime.getTime() });
    if (runs.length >= 1000) break;
  }
  const ordered = runs.sort((left, right) => left.startMs - right.startMs).map((run) => run.runId);
  return ordered.includes(latestRunId) ? ordered : [...ordered, latestRunId];
}

async function checkWorkerPolls(client: Client, agentId: string, taskQueue: string): Promise<void> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  if ((response.pollers ?? []).length === 0) throw new NoWorkerError(agentId, taskQueue);
}

function worktreeOf(
  runs: readonly RunFacts[],
  input: Partial<AgentWorkflowInput> & { worktree?: unknown },
): TranscriptWorktree | null {
  const candidates = [...runs.flatMap((run) => run.worktrees).reverse(), input.worktree];
  for (const candidate of candidates) {
    const worktree = candidate as Partial<TranscriptWorktree> | undefined;
    if (typeof worktree?.path === 'string' && typeof worktree.branch === 'string')
      return { path: worktree.path, branch: worktree.branch };
  }
  return null;
}

/** The branch checked out in `directory`; '' when it is no git repository (or is gone). */
async function gitBranchOf(directory: string | null): Promise<string> {
  if (!directory) return '';
  try {
    return (await simpleGit(directory).revparse(['--abbrev-ref', 'HEAD'])).trim();
  } catch {
    return '';
  }
}

async function metaOf(
  agentId: string,
  input: Partial<AgentWorkflowInput>,
  runs: readonly RunFacts[],
): Promise<TranscriptMetaRecord> {
  const worktree = worktreeOf(runs, input);
  const cwd = worktree?.path ?? input.cwd ?? null;
  return {
    type: 'meta',
    agentId,
    agentType: input.agentType ?? 'unknown',
    description: input.description ?? null,
    parentAgentId: input.parentAgentId ?? null,
    parentToolUseId: input.parentToolUseId ?? null,
    depth: input.depth ?? 0,
    model: input.model ?? 'unknown',
    worktree,
    cwd,
    gitBranch: worktree?.branch ?? (await gitBranchOf(cwd)),
  };
}

/** Reads one agent's transcript over all its runs; throws WorkflowNotFoundError or NoWorkerError. */
export async function readAgentTranscript(
  client: Client,
  agentId: string,
  options: TranscriptReadOptions = {},
): Promise<AgentTranscript> {
  const handle = client.workflow.getHandle(agentId);
  const description = await handle.describe();
  const decode = payloadDecoder(client);
  const runIds = await runIdsOf(client, agentId, description.runId);
  const runs: RunFacts[] = [];
  for (const runId of runIds)
    runs.push(await readRunHistory(await client.workflow.getHandle(agentId, runId).fetchHistory(), decode));

  await checkWorkerPolls(client, agentId, description.taskQueue);
  const deadline = Date.now() + (options.queryTimeoutMs ?? defaultQueryTimeoutMs);
  const logs: RunLog[] = [];
  try {
    for (const runId of runIds) logs.push(await readRunLog(client, agentId, runId, deadline));
  } catch (error) {
    // Past the deadline gRPC reports DEADLINE_EXCEEDED or, under load, CANCELLED: both mean nobody answered.
    if (isGrpcDeadlineError(error) || Date.now() >= deadline) throw new NoWorkerError(agentId, description.taskQueue);
    throw error;
  }
  const { messages, boundaries, inheritedCount, turns, rewinds } = stitchRuns(logs);

  const latestInput = (runs[runs.length - 1]?.input ?? {}) as Partial<AgentWorkflowInput>;
  const events = runs.flatMap((run) => run.events);
  const times = messageTimestamps(messages, inheritedCount, events);
  const calls = messageCalls(messages, inheritedCount, events);
  return {
    meta: await metaOf(agentId, latestInput, runs),
    messages: messages.map((message, index) => {
      const call = calls[index];
      return { message, timestampMs: times[index]!, ...(call ? { call } : {}) };
    }),
    compactions: boundaries,
    turns,
    ...(rewinds.length > 0 ? { rewinds } : {}),
    runIds,
    childIds: [...new Set(runs.flatMap((run) => run.childIds))],
  };
}

/** One run's transcript log, page by page, compacted messages included. */
async function readRunLog(client: Client, agentId: string, runId: string, deadline: number): Promise<RunLog> {
  const handle = client.workflow.getHandle(agentId, runId);
  const first = await client.withDeadline(deadline, () => handle.query(transcriptQuery, { from: 0 }));
  const messages = [...first.messages];
  while (messages.length < first.total) {
    const page = await client.withDeadline(deadline, () => handle.query(transcriptQuery, { from: messages.length }));
    if (page.messages.length === 0) break;
    messages.push(...page.messages);
  }
  return {
    runId,
    messages,
    carriedCount: first.carriedCount,
    boundaries: first.boundaries,
    current: first.current,
    ...(first.turnMarks ? { turnMarks: first.turnMarks } : {}),
    ...(first.copies ? { copies: first.copies } : {}),
    ...(first.rewinds ? { rewinds: first.rewinds } : {}),
  };
}

/** The transcripts of an agent and its descendants, depth first (a child that never started is left out). */
export async function readTreeTranscripts(
  client: Client,
  agentId: string,
  options: TranscriptReadOptions = {},
): Promise<AgentTranscript[]> {
  const transcripts: AgentTranscript[] = [];
  const seen = new Set<string>();
  const visit = async (id: string, isRoot: boolean): Promise<void> => {
    if (seen.has(id)) return;
    seen.add(id);
    let transcript: AgentTranscript;
    try {
      transcript = await readAgentTranscript(client, id, options);
    } catch (error) {
      if (!isRoot && error instanceof WorkflowNotFoundError) return;
      throw error;
    }
    transcripts.push(transcript);
    for (const childId of transcript.childIds) await visit(childId, false);
  };
  await visit(agentId, true);
  return transcripts;
}
