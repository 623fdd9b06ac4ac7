import { readLiveActivities, type LiveActivity } from './live-activities';
import { cancelWithNotice } from './stop-request';
import { watchApprovals, type CanUseTool, type CanUseToolWatcher, type CanUseToolWatchOptions } from './can-use-tool';
import { progressMessages, type ProgressOptions, type SdkTaskMessage } from './progress-messages';
import {
  Client,
  Connection,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { loadAgentDefinitions } from '../project/agent-definitions/load';
import type { AgentResult, AgentStatusSnapshot, AgentWorkflowInput } from '../shared/agents/agent';
import { createDataConverter } from '../codec/data-converter';
import { connectOptions, loadTemporalConnectionConfig } from '../config/connection-config';
import { defaultTaskQueue } from '../shared/protocol/config';
import {
  answerApprovalUpdate,
  approvalsQuery,
  budgetQuery,
  closeSignal,
  compactUpdate,
  conversationQuery,
  interruptSignal,
  messageSignal,
  pauseSpawningSignal,
  resumeDescendantUpdate,
  resumeStateQuery,
  setBudgetUpdate,
  statusQuery,
  steerUpdate,
  treeQuery,
  type CompactAck,
  type SteerAck,
} from '../shared/protocol/definitions';
import type { ApprovalRequest, TreeSnapshot } from '../shared/protocol/tree';
import type { BudgetCaps, BudgetSnapshot } from '../shared/budget/budget';
import { resumeInput } from '../shared/agents/resume';
import { withSettingsWatch } from '../shared/agents/agent-input';
import { mergeSdkAgents } from '../shared/agents/sdk-agents';
import type { MessageParam } from '../shared/model/messages';
import { agentDepthKey, agentTypeKey, rootAgentIdKey } from '../shared/protocol/search-attributes';
import { existingDirectory, rootAgentInput, type StartAgentOptions } from './root-input';
import { pluginAgentsOf } from './plugin-agents';
import {
  agentTurns,
  forkAgent,
  nearestRunningAncestor,
  rewindAgent,
  type ForkOptions,
  type ForkResult,
  type RewindOptions,
  type RewindOutcome,
} from './branches';
import type { TurnsSnapshot } from '../shared/rewind/rewind-protocol';
import { ScriptRunRefused, scriptRunInput, type RunWorkflowOptions } from './script-run-input';
import { loadScriptJournal } from './load-script-journal';
import { listScriptRuns, ScriptRunHandle, type ListWorkflowRunsOptions, type ScriptRunListing } from './script-runs';
import { resolveScript, type ScriptSource } from './script-source';
import { scriptRunWorkflowType, type CheckedScript, type ScriptResumeSource } from '../shared/scripts/script-run';

export { rootAgentInput, stallLimitsProblem, type StartAgentOptions } from './root-input';
export type { ForkOptions, ForkResult, RewindOptions, RewindOutcome } from './branches';

/** Connection settings; each defaults from the environment / temporal.toml profile, then the built-in default. */
export interface ClientConfig {
  address?: string;
  namespace?: string;
  taskQueue?: string;
}

/** The tree's root refused a change of caps (bad caps, an agent outside the tree or without an account); the message says why. */
export class BudgetChangeRefused extends Error {
  override readonly name = 'BudgetChangeRefused';
}

/** A running or finished agent. */
export class AgentHandle {
  constructor(
    readonly agentId: string,
    private readonly workflow: WorkflowHandle,
  ) {}

  /** Waits for the agent's result; a failed agent yields its partial result with status 'failed'. */
  async result(): Promise<AgentResult> {
    try {
      return (await this.workflow.result()) as AgentResult;
    } catch (error) {
      if (error instanceof WorkflowFailedError) {
        const details = (error.cause as { details?: unknown[] } | undefined)?.details;
        const partial = details?.[0] as AgentResult | undefined;
        if (partial?.status === 'failed') return partial;
      }
      throw error;
    }
  }

  status(): Promise<AgentStatusSnapshot> {
    return this.workflow.query(statusQuery);
  }

  /** What the agent's running activities report now: the model's streamed text, a command's last output lines (heartbeat details; not in history). */
  live(): Promise<LiveActivity[]> {
    return readLiveActivities(this.workflow);
  }

  /** The agent's conversation (a query: served by a worker, also after the agent finished). */
  async messages(): Promise<MessageParam[]> {
    return (await this.workflow.query(conversationQuery, { from: 0 })).messages;
  }

  /** Its turn boundaries (the points `fork` and `rewind` take) and whether its files are checkpointed (docs/rewind.md). */
  turns(): Promise<TurnsSnapshot> {
    return agentTurns(this.workflow.client, this.agentId);
  }

  /** A new agent whose conversation is this one's first `turn` turns (docs/rewind.md); this agent runs on untouched. */
  async fork(options: ForkOptions): Promise<ForkResult & { handle: AgentHandle }> {
    const forked = await forkAgent(this.workflow.client, this.agentId, options);
    return { ...forked, handle: new AgentHandle(forked.agentId, this.workflow.client.getHandle(forked.agentId)) };
  }

  /** This agent goes back to turn `turn` (in place while it runs, a new run once finished); `files` restores its workspace too. */
  async rewind(options: RewindOptions): Promise<RewindOutcome & { handle: AgentHandle }> {
    const outcome = await rewindAgent(this.workflow.client, this.agentId, options);
    // A new run is a new execution: its result is read from the latest run, not this handle's.
    const handle =
      outcome.mode === 'in-place' ? this : new AgentHandle(this.agentId, this.workflow.client.getHandle(this.agentId));
    return { ...outcome, handle };
  }

  /** Stops the agent and its whole subtree, recording who and why ("stopped by …" in its result). */
  async stop(options: { by?: string; reason?: string } = {}): Promise<void> {
    await cancelWithNotice(this.workflow, { by: options.by ?? 'user', reason: options.reason ?? 'stop requested' });
  }

  /** Cancels the agent's current turn (model call, tools, foreground children); the agent stays. */
  async interrupt(options: { by?: string; reason?: string } = {}): Promise<void> {
    await this.workflow.signal(interruptSignal, { by: options.by ?? 'user', reason: options.reason ?? 'interrupted' });
  }

  /** Queues guidance for the agent's next turn boundary; rejected (with a clear error) if the agent has finished. */
  async steer(text: string, by = 'user'): Promise<SteerAck> {
    try {
      return await this.workflow.executeUpdate(steerUpdate, { args: [{ text, by }] });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError)
        throw new Error((error.cause as Error | undefined)?.message ?? error.message);
      const closed = error instanceof WorkflowNotFoundError ? await this.closedStatus() : undefined;
      if (closed)
        throw new Error(
          `Agent ${this.agentId} has already finished; the steer was not delivered (it ended ${closed.toLowerCase()}).`,
        );
      throw error;
    }
  }

  /** COMPLETED, FAILED, CANCELLED, … for a closed agent; undefined while it runs or when it cannot be described. */
  private async closedStatus(): Promise<string | undefined> {
    try {
      const status = (await this.workflow.describe()).status.name;
      return status === 'RUNNING' ? undefined : status;
    } catch {
      return undefined;
    }
  }

  /** Asks the agent to compact at its next turn boundary, or at once when waiting (docs/architecture.md, Compaction). */
  async compact(options: { instructions?: string; by?: string } = {}): Promise<CompactAck> {
    try {
      return await this.workflow.executeUpdate(compactUpdate, {
        args: [{ by: options.by ?? 'user', ...(options.instructions ? { instructions: options.instructions } : {}) }],
      });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError)
        throw new Error((error.cause as Error | undefined)?.message ?? error.message);
      const closed = error instanceof WorkflowNotFoundError ? await this.closedStatus() : undefined;
      if (closed)
        throw new Error(
          `Agent ${this.agentId} has already finished (${closed.toLowerCase()}); there is nothing to compact.`,
        );
      throw error;
    }
  }

  /** Ends an interactive agent once it is idle. */
  async close(): Promise<void> {
    await this.workflow.signal(closeSignal);
  }

  /** The whole tree as its root knows it (call on the root). */
  tree(): Promise<TreeSnapshot> {
    return this.workflow.query(treeQuery);
  }

  /** The approval watcher `startAgent({ canUseTool })` started, if any. */
  canUseToolWatcher?: CanUseToolWatcher;

  /** Answers the tree's approval requests (subagents' at any depth) with a Claude Agent SDK `canUseTool` until the run ends. */
  async answerApprovalsWith(canUseTool: CanUseTool, options: CanUseToolWatchOptions = {}): Promise<CanUseToolWatcher> {
    const rootId = await this.rootAgentId();
    const root = rootId === this.agentId ? this.workflow : this.workflow.client.getHandle(rootId);
    return watchApprovals(root, canUseTool, options);
  }

  /** Claude Agent SDK-shaped messages about this agent's subagents (task_started, task_progress, task_notification) until the run ends. */
  async *progress(options: ProgressOptions = {}): AsyncGenerator<SdkTaskMessage> {
    const rootId = await this.rootAgentId();
    const root = rootId === this.agentId ? this.workflow : this.workflow.client.getHandle(rootId);
    yield* progressMessages(root, { ...options, ...(rootId === this.agentId ? {} : { under: this.agentId }) });
  }

  /** Approval requests waiting for a person (call on the root). */
  approvals(): Promise<ApprovalRequest[]> {
    return this.workflow.query(approvalsQuery);
  }

  /** Answers an approval request (call on the root). */
  async answerApproval(
    requestId: string,
    options: {
      approve: boolean;
      always?: boolean;
      by?: string;
      reason?: string;
      /** Run the call with this input instead of the model's (it must pass the same checks). */
      updatedInput?: Record<string, unknown>;
    },
  ): Promise<void> {
    await this.workflow.executeUpdate(answerApprovalUpdate, {
      args: [
        {
          requestId,
          approved: options.approve,
          always: options.always,
          by: options.by ?? 'user',
          reason: options.reason,
          ...(options.updatedInput ? { updatedInput: options.updatedInput } : {}),
        },
      ],
    });
  }

  /** Pauses (or resumes) new spawns in the tree (call on the root); running agents go on. */
  async pauseSpawning(paused: boolean): Promise<void> {
    await this.workflow.signal(pauseSpawningSignal, { paused });
  }

  /** The root of the agent's tree: its RootAgentId search attribute (itself for a root). */
  async rootAgentId(): Promise<string> {
    const description = await this.workflow.describe();
    return (description.typedSearchAttributes.get(rootAgentIdKey) as string | undefined) ?? this.agentId;
  }

  /** The ledger of the agent's tree by agent: spending, reservations, caps, exhaustion (docs/budgets.md); asked of the tree's root. */
  async budget(): Promise<BudgetSnapshot> {
    return this.workflow.client.getHandle(await this.rootAgentId()).query(budgetQuery);
  }

  /** Changes caps of the running tree (or `agentId`'s subtree) and returns those now in force (docs/budgets.md). */
  async setBudget(caps: BudgetCaps, options: { agentId?: string; by?: string } = {}): Promise<BudgetCaps> {
    const root = this.workflow.client.getHandle(await this.rootAgentId());
    try {
      return await root.executeUpdate(setBudgetUpdate, {
        args: [
          { caps, by: options.by ?? 'user', ...(options.agentId !== undefined ? { agentId: options.agentId } : {}) },
        ],
      });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError)
        throw new BudgetChangeRefused((error.cause as Error | undefined)?.message ?? error.message);
      throw error;
    }
  }

  /** Temporal's description of the execution (status, times, search attributes). */
  describe() {
    return this.workflow.describe();
  }
}

