import { Client, Connection, WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { rootToolPool } from './shared/tool-pool';
import { loadAgentDefinitions } from './activities/agent-definitions/load';
import { loadMcpConfig } from './activities/mcp/config';
import { agentMcpInput } from './shared/mcp';
import type { AgentResult, AgentStatusSnapshot, AgentWorkflowInput, PermissionMode } from './shared/agent';
import { buildRootInput } from './shared/agent-input';
import { defaultAgentLimits, type AgentLimits } from './shared/limits';
import { createDataConverter } from './codec/data-converter';
import { connectOptions, loadTemporalConnectionConfig } from './connection-config';
import { defaultTaskQueue } from './shared/config';
import {
  answerApprovalUpdate,
  approvalsQuery,
  closeSignal,
  conversationQuery,
  interruptSignal,
  messageSignal,
  pauseSpawningSignal,
  resumeStateQuery,
  statusQuery,
  steerUpdate,
  stopNoticeSignal,
  treeQuery,
  type SteerAck,
} from './shared/definitions';
import type { ApprovalRequest, TreeSnapshot } from './shared/tree';
import { resumeInput } from './shared/resume';
import type { MessageParam } from './shared/messages';
import { defaultModel, resolveModelAlias } from './shared/models';
import { agentDepthKey, agentTypeKey, rootAgentIdKey } from './shared/search-attributes';

/** Options of `startAgent`. */
export interface StartAgentOptions {
  prompt: string;
  /** Agent type (default general-purpose). */
  type?: string;
  /** Model id or alias (haiku, sonnet, opus); default the type's model, else claude-sonnet-5. */
  model?: string;
  /** Working directory and workspace root (default process.cwd()). */
  cwd?: string;
  /** Human name, shown in status and usable as an address. */
  name?: string;
  /** Workflow ID to use (default `agent-<random>`). */
  agentId?: string;
  maxTurns?: number;
  permissionMode?: PermissionMode;
  /** Tool pool override (default: the type's tools). */
  tools?: string[];
  /** Tree limits (depth, concurrency, budget, auto-background threshold); defaults in defaultAgentLimits. */
  limits?: Partial<AgentLimits>;
  /** Overrides ~ when looking for user agent definitions (tests). */
  homeDir?: string;
  /** Keep the agent waiting for the next message after each answer (until closed or idle this long). */
  interactive?: { idleTimeoutMs: number };
  /** max_tokens of each model call (default 8192). */
  maxOutputTokens?: number;
}

/** Connection settings; each defaults from the environment / temporal.toml profile, then the built-in default. */
export interface ClientConfig {
  address?: string;
  namespace?: string;
  taskQueue?: string;
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

  /** The agent's conversation (a query: served by a worker, also after the agent finished). */
  async messages(): Promise<MessageParam[]> {
    return (await this.workflow.query(conversationQuery, { from: 0 })).messages;
  }

  /**
   * Stops the agent and its whole subtree (background children included): records who and why,
   * then cancels the workflow. The agent's result (and its parent's view of it) says "stopped by …".
   */
  async stop(options: { by?: string; reason?: string } = {}): Promise<void> {
    await this.workflow.signal(stopNoticeSignal, { by: options.by ?? 'user', reason: options.reason ?? 'stop requested' });
    await this.workflow.cancel();
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
      if (error instanceof WorkflowUpdateFailedError) throw new Error((error.cause as Error | undefined)?.message ?? error.message);
      if (error instanceof WorkflowNotFoundError && (await this.isClosed())) {
        throw new Error(`Agent ${this.agentId} has already finished; the steer was not delivered.`);
      }
      throw error;
    }
  }

  private async isClosed(): Promise<boolean> {
    try {
      return (await this.workflow.describe()).status.name !== 'RUNNING';
    } catch {
      return false;
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

  /** Approval requests waiting for a person (call on the root). */
  approvals(): Promise<ApprovalRequest[]> {
    return this.workflow.query(approvalsQuery);
  }

  /** Answers an approval request (call on the root). */
  async answerApproval(requestId: string, options: { approve: boolean; always?: boolean; by?: string; reason?: string }): Promise<void> {
    await this.workflow.executeUpdate(answerApprovalUpdate, {
      args: [{ requestId, approved: options.approve, always: options.always, by: options.by ?? 'user', reason: options.reason }],
    });
  }

  /** Pauses (or resumes) new spawns in the tree (call on the root); running agents go on. */
  async pauseSpawning(paused: boolean): Promise<void> {
    await this.workflow.signal(pauseSpawningSignal, { paused });
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
    const temporal = loadTemporalConnectionConfig({ overrides: { address: config.address, namespace: config.namespace } });
    const connection = await Connection.connect(connectOptions(temporal));
    // The same payload codec as the workers (compression, and encryption when a key is configured).
    return new SubagentsClient(new Client({ connection, namespace: temporal.namespace, dataConverter: createDataConverter() }), config.taskQueue, connection);
  }

  /** Starts a root agent and returns its handle at once. */
  async startAgent(options: StartAgentOptions): Promise<AgentHandle> {
    const input = await rootAgentInput(options);
    const handle = await this.temporal.workflow.start('agentWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: input.agentId,
      args: [input],
      typedSearchAttributes: [
        { key: agentTypeKey, value: input.agentType },
        { key: rootAgentIdKey, value: input.agentId },
        { key: agentDepthKey, value: 0 },
      ],
      staticSummary: `${input.agentType}: ${summarize(input.description ?? input.prompt)}`,
      staticDetails: `**Prompt**\n\n${input.prompt.slice(0, 4000)}\n\n**Model** ${input.model} · **cwd** ${input.cwd}`,
    });
    return new AgentHandle(input.agentId, handle);
  }

  /**
   * Sends a message to an agent: queued for its next turn boundary when it is running; when it has
   * finished, it is resumed with the message (a new run of the same agentId continuing from its
   * history). An agent that was stopped is not resumed. Returns what happened.
   */
  async send(agentId: string, text: string): Promise<{ delivered: 'queued' | 'resumed'; handle: AgentHandle }> {
    const workflow = this.temporal.workflow.getHandle(agentId);
    const description = await workflow.describe();
    if (description.status.name === 'RUNNING') {
      await workflow.signal(messageSignal, { from: 'user', text });
      return { delivered: 'queued', handle: new AgentHandle(agentId, workflow) };
    }
    return { delivered: 'resumed', handle: await this.resume(agentId, text) };
  }

  /**
   * Resumes a finished agent with a new prompt: a new run of the same agentId continuing from its
   * history (unresolved tool_uses dropped). Its type is looked up again: a type that no longer
   * exists becomes general-purpose. A kept worktree is reused. Stopped agents are refused.
   */
  async resume(agentId: string, prompt: string, options: { homeDir?: string } = {}): Promise<AgentHandle> {
    const workflow = this.temporal.workflow.getHandle(agentId);
    const description = await workflow.describe();
    if (description.status.name === 'RUNNING') throw new Error(`Agent ${agentId} is still running; send it a message instead of resuming it.`);
    if (description.status.name === 'CANCELLED' || description.status.name === 'TERMINATED') {
      throw new Error(`Agent ${agentId} was stopped (${description.status.name.toLowerCase()}); stopped agents are not resumed.`);
    }
    const previous = await workflow.query(resumeStateQuery);
    if (previous.stoppedBy) throw new Error(`Agent ${agentId} was stopped by ${previous.stoppedBy}; stopped agents are not resumed.`);
    const { definitions } = await loadAgentDefinitions({ cwd: previous.input.cwd, homeDir: options.homeDir });
    const definition = previous.input.agentType === 'fork' ? undefined : (definitions[previous.input.agentType] ?? definitions['general-purpose']);
    const input = resumeInput(
      previous,
      prompt,
      // A type that no longer exists is replaced, and its system prompt rendered anew for the new type.
      definition && definition.name !== previous.input.agentType
        ? { agentType: definition.name, definitionPrompt: definition.prompt, renderedSystemPrompt: undefined }
        : {},
    );
    const resumed = await this.temporal.workflow.start('agentWorkflow', {
      taskQueue: description.taskQueue,
      workflowId: agentId,
      args: [input],
      typedSearchAttributes: description.typedSearchAttributes,
      staticSummary: `${input.agentType}: ${summarize(input.description ?? input.prompt)} (resumed)`,
    });
    return new AgentHandle(agentId, resumed);
  }

  /** Finds an agent of a tree by name (running agents answer the status query). */
  async findByName(rootAgentId: string, name: string): Promise<string | undefined> {
    let checked = 0;
    for await (const execution of this.temporal.workflow.list({ query: `RootAgentId = '${rootAgentId}'` })) {
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

function summarize(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

/** The workflow input of a root agent, from client options and the agent type (built-in or `.claude/agents`). */
export async function rootAgentInput(options: StartAgentOptions): Promise<AgentWorkflowInput> {
  const typeName = options.type ?? 'general-purpose';
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const { definitions } = await loadAgentDefinitions({ cwd, homeDir: options.homeDir });
  const definition = definitions[typeName];
  if (!definition) {
    throw new Error(`Unknown agent type "${typeName}". Valid types: ${Object.keys(definitions).sort().join(', ')}.`);
  }
  const limits: AgentLimits = { ...defaultAgentLimits, ...options.limits };
  const tools = options.tools ?? rootToolPool(definition, limits.maxDepth);
  if (tools.length === 0 && !definition.mcpTools?.length) throw new Error(`Agent type "${typeName}" resolves to no tools; fix its tools/disallowedTools.`);
  const mcp = agentMcpInput(definition, (await loadMcpConfig(cwd)).servers);
  const definitionModel = definition.model && definition.model !== 'inherit' ? definition.model : undefined;
  return buildRootInput({
    agentId: options.agentId ?? `agent-${randomUUID().slice(0, 8)}`,
    agentType: definition.name,
    name: options.name,
    prompt: options.prompt,
    model: resolveModelAlias(options.model ?? definitionModel ?? defaultModel),
    definitionPrompt: definition.prompt,
    tools,
    ...(mcp ? { mcp } : {}),
    cwd,
    workspaceRoot: cwd,
    permissionMode: options.permissionMode ?? definition.permissionMode ?? 'default',
    maxTurns: options.maxTurns ?? definition.maxTurns ?? limits.defaultMaxTurns,
    allowedAgentTypes: definition.allowedAgentTypes,
    limits,
    interactive: options.interactive,
    maxOutputTokens: options.maxOutputTokens,
  });
}
