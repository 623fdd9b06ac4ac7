/** Branch and directory names of subagent worktrees. */
import { worktreeBranchPrefix, worktreeSlug } from '../../shared/workspace/worktree';

/** The n-th choice of name (1 = the plain agent id, then `-2`, `-3`…). */
export function candidateName(agentId: string, attempt: number): { branch: string; directory: string } {
  const directory = attempt === 1 ? worktreeSlug(agentId) : `${worktreeSlug(agentId)}-${attempt}`;
  return { branch: `${worktreeBranchPrefix}${directory}`, directory };
}
