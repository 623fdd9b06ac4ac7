import type { AgentWorkflowInput } from './agent';
import type { ResumeState } from '../protocol/definitions';
import { appendUserText, dropUnresolvedToolUses } from '../tools/tool-results';

/** The input of a run that resumes a finished agent with a new message (history, fresh turns, kept worktree). */
export function resumeInput(
  previous: ResumeState,
  text: string,
  overrides: Partial<AgentWorkflowInput> = {},
): AgentWorkflowInput {
  const messages = appendUserText(dropUnresolvedToolUses(previous.carried.messages), text);
  const keptWorktree = previous.result?.worktree ? previous.result.worktree.kept : true;
  const { worktree, ...carried } = previous.carried;
  return {
    ...previous.input,
    ...overrides,
    forkFrom: undefined,
    branchFrom: undefined,
    carriedInbox: undefined,
    carriedTree: previous.tree,
    carriedBoard: undefined,
    carried: { ...carried, messages, turn: 0, awaiting: undefined, ...(worktree && keptWorktree ? { worktree } : {}) },
  };
}
