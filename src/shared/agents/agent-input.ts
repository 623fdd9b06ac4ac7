import type { AgentWorkflowInput, CarriedAgentState, PermissionMode } from './agent';
import { treeCapsOf, type AgentLimits } from '../protocol/limits';
import { hasCaps } from '../budget/budget';
import type { WorkspaceWorker } from '../workspace/workspace-routing';
import type { AgentMcpInput } from '../tools/mcp';
import type { CustomToolFilter } from '../tools/custom-tools';

// The one builder of `agentWorkflow` inputs (roots, spawns, forks): the place in the tree is derived here only.

/** What makes one agent: the same for roots, named children and forks. */
export interface AgentSpec {
  agentId: string;
  agentType: string;
  name?: string;
  description?: string;
  prompt: string;
  model: string;
  definitionPrompt: string;
  /** The prompt by digest, for a child whose parent recorded only digests (then `definitionPrompt` is ''). */
  definitionPromptRef?: AgentWorkflowInput['definitionPromptRef'];
  /** A fork reuses its parent's rendered bytes; others render their own at start. */
  renderedSystemPrompt?: string;
  tools: string[];
  /** MCP servers to start and the filter for their tools (absent: none). */
  mcp?: AgentMcpInput;
  /** Which of the worker's custom tools the agent gets (absent: none). */
  customTools?: CustomToolFilter;
  cwd: string;
  workspaceRoot: string;
  isolation?: 'worktree';
  permissionMode: PermissionMode;
  maxTurns: number;
  allowedAgentTypes?: string[];
  readOnlyBash?: boolean;
  oneShot?: boolean;
  thinking?: AgentWorkflowInput['thinking'];
  color?: AgentWorkflowInput['color'];
  effort?: AgentWorkflowInput['effort'];
  toolRules?: AgentWorkflowInput['toolRules'];
  skills?: AgentWorkflowInput['skills'];
  memory?: AgentWorkflowInput['memory'];
  definitionHooks?: AgentWorkflowInput['definitionHooks'];
  /** Caps of its subtree (docs/budgets.md). */
  budgetCaps?: AgentWorkflowInput['budgetCaps'];
  /** A script run: the script it runs (docs/workflows.md). */
  script?: AgentWorkflowInput['script'];
  /** An agent of a script run: the run's id. */
  scriptRunId?: string;
  /** It answers through StructuredOutput, valid against this schema. */
  outputSchema?: AgentWorkflowInput['outputSchema'];
}

/** A root: the top of a tree, which fixes the tree's limits. */
export interface RootSpec extends AgentSpec {
  limits: AgentLimits;
  /** A named task board shared with other trees (default: the tree's own board). */
  taskBoard?: string;
  /** The worker holding the root's cwd (workers without a shared filesystem); the whole tree works there. */
  workspaceWorker?: WorkspaceWorker;
  interactive?: { idleTimeoutMs: number };
  maxOutputTokens?: number;
  /** Claude Agent SDK `agents` the whole tree may start (docs/api.md). */
  sdkAgents?: AgentWorkflowInput['sdkAgents'];
  /** `startAgent`'s `hooks`, for the whole tree beside the settings files' (docs/hooks.md). */
  sdkHooks?: AgentWorkflowInput['sdkHooks'];
}

/** A child: started by the Agent tool (or resumed by SendMessage) from its parent's tool call. */
export interface ChildSpec extends AgentSpec {
  background: boolean;
  forkFrom?: AgentWorkflowInput['forkFrom'];
  carried?: CarriedAgentState;
}

/** What a child inherits from the agent that starts it. */
export interface ParentOfChild {
  input: AgentWorkflowInput;
  /** The parent and all its ancestors run in the foreground. */
  inForegroundChain: boolean;
  /** The parent's Agent tool_use that starts the child. */
  toolUseId: string;
  /** The tree's settings the parent holds: the child gets the same (docs/hooks.md). */
  settings?: AgentWorkflowInput['treeSettings'];
}