/** Starts and finds agents. */
export class SubagentsClient {
  readonly taskQueue: string;

  constructor(
    readonly temporal: Client,
    taskQueue?: string,
    private readonly ownedConnection?: Connection,
  ) {
    this.taskQueue = taskQueue ?? process.env.SUBAGENTS_TASK_QUEUE ?? defaultTaskQueue;
  }

  /** Connects to Temporal (TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE / SUBAGENTS_TASK_QUEUE, or the arguments). */
  static async connect(config: ClientConfig = {}): Promise<SubagentsClient> {
    const temporal = loadTemporalConnectionConfig({
      overrides: { address: config.address, namespace: config.namespace },
    });
    const connection = await Connection.connect(connectOptions(temporal));
    // The same payload codec as the workers (compression, and encryption when a key is configured).
    return new SubagentsClient(
      new Client({ connection, namespace: temporal.namespace, dataConverter: createDataConverter() }),
      config.taskQueue,
      connection,
    );
  }

  /** Starts a root agent and returns its handle at once. */
  async startAgent(options: StartAgentOptions): Promise<AgentHandle> {
    const input = await rootAgentInput(options, this.taskQueue, pluginAgentsOf(this.temporal));
    const handle = await this.temporal.workflow.start('agentWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: input.agentId,
      args: [input],
      typedSearchAttributes: rootSearchAttributes(input),
      staticSummary: `${input.agentType}: ${summarize(input.description ?? input.prompt)}`,
      staticDetails:
        `**Prompt**\n\n${input.prompt.slice(0, 4000)}\n\n**Model** ${input.model} · **cwd** ${input.cwd}` +
        (input.workspaceWorker ? ` · **worker** ${input.workspaceWorker.id}` : ''),
    });
    const agent = new AgentHandle(input.agentId, handle);
    if (options.canUseTool) agent.canUseToolWatcher = watchApprovals(handle, options.canUseTool);
    return agent;
  }

  /** Checks a script (inline, `{ path }` or saved `{ name }`) and starts it as the root of a new tree; returns at once. */
  async runWorkflow(script: ScriptSource, args?: unknown, options: RunWorkflowOptions = {}): Promise<ScriptRunHandle> {
    const checked = await resolveScript(script, { cwd: options.cwd ?? process.cwd(), homeDir: options.homeDir });
    return this.runCheckedWorkflow(checked, args, options);
  }

  /** The journal of run `runId` to resume from; throws ScriptRunRefused (ScriptResumeRefused) when it cannot be. */
  private async scriptJournal(runId: string): Promise<ScriptResumeSource> {
    const loaded = await loadScriptJournal(this.temporal, runId);
    if (!loaded.ok) throw new ScriptRunRefused(loaded.error);
    return loaded.source;
  }

  /** Starts a script already checked with `resolveScript` (the CLI checks it before connecting). */
  async runCheckedWorkflow(
    checked: CheckedScript,
    args?: unknown,
    options: RunWorkflowOptions = {},
  ): Promise<ScriptRunHandle> {
    const resumeFrom =
      options.resumeFromRunId === undefined ? undefined : await this.scriptJournal(options.resumeFromRunId);
    const taskQueue = options.taskQueue ?? this.taskQueue;
    const input = await scriptRunInput(checked, args, options, resumeFrom, taskQueue);
    const handle = await this.temporal.workflow.start(scriptRunWorkflowType, {
      taskQueue,
      workflowId: input.agentId,
      args: [input],
      typedSearchAttributes: rootSearchAttributes(input),
      staticSummary: `workflow: ${summarize(`${checked.meta.name} — ${checked.meta.description}`)}`,
      staticDetails:
        `**Script** ${checked.meta.name}${checked.path ? ` (${checked.path})` : ''}\n\n${checked.meta.description}` +
        `\n\n**Model** ${input.model} · **cwd** ${input.cwd}` +
        (resumeFrom ? ` · **resumes** ${resumeFrom.runId}` : ''),
    });
    return new ScriptRunHandle(input.agentId, handle, new AgentHandle(input.agentId, handle));
  }

  /** A handle to an existing script run by its run id. */
  getWorkflowRun(runId: string): ScriptRunHandle {
    const handle = this.temporal.workflow.getHandle(runId);
    return new ScriptRunHandle(runId, handle, new AgentHandle(runId, handle));
  }

  /** Script runs, newest first, each with its snapshot when a worker answers (Temporal visibility). */
  listWorkflowRuns(options: ListWorkflowRunsOptions = {}): Promise<ScriptRunListing[]> {
    return listScriptRuns(this.temporal, options);
  }

  /** Queues a message for a running agent, or resumes a finished (not stopped) one with it. */
  async send(agentId: string, text: string): Promise<{ delivered: 'queued' | 'resumed'; handle: AgentHandle }> {
    const workflow = this.temporal.workflow.getHandle(agentId);
    const description = await workflow.describe();
    if (description.status.name === 'RUNNING') {
      await workflow.signal(messageSignal, { from: 'user', text });
      return { delivered: 'queued', handle: new AgentHandle(agentId, workflow) };
    }
    return { delivered: 'resumed', handle: await this.resume(agentId, text) };
  }

  /** Resumes a finished agent with a new prompt; a subagent stays in its tree (docs/architecture.md, Resume). */
  async resume(
    agentId: string,
    prompt: string,
    options: { homeDir?: string; allowStopped?: boolean } = {},
  ): Promise<AgentHandle> {
    const workflow = this.temporal.workflow.getHandle(agentId);
    const description = await workflow.describe();
    if (description.status.name === 'RUNNING')
      throw new Error(`Agent ${agentId} is still running; send it a message instead of resuming it.`);
    const forceHint = `To resume it anyway: subagents resume ${agentId} "..." --force (allowStopped).`;
    if (
      !options.allowStopped &&
      (description.status.name === 'CANCELLED' || description.status.name === 'TERMINATED')
    ) {
      throw new Error(
        `Agent ${agentId} was stopped (${description.status.name.toLowerCase()}); stopped agents are not resumed. ${forceHint}`,
      );
    }
    const previous = await workflow.query(resumeStateQuery);
    if (previous.tree?.budgetExceeded)
      throw new Error(
        `Agent ${agentId}'s tree has used its token budget (${previous.tree.tokensUsed} tokens); it is not resumed.`,
      );
    if (previous.stoppedBy && !options.allowStopped)
      throw new Error(
        `Agent ${agentId} was stopped by ${previous.stoppedBy}; stopped agents are not resumed. ${forceHint}`,
      );
    await existingDirectory(previous.input.cwd, `Agent ${agentId}'s working directory`);
    if (previous.input.parentAgentId !== undefined) {
      const ancestor = await nearestRunningAncestor(this.temporal.workflow, agentId);
      if (ancestor) return this.resumeThrough(ancestor, agentId, prompt, options.allowStopped === true);
    }
    // A Claude Agent SDK type of its tree is still its type: its definition travels in the input.
    const { definitions } = mergeSdkAgents(
      await loadAgentDefinitions({ cwd: previous.input.cwd, homeDir: options.homeDir }),
      previous.input.sdkAgents,
    );
    const definition =
      previous.input.agentType === 'fork'
        ? undefined
        : (definitions[previous.input.agentType] ?? definitions['general-purpose']);
    let input = resumeInput(
      previous,
      prompt,
      // A type that no longer exists is replaced, and its system prompt rendered anew for the new type.
      definition && definition.name !== previous.input.agentType
        ? {
            agentType: definition.name,
            definitionPrompt: definition.prompt,
            definitionPromptRef: undefined,
            renderedSystemPrompt: undefined,
          }
        : {},
    );
    if (previous.input.parentAgentId !== undefined) input = await this.asRootOfSubtree(input);
    input = withSettingsWatch(input);
    const resumed = await this.temporal.workflow.start('agentWorkflow', {
      taskQueue: description.taskQueue,
      workflowId: agentId,
      args: [input],
      typedSearchAttributes: description.typedSearchAttributes,
      staticSummary: `${input.agentType}: ${summarize(input.description ?? input.prompt)} (resumed)`,
    });
    return new AgentHandle(agentId, resumed);
  }

  /** Asks a running ancestor to resume its descendant as its own child (the resumeDescendant update). */
  private async resumeThrough(
    ancestorId: string,
    agentId: string,
    prompt: string,
    allowStopped: boolean,
  ): Promise<AgentHandle> {
    try {
      await this.temporal.workflow
        .getHandle(ancestorId)
        .executeUpdate(resumeDescendantUpdate, { args: [{ agentId, prompt, allowStopped, by: 'user' }] });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError)
        throw new Error((error.cause as Error | undefined)?.message ?? error.message);
      throw error;
    }
    return new AgentHandle(agentId, this.temporal.workflow.getHandle(agentId));
  }

  /** A subagent resumed after its tree ended roots its own subtree, under the ended tree's budget (not its pause). */
  private async asRootOfSubtree(input: AgentWorkflowInput): Promise<AgentWorkflowInput> {
    let tree: TreeSnapshot | undefined;
    try {
      tree = await this.temporal.workflow.getHandle(input.rootAgentId).query(treeQuery);
    } catch {
      // The ended root cannot be read (no worker, or it is gone): the subtree starts with a fresh count.
    }
    const budget = input.limits.treeTokenBudget;
    if (tree && ((budget !== undefined && tree.tokensUsed >= budget) || tree.budgetReached)) {
      throw new Error(
        `Agent ${input.agentId}'s tree has used its token budget (${tree.budgetReached ?? `${tree.tokensUsed} of ${budget} tokens`}); it is not resumed.`,
      );
    }
    return {
      ...input,
      rootAgentId: input.agentId,
      carriedTree: tree
        ? { tokensUsed: tree.tokensUsed, budgetExceeded: false, paused: false, alwaysAllowed: [], finishedNodes: [] }
        : undefined,
    };
  }

  /** Terminates a stuck agent and its running descendants, deepest first; prefer `AgentHandle.stop()`. */
  async forceStop(agentId: string, options: { by?: string; reason?: string } = {}): Promise<string[]> {
    const reason = `force-stopped by ${options.by ?? 'user'}: ${options.reason ?? 'stop --force'}`;
    const description = await this.temporal.workflow.getHandle(agentId).describe();
    const rootId = (description.typedSearchAttributes.get(rootAgentIdKey) as string | undefined) ?? agentId;
    const subtree: string[] = [];
    for await (const execution of this.temporal.workflow.list({
      query: `${rootAgentIdKey.name} = '${escapeQueryValue(rootId)}' AND ExecutionStatus = 'Running'`,
    })) {
      if (execution.workflowId.startsWith(`${agentId}.`)) subtree.push(execution.workflowId);
      if (subtree.length >= 10_000) break;
    }
    const deepestFirst = [...subtree.sort((left, right) => right.split('.').length - left.split('.').length), agentId];
    const terminated: string[] = [];
    for (const id of deepestFirst) {
      try {
        await this.temporal.workflow.getHandle(id).terminate(reason);
        terminated.push(id);
      } catch (error) {
        // Closed meanwhile (e.g. its parent's close policy reached it first).
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    }
    return terminated;
  }

  /** Finds an agent of a tree by name (running agents answer the status query). */
  async findByName(rootAgentId: string, name: string): Promise<string | undefined> {
    let checked = 0;
    for await (const execution of this.temporal.workflow.list({
      query: `RootAgentId = '${escapeQueryValue(rootAgentId)}'`,
    })) {
      if (++checked > 500) break;
      try {
        const status = await this.temporal.workflow.getHandle(execution.workflowId).query(statusQuery);
        if (status.name === name) return execution.workflowId;
      } catch {
        // Not answering (no worker, or closed long ago): skip.
      }
    }
    return undefined;
  }

  /** A handle to an existing agent by agentId (its workflow ID). */
  getAgent(agentId: string): AgentHandle {
    return new AgentHandle(agentId, this.temporal.workflow.getHandle(agentId));
  }

  async close(): Promise<void> {
    await this.ownedConnection?.close();
  }
}

/** A string inside single quotes of a visibility query. */
function escapeQueryValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}

/** The search attributes of a tree's root, agent or script run (docs/operations.md lists them). */
function rootSearchAttributes(input: AgentWorkflowInput) {
  return [
    { key: agentTypeKey, value: input.agentType },
    { key: rootAgentIdKey, value: input.agentId },
    { key: agentDepthKey, value: 0 },
  ];
}

function summarize(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
