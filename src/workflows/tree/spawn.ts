import { workflowInfo } from '@temporalio/workflow';
import type { AgentWorkflowInput, PermissionMode } from '../../shared/agents/agent';
import type { AgentDefinition, SpawnContext } from '../../shared/agents/agent-definition';
import { buildChildInput, type ChildSpec } from '../../shared/agents/agent-input';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { ToolUseBlock } from '../../shared/model/messages';
import { resolveSubagentModel } from '../../shared/agents/model-resolution';
import { childPermissionMode } from '../../shared/agents/agent-roster';
import { agentMcpInput } from '../../shared/tools/mcp';
import { customToolFilterOf } from '../../shared/tools/custom-tools';
import { assembleToolPool } from '../../shared/tools/tool-pool';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import type { BudgetCaps } from '../../shared/budget/budget';
import {
  scriptLimits,
  scriptRunAgentType,
  scriptRunWorkflowType,
  type ScriptRunSpec,
} from '../../shared/scripts/script-run';
import type { ResolveAgentCwdResult } from '../../shared/workspace/working-directory';
import type { AgentState } from '../loop/agent-state';
import {
  childBudgetCaps,
  parseAgentToolInput,
  unknownAgentToolFields,
  unknownAgentToolFieldsError,
  type AgentToolInput,
} from './agent-tool-input';
import type { Children } from './children';
import { forkChildSpec, isForkConversation } from './fork';
import { asyncLaunchedText } from '../context/projection';
import { ancestorsOf, localSpawnRefusal } from './spawn-limits';
import type { TreeLink } from './tree-link';
import { loadSpawnContextOn, resolveAgentCwdOn } from '../tools/workspace-activities';

const error = (content: string): ToolOutcome => ({ content, isError: true });

/** A start that happened, or why not. */
type StartedChild = Awaited<ReturnType<Children['start']>>;
type Started = { ok: true; child: StartedChild } | { ok: false; error: string };
const failed = (reason: string): Started => ({ ok: false, error: reason });

/** What marks a child as a script run's agent (docs/workflows.md). */
export type ScriptAgentFields = Pick<ChildSpec, 'scriptRunId' | 'outputSchema' | 'effort'>;

/** The Agent tool (docs/architecture.md, Spawning): picks the path, checks limits, starts the child, answers. */
export class AgentTool {
  /** Spawns that passed the limit checks but whose child is not registered yet (concurrent Agent calls). */
  private pendingSpawns = 0;
  private spawnContext?: Promise<SpawnContext>;

  constructor(
    private readonly input: AgentWorkflowInput,
    private readonly state: AgentState,
    private readonly children: Children,
    private readonly tree: TreeLink,
  ) {}

  async call(call: ToolUseBlock): Promise<ToolOutcome> {
    const unknownFields = unknownAgentToolFields(call.input);
    if (unknownFields.length > 0) return error(unknownAgentToolFieldsError(unknownFields));
    const parsed = parseAgentToolInput(call.input);
    if (!parsed.ok) return error(parsed.error);
    const request = parsed.value;
    // The id is taken before anything awaits, so concurrent Agent calls get ids in tool_use order.
    const childId = this.state.nextChildId(this.input.agentId);
    if (request.subagent_type === 'fork' || (request.subagent_type === undefined && this.input.limits.forking)) {
      return this.spawnFork(call, request, childId);
    }
    return this.spawnNamed(call, request, childId);
  }

  /** A named agent type (general-purpose when none is given): its own prompt, tools and model; it sees only the task prompt. */
  private async spawnNamed(call: ToolUseBlock, request: AgentToolInput, childId: string): Promise<ToolOutcome> {
    const started = await this.startNamed(call.id, request, childId);
    if (!started.ok) return error(started.error);
    return this.answer(started.child, request);
  }

  /**
   * Starts a script run's `agent()` call (docs/workflows.md): always a named type, never a fork; `extra` marks it as the
   * run's agent. Its id is taken now, so calls get ids in the order the script made them.
   */
  async startForScript(
    toolUseId: string,
    request: AgentToolInput,
    extra: ScriptAgentFields,
  ): Promise<{ ok: true; agentId: string } | { ok: false; error: string }> {
    const childId = this.state.nextChildId(this.input.agentId);
    const started = await this.startNamed(toolUseId, request, childId, extra);
    return started.ok ? { ok: true, agentId: started.child.agentId } : started;
  }