/** The fields of the input that describe the agent itself; the callers add where it stands in its tree. */
function ownFields(spec: AgentSpec): Omit<AgentWorkflowInput, 'rootAgentId' | 'depth' | 'limits'> {
  return {
    agentId: spec.agentId,
    agentType: spec.agentType,
    name: spec.name,
    description: spec.description,
    prompt: spec.prompt,
    model: spec.model,
    definitionPrompt: spec.definitionPrompt,
    ...(spec.definitionPromptRef ? { definitionPromptRef: spec.definitionPromptRef } : {}),
    ...(spec.renderedSystemPrompt !== undefined ? { renderedSystemPrompt: spec.renderedSystemPrompt } : {}),
    tools: spec.tools,
    ...(spec.mcp ? { mcp: spec.mcp } : {}),
    ...(spec.customTools ? { customTools: spec.customTools } : {}),
    cwd: spec.cwd,
    workspaceRoot: spec.workspaceRoot,
    ...(spec.isolation ? { isolation: spec.isolation } : {}),
    permissionMode: spec.permissionMode,
    maxTurns: spec.maxTurns,
    allowedAgentTypes: spec.allowedAgentTypes,
    ...(spec.readOnlyBash ? { readOnlyBash: true } : {}),
    ...(spec.oneShot ? { oneShot: true } : {}),
    ...(spec.thinking ? { thinking: spec.thinking } : {}),
    ...(spec.color ? { color: spec.color } : {}),
    ...(spec.effort ? { effort: spec.effort } : {}),
    ...(spec.toolRules ? { toolRules: spec.toolRules } : {}),
    ...(spec.skills?.length ? { skills: spec.skills } : {}),
    ...(spec.memory ? { memory: spec.memory } : {}),
    ...(spec.definitionHooks ? { definitionHooks: spec.definitionHooks } : {}),
    ...(hasCaps(spec.budgetCaps) ? { budgetCaps: spec.budgetCaps } : {}),
    ...(spec.script ? { script: spec.script } : {}),
    ...(spec.scriptRunId ? { scriptRunId: spec.scriptRunId } : {}),
    ...(spec.outputSchema ? { outputSchema: spec.outputSchema } : {}),
  };
}

/** The input of a root agent. */
export function buildRootInput(spec: RootSpec): AgentWorkflowInput {
  return withSettingsWatch({
    ...ownFields(spec),
    rootAgentId: spec.agentId,
    depth: 0,
    limits: spec.limits,
    ...(treeCapsOf(spec.limits) || hasCaps(spec.budgetCaps) ? { budgeted: true } : {}),
    ...(spec.workspaceWorker ? { workspaceWorker: spec.workspaceWorker } : {}),
    ...(spec.interactive ? { interactive: spec.interactive } : {}),
    ...(spec.maxOutputTokens !== undefined ? { maxOutputTokens: spec.maxOutputTokens } : {}),
    ...(spec.taskBoard ? { taskBoard: spec.taskBoard } : {}),
    ...(spec.sdkAgents ? { sdkAgents: spec.sdkAgents } : {}),
    ...(spec.sdkHooks ? { sdkHooks: spec.sdkHooks } : {}),
  });
}

/**
 * A root whose files are on a workspace worker watches its settings by activity there (its model call runs
 * elsewhere): new roots, and new runs of older ones (a resume, a fork, a rewind), whose recorded input lacked it.
 */
export function withSettingsWatch(input: AgentWorkflowInput): AgentWorkflowInput {
  return input.parentAgentId === undefined && input.workspaceWorker ? { ...input, watchSettings: 'activity' } : input;
}

/** The input of a child: one level below its parent, in the parent's tree, under the tree's limits. */
export function buildChildInput(parent: ParentOfChild, spec: ChildSpec): AgentWorkflowInput {
  const { input } = parent;
  return {
    ...ownFields(spec),
    maxOutputTokens: input.maxOutputTokens,
    maxToolResultChars: input.maxToolResultChars,
    // A child works on its parent's files, so on the machine that holds them.
    ...(input.workspaceWorker ? { workspaceWorker: input.workspaceWorker } : {}),
    parentAgentId: input.agentId,
    rootAgentId: input.rootAgentId,
    depth: input.depth + 1,
    limits: input.limits,
    ...(input.budgeted || hasCaps(spec.budgetCaps) ? { budgeted: true } : {}),
    background: spec.background,
    inForegroundChain: parent.inForegroundChain && !spec.background,
    parentToolUseId: parent.toolUseId,
    ...(parent.settings ? { treeSettings: parent.settings } : {}),
    ...(spec.forkFrom ? { forkFrom: spec.forkFrom } : {}),
    ...(spec.carried ? { carried: spec.carried } : {}),
    ...(input.taskBoard ? { taskBoard: input.taskBoard } : {}),
    ...(input.sdkAgents ? { sdkAgents: input.sdkAgents } : {}),
    ...(input.sdkHooks ? { sdkHooks: input.sdkHooks } : {}),
  };
}
