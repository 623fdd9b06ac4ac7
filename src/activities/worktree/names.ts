/** Branch and directory names of subagent worktrees. */
import { worktreeBranchPrefix, worktreeSlug } from '../../shared/workspace/worktree';

/** An agent id safe as a path segment and ref component (git refuses `..`, a leading `.` or `-`, and `.lock`). */
export const safeName = worktreeSlug;

/** The n-th choice of name (1 = the plain agent id, then `-2`, `-3`…). */
export function candidateName(agentId: string, attempt: number): { branch: string; directory: string } {
  const directory = attempt === 1 ? safeName(agentId) : `${safeName(agentId)}-${attempt}`;
  return { branch: `${worktreeBranchPrefix}${directory}`, directory };
}