  /**
   * Starts a script run as a background child (the Workflow tool, docs/workflows.md): its result comes back as a task
   * notification like a background agent's.
   */
  async startScriptRun(toolUseId: string, spec: ScriptRunSpec, budget?: BudgetCaps): Promise<Started> {
    const { input } = this;
    const childId = this.state.nextChildId(input.agentId);
    const refusal = this.limitRefusal(childId);
    if (refusal) return failed(refusal);
    const { meta } = spec.script;
    const request = { description: meta.name, prompt: meta.description };
    const runSpec = (): ChildSpec => ({
      agentId: childId,
      agentType: scriptRunAgentType,
      description: meta.name,
      prompt: `Workflow script "${meta.name}": ${meta.description}`,
      model: input.model,
      definitionPrompt: '',
      tools: [],
      cwd: this.state.cwd,
      workspaceRoot: this.state.workspaceRoot,
      permissionMode: this.state.permissions.mode,
      maxTurns: input.limits.defaultMaxTurns,
      background: true,
      script: spec,
      ...childBudgetCaps(undefined, budget, input.budgetCaps),
    });
    return this.launch(toolUseId, request, childId, true, runSpec, scriptRunWorkflowType);
  }

  /** Picks the definition, checks limits and the pool, and starts the child. */
  private async startNamed(
    toolUseId: string,
    request: AgentToolInput,
    childId: string,
    extra: ScriptAgentFields = {},
  ): Promise<Started> {
    const { input } = this;
    const context = await this.loadSpawnContext();
    const definitions = context.loaded.definitions;
    const typeName = request.subagent_type ?? 'general-purpose';
    const definition = definitions[typeName];
    if (!definition) {
      return failed(`Unknown agent type "${typeName}". Valid types: ${Object.keys(definitions).sort().join(', ')}.`);
    }
    if (input.allowedAgentTypes && !input.allowedAgentTypes.includes(typeName)) {
      return failed(
        `This agent may only start these agent types: ${input.allowedAgentTypes.join(', ')}. "${typeName}" is not one of them.`,
      );
    }
    const refusal = this.limitRefusal(childId);
    if (refusal) return failed(refusal);
    const background = request.run_in_background ?? definition.background ?? false;
    // A mode a PermissionRequest hook set holds for children started afterwards, as the session's mode in Claude Code.
    const permissionMode = childPermissionMode(this.state.permissions.mode, definition);
    const pool = assembleToolPool({
      definition,
      depth: input.depth + 1,
      maxDepth: input.limits.maxDepth,
      background,
      permissionMode,
    });
    // A script's agents cannot start scripts (Claude Code's rule: one orchestrator per run).
    const tools = extra.scriptRunId ? pool.filter((name) => name !== 'Workflow') : pool;
    // An agent whose only tools are MCP tools is checked when its servers have listed them (src/workflows/tools/extra-tools.ts).
    if (tools.length === 0 && !definition.mcpTools?.length && !definition.customTools?.length) {
      return failed(
        `Agent type "${typeName}" resolves to no tools${background ? ' when run in the background' : ''}; it cannot be started. Fix its tools/disallowedTools.`,
      );
    }
    return this.launch(toolUseId, request, childId, background, () => ({
      ...this.namedChildSpec(childId, request, definition, { background, permissionMode, tools, context }),
      ...extra,
    }));
  }

  /** A fork: the child continues from this agent's exact request prefix (see fork.ts). A fork cannot fork. */
  private async spawnFork(call: ToolUseBlock, request: AgentToolInput, childId: string): Promise<ToolOutcome> {
    if (isForkConversation(this.state.messages)) {
      return error(
        errorText(
          ErrorType.ForkInsideFork,
          'you are a fork and cannot fork again. Finish the directive yourself with your own tools (a named subagent_type is still possible within the depth limit).',
        ),
      );
    }
    const refusal = this.limitRefusal(childId);
    if (refusal) return error(refusal);
    const background = request.run_in_background ?? true;
    const started = await this.launch(call.id, request, childId, background, () => ({
      ...forkChildSpec(this.input, this.state, workflowInfo().runId, childId, request, background),
      ...childBudgetCaps(undefined, request.budget, this.input.budgetCaps),
    }));
    if (!started.ok) return error(started.error);
    return this.answer(started.child, request);
  }

  /** The limits this agent checks itself (the tree's limits are the root's decision). */
  private limitRefusal(childId: string): string | undefined {
    const { input } = this;
    return localSpawnRefusal({
      depth: input.depth,
      maxDepth: input.limits.maxDepth,
      runningChildren: this.children.runningCount + this.pendingSpawns,
      // A script run bounds its agents with its own concurrency (docs/workflows.md).
      maxChildrenPerAgent: input.script ? scriptLimits.maxConcurrentAgentsCeiling : input.limits.maxChildrenPerAgent,
      childId,
      ancestorIds: ancestorsOf(input.agentId),
    });
  }

