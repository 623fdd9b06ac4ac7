/** Input of the `resolveAgentCwd` activity: the `cwd` an Agent call asks for, checked against its parent. */
export interface ResolveAgentCwdInput {
  /** The cwd as the model wrote it: absolute, or relative to the parent's cwd. */
  requested: string;
  parentCwd: string;
  /** The parent's workspace root: the child may not leave it. */
  workspaceRoot: string;
}

/** The child's working directory (real path), or why it cannot have the one asked for. */
export type ResolveAgentCwdResult = { ok: true; cwd: string } | { ok: false; error: string };
