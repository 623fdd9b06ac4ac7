import type { WorktreeInfo } from '../shared/worktree';
import { setupActivities, setupOptions } from './activity-proxies';
import type { AgentParts } from './agent-parts';
import { prepareExtraTools } from './extra-tools';
import { buildForkedMessages } from './fork';

/**
 * Prepares a run before its first turn: its worktree (isolation), its system prompt rendered once,
 * its first messages — the task prompt, or for a fork its parent's conversation prefix plus the
 * directive — and its MCP tools, snapshotted once. A continued or resumed run skips what it already
 * has. Returns why the agent cannot run (a required MCP server missing), if so.
 */
export async function prepareRun(agent: AgentParts): Promise<string | undefined> {
  const { input, state } = agent;
  if (input.isolation === 'worktree' && !state.worktree) {
    state.worktree = await setupActivities.createWorktree.executeWithOptions({ ...setupOptions, summary: 'create git worktree' }, [
      { agentId: input.agentId, cwd: state.cwd },
    ]);
  }
  if (!state.systemPrompt) {
    state.systemPrompt = await setupActivities.renderSystemPrompt({
      definitionPrompt: input.definitionPrompt,
      cwd: state.cwd,
      agentType: input.agentType,
      model: input.model,
    });
  }
  if (input.forkFrom && state.messages.length === 0) {
    const { directive, ...prefix } = input.forkFrom;
    const inherited = await setupActivities.fetchConversation.executeWithOptions({ ...setupOptions, summary: `inherit ${prefix.agentId}'s conversation` }, [prefix]);
    for (const message of buildForkedMessages(inherited, worktreeNotice(state.worktree) + directive)) state.append(message);
    if (state.worktree) state.markReadStateStale();
  } else if (!input.carried) {
    state.append({ role: 'user', content: [{ type: 'text', text: input.prompt }] });
  }
  // After the first messages, so a run that fails here keeps its prompt (a resume continues from it).
  return prepareExtraTools(agent);
}

/** For a fork in a worktree: inherited paths point at the parent's checkout. */
function worktreeNotice(worktree: WorktreeInfo | undefined): string {
  if (!worktree) return '';
  return (
    `Note: you run in your own git worktree at ${worktree.path} (branch ${worktree.branch}). Paths in the conversation above ` +
    `refer to the parent's checkout: ${worktree.mapping.from} corresponds to ${worktree.mapping.to}. Files you saw may differ here: ` +
    'read a file again before you edit it.\n\n'
  );
}