  /** A requested cwd must be an existing directory inside the workspace (links resolved); gives the real path. */
  private async checkCwd(requested: string): Promise<ResolveAgentCwdResult> {
    return resolveAgentCwdOn(this.input.workspaceWorker, {
      requested,
      parentCwd: this.state.cwd,
      workspaceRoot: this.state.workspaceRoot,
    });
  }

  /** Counts the spawn now (concurrent calls see it), checks the cwd, reserves a slot and starts the child. */
  private async launch(
    toolUseId: string,
    request: AgentToolInput,
    childId: string,
    background: boolean,
    buildSpec: () => ChildSpec,
    workflowType?: string,
  ): Promise<Started> {
    this.pendingSpawns += 1;
    try {
      if (request.cwd !== undefined) {
        const cwd = await this.checkCwd(request.cwd);
        if (!cwd.ok) return failed(cwd.error);
        request.cwd = cwd.cwd;
      }
      const slot = await this.tree.reserveSlot(childId);
      if (slot) return failed(slot);
      const parent = {
        input: this.input,
        inForegroundChain: this.tree.inForegroundChain,
        toolUseId,
        ...(this.state.settings ? { settings: this.state.settings } : {}),
      };
      const childInput = buildChildInput(parent, buildSpec());
      const child = await this.children.start(childInput, toolUseId, background, workflowType ? { workflowType } : {});
      return { ok: true, child };
    } finally {
      this.pendingSpawns -= 1;
    }
  }

  /** The Agent call's answer: the launch notice of a background child, or a foreground child's result. */
  private async answer(child: StartedChild, request: AgentToolInput): Promise<ToolOutcome> {
    if (child.background) return { content: asyncLaunchedText(child.agentId, request.description), isError: false };
    return this.children.waitForeground(child);
  }

  private namedChildSpec(
    childId: string,
    request: AgentToolInput,
    definition: AgentDefinition,
    options: { background: boolean; permissionMode: PermissionMode; tools: string[]; context: SpawnContext },
  ): ChildSpec {
    const { input } = this;
    const cwd = request.cwd ?? this.state.cwd;
    const isolation = request.isolation ?? (request.cwd ? undefined : definition.isolation);
    return {
      agentId: childId,
      agentType: definition.name,
      name: request.name,
      description: request.description,
      prompt: request.prompt,
      model: resolveSubagentModel({
        environmentOverride: options.context.subagentModelOverride,
        callModel: request.model,
        definitionModel: definition.model,
        parentModel: input.model,
      }),
      // A record of agent types without prompts (docs/agent-definitions.md): the child gets its type's prompt by digest at its start.
      ...definitionPromptOf(definition, options.context),
      tools: options.tools,
      mcp: agentMcpInput(definition, options.context.mcpServers ?? {}),
      customTools: customToolFilterOf(definition),
      cwd,
      // Never a larger workspace than the parent's (a cwd outside it was refused above).
      workspaceRoot: this.state.workspaceRoot,
      ...(isolation === 'worktree' ? { isolation } : {}),
      permissionMode: options.permissionMode,
      maxTurns: definition.maxTurns ?? input.limits.defaultMaxTurns,
      allowedAgentTypes: definition.allowedAgentTypes,
      ...(definition.readOnlyBash ? { readOnlyBash: true } : {}),
      ...(definition.oneShot ? { oneShot: true } : {}),
      ...(definition.thinking ? { thinking: definition.thinking } : {}),
      ...(definition.color ? { color: definition.color } : {}),
      ...(definition.effort ? { effort: definition.effort } : {}),
      ...(definition.toolRules ? { toolRules: definition.toolRules } : {}),
      ...(definition.skills?.length ? { skills: definition.skills } : {}),
      ...(definition.memory ? { memory: definition.memory } : {}),
      ...(definition.hooks ? { definitionHooks: definition.hooks } : {}),
      ...childBudgetCaps(definition.budget, request.budget, input.budgetCaps),
      background: options.background,
    };
  }

  /** The roster's agent types; older runs and forks load them once, on their first named spawn. */
  private loadSpawnContext(): Promise<SpawnContext> {
    const loaded = this.state.spawnContext;
    if (loaded) return Promise.resolve(loaded);
    this.spawnContext ??= loadSpawnContextOn(this.input.workspaceWorker, this.state.cwd, this.input.sdkAgents);
    return this.spawnContext;
  }
}

/** A named child's definition prompt, or '' with a digest and file for the child's start to read. */
export function definitionPromptOf(
  definition: AgentDefinition,
  context: SpawnContext,
): Pick<ChildSpec, 'definitionPrompt' | 'definitionPromptRef'> {
  const digest = context.promptDigests?.[definition.name];
  if (digest === undefined) return { definitionPrompt: definition.prompt };
  return {
    definitionPrompt: '',
    definitionPromptRef: { digest, ...(definition.file ? { file: definition.file } : {}) },
  };
}
