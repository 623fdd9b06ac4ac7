import { Client, Connection, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import path from 'node:path';
import type { AgentResult, AgentStatusSnapshot, AgentWorkflowInput, PermissionMode } from './shared/agent';
import { allToolNames, builtinAgents } from './shared/builtin-agents';
import { defaultNamespace, defaultTaskQueue, defaultTemporalAddress } from './shared/config';
import { conversationQuery, statusQuery } from './shared/definitions';
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
}

/** Connection settings; each defaults from the environment, then the built-in default. */
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

  /** Requests cancellation of the agent (and, through Temporal, its children). */
  async stop(): Promise<void> {
    await this.workflow.cancel();
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
    const address = config.address ?? process.env.TEMPORAL_ADDRESS ?? defaultTemporalAddress;
    const connection = await Connection.connect({ address });
    const namespace = config.namespace ?? process.env.TEMPORAL_NAMESPACE ?? defaultNamespace;
    return new SubagentsClient(new Client({ connection, namespace }), config.taskQueue, connection);
  }

  /** Starts a root agent and returns its handle at once. */
  async startAgent(options: StartAgentOptions): Promise<AgentHandle> {
    const input = rootAgentInput(options);
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

function randomSuffix(): string {
  return Math.random().toString(36).slice(2, 10);
}

/** The workflow input of a root agent, from client options and the built-in type. */
export function rootAgentInput(options: StartAgentOptions): AgentWorkflowInput {
  const typeName = options.type ?? 'general-purpose';
  const definition = builtinAgents[typeName];
  if (!definition) {
    throw new Error(`Unknown agent type "${typeName}". Valid types: ${Object.keys(builtinAgents).join(', ')}.`);
  }
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const definitionModel = definition.model && definition.model !== 'inherit' ? definition.model : undefined;
  const agentId = options.agentId ?? `agent-${randomSuffix()}`;
  return {
    agentId,
    agentType: definition.name,
    name: options.name,
    prompt: options.prompt,
    model: resolveModelAlias(options.model ?? definitionModel ?? defaultModel),
    definitionPrompt: definition.prompt,
    tools: options.tools ?? definition.tools ?? [...allToolNames],
    cwd,
    workspaceRoot: cwd,
    permissionMode: options.permissionMode ?? 'default',
    maxTurns: options.maxTurns ?? 50,
    rootAgentId: agentId,
    depth: 0,
  };
}
