import { workflowInfo } from '@temporalio/workflow';
import type { AgentWorkflowInput, PermissionMode } from '../shared/agent';
import type { AgentDefinition, SpawnContext } from '../shared/agent-definition';
import { buildChildInput, type ChildSpec } from '../shared/agent-input';
import { ErrorType, errorText } from '../shared/errors';
import type { ToolUseBlock } from '../shared/messages';
import { resolveSubagentModel } from '../shared/model-resolution';
import { agentMcpInput } from '../shared/mcp';
import { assembleToolPool } from '../shared/tool-pool';
import type { ToolOutcome } from '../shared/tool-results';
import { setupActivities, setupOptions } from './activity-proxies';
import type { AgentState } from './agent-state';
import { parseAgentToolInput, type AgentToolInput } from './agent-tool-input';
import type { Children } from './children';
import { forkChildSpec, isForkConversation } from './fork';
import { asyncLaunchedText } from './projection';
import { ancestorsOf, localSpawnRefusal } from './spawn-limits';
import type { TreeLink } from './tree-link';

const error = (content: string): ToolOutcome => ({ content, isError: true });

/** Parent modes a child definition cannot narrow (docs/architecture.md, approvals). */
function childPermissionMode(parent: PermissionMode, definition: AgentDefinition): PermissionMode {
  if (parent === 'bypassPermissions' || parent === 'acceptEdits') return parent;
  return definition.permissionMode ?? 'default';
}

/**
 * The Agent tool (docs/architecture.md, Spawning): picks the spawn path — a fork, or a named
 * (general-purpose by default) agent —, checks the limits, asks the root for a slot, starts the
 * child and answers the call (at once for a background child, when it ends for a foreground one).
 */
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
    const { input } = this;
    const context = await this.loadSpawnContext();
    const definitions = context.loaded.definitions;
    const typeName = request.subagent_type ?? 'general-purpose';
    const definition = definitions[typeName];
    if (!definition) {
      return error(`Unknown agent type "${typeName}". Valid types: ${Object.keys(definitions).sort().join(', ')}.`);
    }
    if (input.allowedAgentTypes && !input.allowedAgentTypes.includes(typeName)) {
      return error(`This agent may only start these agent types: ${input.allowedAgentTypes.join(', ')}. "${typeName}" is not one of them.`);
    }
    const refusal = this.limitRefusal(childId);
    if (refusal) return error(refusal);
    const background = request.run_in_background ?? definition.background ?? false;
    const permissionMode = childPermissionMode(input.permissionMode, definition);
    const tools = assembleToolPool({ definition, depth: input.depth + 1, maxDepth: input.limits.maxDepth, background, permissionMode });
    // An agent whose only tools are MCP tools is checked when its servers have listed them (src/workflows/extra-tools.ts).
    if (tools.length === 0 && !definition.mcpTools?.length) {
      return error(`Agent type "${typeName}" resolves to no tools${background ? ' when run in the background' : ''}; it cannot be started. Fix its tools/disallowedTools.`);
    }
    return this.launch(call, childId, request.description, background, () => this.namedChildSpec(childId, request, definition, { background, permissionMode, tools, context }));
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
    return this.launch(call, childId, request.description, background, () => forkChildSpec(this.input, this.state, workflowInfo().runId, childId, request, background));
  }

  /** The limits this agent checks itself (the tree's limits are the root's decision). */
  private limitRefusal(childId: string): string | undefined {
    const { input } = this;
    return localSpawnRefusal({
      depth: input.depth,
      maxDepth: input.limits.maxDepth,
      runningChildren: this.children.runningCount + this.pendingSpawns,
      maxChildrenPerAgent: input.limits.maxChildrenPerAgent,
      childId,
      ancestorIds: ancestorsOf(input.agentId),
    });
  }

  /** Reserves the tree slot, starts the child, and answers the Agent call (at once, or when a foreground child ends). */
  private async launch(call: ToolUseBlock, childId: string, description: string, background: boolean, buildSpec: () => ChildSpec): Promise<ToolOutcome> {
    this.pendingSpawns += 1;
    let child;
    try {
      const slot = await this.tree.reserveSlot(childId);
      if (slot) return error(slot);
      const parent = { input: this.input, inForegroundChain: this.tree.inForegroundChain, toolUseId: call.id };
      child = await this.children.start(buildChildInput(parent, buildSpec()), call.id, background);
    } finally {
      this.pendingSpawns -= 1;
    }
    if (background) return { content: asyncLaunchedText(child.agentId, description), isError: false };
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
    const root = this.state.workspaceRoot;
    const insideWorkspace = cwd === root || cwd.startsWith(`${root}/`);
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
      definitionPrompt: definition.prompt,
      tools: options.tools,
      mcp: agentMcpInput(definition, options.context.mcpServers ?? {}),
      cwd,
      workspaceRoot: insideWorkspace ? root : cwd,
      ...(isolation === 'worktree' ? { isolation } : {}),
      permissionMode: options.permissionMode,
      maxTurns: definition.maxTurns ?? input.limits.defaultMaxTurns,
      allowedAgentTypes: definition.allowedAgentTypes,
      background: options.background,
    };
  }

  /** Definitions are loaded once per agent run, on its first named spawn (concurrent spawns share the load). */
  private loadSpawnContext(): Promise<SpawnContext> {
    this.spawnContext ??= setupActivities.loadSpawnContext.executeWithOptions({ ...setupOptions, summary: 'load agent definitions' }, [{ cwd: this.state.cwd }]);
    return this.spawnContext;
  }
}
