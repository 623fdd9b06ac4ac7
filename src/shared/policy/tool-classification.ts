// The one place that sorts tools into the groups the tool pool, permissions and execution look at.

/** TaskOutput only reads children, so read-only; unlike Claude Code, subagents get it beside Agent. */
export const peekToolNames = ['TaskOutput'] as const;
/** Tools an agent has only beside Agent: they act on its own children. */
export const agentCompanionToolNames: readonly string[] = ['Workflow', 'TaskStop', ...peekToolNames];
// ── end [long-runs] ─────────────────────────────────────────────────────────────────────────────────

/** Claude Code's task-list tools, on the tree's shared task board: coordination, never approval. */
export const taskBoardToolNames = ['TaskCreate', 'TaskList', 'TaskGet', 'TaskUpdate'] as const;
export type TaskBoardToolName = (typeof taskBoardToolNames)[number];

export function isTaskBoardTool(name: string): name is TaskBoardToolName {
  return (taskBoardToolNames as readonly string[]).includes(name);
}
// ── end of the task board tools ───────────────────────────────────────────────────────────────

/** Tools that reach the web, each run by a Temporal activity of the same name; they change nothing in the workspace. */
export const webToolNames = ['WebFetch', 'WebSearch'] as const;
export type WebToolName = (typeof webToolNames)[number];
/** Keeps the agent's todo list in its workflow state (workflow-run; needs no person). */
export const todoToolNames = ['TodoWrite'] as const;

/** True for WebFetch and WebSearch. */
export function isWebTool(name: string): name is WebToolName {
  return (webToolNames as readonly string[]).includes(name);
}
// ── end [tools] ──

/** Every tool this runtime has, in the order requests list them (the order is part of the cache prefix). */
export const runtimeToolNames = [
  'Agent',
  'Workflow',
  'SendMessage',
  'TaskStop',
  ...peekToolNames,
  'Bash',
  'Glob',
  'Grep',
  'Read',
  'Edit',
  'Write',
  ...webToolNames,
  ...todoToolNames,
  ...taskBoardToolNames,
  'Rewind',
] as const;
export type RuntimeToolName = (typeof runtimeToolNames)[number];

/** Tools an agent gets only when its `tools` name them: never from `*` or an absent list (docs/rewind.md). */
export const optInToolNames: readonly string[] = ['Rewind'];

/** Tools that work on the workspace, each run by a Temporal activity of the same name. */
export const workspaceToolNames = ['Read', 'Glob', 'Grep', 'Write', 'Edit', 'Bash'] as const;
export type WorkspaceToolName = (typeof workspaceToolNames)[number];

/** Tools that change nothing outside the agent: no approval, run side by side, allowed in the background. */
export const readOnlyToolNames = ['Read', 'Glob', 'Grep', ...webToolNames, ...todoToolNames, ...peekToolNames] as const;
export type ReadOnlyToolName = (typeof readOnlyToolNames)[number];
/** The workspace tools that only read files: a model call may run its answer's leading calls of them (docs/architecture.md, "Reads with the model call"). */
export const fileReadToolNames = ['Read', 'Glob', 'Grep'] as const;
export type FileReadToolName = (typeof fileReadToolNames)[number];

/** Tools run by workflow code that only talk to other agents of the tree: they never need a person. */
export const coordinationToolNames = [
  'Agent',
  'Workflow',
  'SendMessage',
  'TaskStop',
  ...peekToolNames,
  ...taskBoardToolNames,
] as const;

/** Tools that only change files: allowed without a prompt in acceptEdits mode. */
export const editToolNames = ['Edit', 'Write'] as const;

/** Tools no subagent may have; TaskStop and TaskOutput stay, so a child's list equals its parent's (one cache prefix). */
export const subagentForbiddenToolNames: readonly string[] = ['EnterPlanMode', 'ExitPlanMode', 'AskUserQuestion'];

const includes = (list: readonly string[], name: string): boolean => list.includes(name);

/** True for a name this runtime implements. */
export function isRuntimeTool(name: string): name is RuntimeToolName {
  return includes(runtimeToolNames, name);
}

/** True for the tools run by an activity. */
export function isWorkspaceTool(name: string): name is WorkspaceToolName {
  return includes(workspaceToolNames, name);
}

/** True for Read, Glob and Grep. */
export function isFileReadTool(name: string): name is FileReadToolName {
  return includes(fileReadToolNames, name);
}

/** True for tools that only read (safe for read-only agents and background allow-lists). */
export function isReadOnlyTool(name: string): name is ReadOnlyToolName {
  return includes(readOnlyToolNames, name);
}

export function isCoordinationTool(name: string): boolean {
  return includes(coordinationToolNames, name);
}

export function isEditTool(name: string): boolean {
  return includes(editToolNames, name);
}

/** Calls of one turn that may run side by side: read-only tools, and Agent (the children of one message start together). */
export function isConcurrencySafeTool(name: string): boolean {
  return isReadOnlyTool(name) || name === 'Agent';
}
