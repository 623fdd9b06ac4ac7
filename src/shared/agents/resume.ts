import type { AgentWorkflowInput } from './agent';
import type { ResumeState } from '../protocol/definitions';
import { appendUserText, dropUnresolvedToolUses } from '../tools/tool-results';

/**
 * The input of a new run that continues a finished agent with a new user message (resume): its
 * history without unresolved tool_uses, the message appended, a fresh turn budget, its worktree only
 * if it was kept (a removed one is made anew), and a root's tree bookkeeping (tokens used against
 * the budget, the pause switch).
 */
export function resumeInput(previous: ResumeState, text: string, overrides: Partial<AgentWorkflowInput> = {}): AgentWorkflowInput {
  const messages = appendUserText(dropUnresolvedToolUses(previous.carried.messages), text);
  const keptWorktree = previous.result?.worktree ? previous.result.worktree.kept : true;
  const { worktree, ...carried } = previous.carried;
  return {
    ...previous.input,
    ...overrides,
    forkFrom: undefined,
    carriedInbox: undefined,
    carriedTree: previous.tree,
    carriedBoard: undefined,
    carried: { ...carried, messages, turn: 0, awaiting: undefined, ...(worktree && keptWorktree ? { worktree } : {}) },
  };
}
