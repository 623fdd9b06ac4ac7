import type { WorktreeInfo } from '../../shared/workspace/worktree';
import { setupActivities, setupOptions } from '../runtime/activity-proxies';
import type { AgentParts } from './agent-parts';
import { adoptWorkerTools, prepareExtraTools } from '../tools/extra-tools';
import { buildForkedMessages } from '../tree/fork';
import { openBranch } from '../rewind/branch-opening';
import { recordTurnBoundary } from '../rewind/checkpoint-turn';
import { createWorktreeOn, renderAgentStartOn } from '../tools/workspace-activities';
import { hooksMayRun, subagentStartContext } from '../tools/hooks';
import { screenPrompt, sessionStartContext, worktreeCreated, worktreeFromHooks } from '../tools/hook-events';
import { adoptStructuredOutputTool } from '../tools/structured-output';
import { structuredOutputInstruction } from '../../shared/tools/structured-output';
import { screenResumedPrompt } from './resume-prompt';

/** Prepares a run's first turn (worktree, prompt, first messages, MCP tools); returns why it cannot run, if so. */
export async function prepareRun(agent: AgentParts): Promise<string | undefined> {
  const { input, state } = agent;
  if (input.isolation === 'worktree' && !state.worktree) {
    const before = state.cwd;
    // WorktreeCreate hooks replace git's worktree (docs/worktrees.md); without one the runtime makes a git worktree.
    if (hooksMayRun(agent, 'WorktreeCreate')) {
      const made = await worktreeFromHooks(agent);
      if ('error' in made) return made.error;
      state.useWorktree(made);
    } else state.useWorktree(await createWorktreeOn(input.workspaceWorker, { agentId: input.agentId, cwd: state.cwd }));
    // CwdChanged hooks (docs/hooks.md) hear of it once it exists.
    if (hooksMayRun(agent, 'CwdChanged')) await worktreeCreated(agent, state.worktree!, before);
  }
  let context: string | undefined;
  let skills: string | undefined;
  if (!state.systemPrompt) {
    const local = !input.workspaceWorker;
    const start = await renderAgentStartOn(
      input.workspaceWorker,
      {
        agentId: input.agentId,
        agentType: input.agentType,
        name: input.name,
        parentAgentId: input.parentAgentId,
        depth: input.depth,
        maxDepth: input.limits.maxDepth,
        model: input.model,
        definitionPrompt: input.definitionPrompt,
        ...(input.definitionPromptRef ? { definitionPromptRef: input.definitionPromptRef } : {}),
        cwd: state.cwd,
        ...(input.tools.includes('Workflow') ? { workspaceRoot: state.workspaceRoot } : {}),
        tools: input.tools,
        allowedAgentTypes: input.allowedAgentTypes,
        permissionMode: input.permissionMode,
        forking: input.limits.forking,
        oneShot: input.oneShot,
        ...(input.customTools ? { customTools: input.customTools } : {}),
        ...(input.skills?.length ? { skills: input.skills } : {}),
        ...(input.memory ? { memory: input.memory } : {}),
        ...(input.parentAgentId === undefined && !state.settings ? { loadSettings: true } : {}),
        ...(input.sdkAgents ? { sdkAgents: input.sdkAgents } : {}),
      },
      local,
    );
    state.adoptStart(start, local);
    adoptWorkerTools(agent, start.workerTools);
    context = start.context;
    skills = start.skills;
  }
  // SubagentStart hooks (docs/hooks.md) run once, before a subagent's first message; what they add opens it.
  const firstStart = state.messages.length === 0 && (input.forkFrom !== undefined || !input.carried);
  const started =
    firstStart && hooksMayRun(agent, 'SubagentStart', input.agentType) ? await subagentStartContext(agent) : undefined;
  if (input.branchFrom && state.messages.length === 0) {
    const refused = await openBranch(agent);
    if (refused) return refused;
  } else if (input.forkFrom && state.messages.length === 0) {
    const { directive, ...prefix } = input.forkFrom;
    const inherited = await setupActivities.fetchConversation.executeWithOptions(
      { ...setupOptions, summary: `inherit ${prefix.agentId}'s conversation` },
      [prefix],
    );
    const hookContext = started ? `${started}\n\n` : '';
    for (const message of buildForkedMessages(inherited, worktreeNotice(state.worktree) + hookContext + directive))
      state.append(message);
    if (state.worktree) state.markReadStateStale();
  } else if (!input.carried) {
    // A root's SessionStart and UserPromptSubmit hooks (docs/hooks.md) add to its opening, or refuse its prompt.
    const session = hooksMayRun(agent, 'SessionStart') ? await sessionStartContext(agent, 'startup') : undefined;
    const screened =
      input.parentAgentId === undefined && hooksMayRun(agent, 'UserPromptSubmit')
        ? await screenPrompt(agent, input.prompt)
        : undefined;
    if (screened?.type === 'blocked') return `a UserPromptSubmit hook blocked the prompt: ${screened.reason}`;
    const prompt = { type: 'text' as const, text: input.prompt };
    const opening = [context, skills, started, session]
      .filter((text): text is string => text !== undefined)
      .map((text) => ({ type: 'text' as const, text }));
    // An agent with `outputSchema` is told once how to answer (docs/tools.md, "Structured output").
    const answering = input.outputSchema ? [{ type: 'text' as const, text: structuredOutputInstruction }] : [];
    const promptContext = screened?.context ? [{ type: 'text' as const, text: screened.context }] : [];
    state.append({ role: 'user', content: [...opening, prompt, ...promptContext, ...answering] });
  } else if (isResumed(input)) {
    // A resumed root (`subagents resume`) is Claude Code's `--resume`: SessionStart with source `resume`.
    // A new session, so its `once` hooks may run again (a subagent resumed in its tree keeps its session).
    if (input.parentAgentId === undefined) state.hooks.beginSession();
    const session = hooksMayRun(agent, 'SessionStart') ? await sessionStartContext(agent, 'resume') : undefined;
    // Its new prompt passes UserPromptSubmit (docs/hooks.md): blocked, the run ends failed without it.
    const blocked = hooksMayRun(agent, 'UserPromptSubmit') ? await screenResumedPrompt(agent) : undefined;
    if (blocked) return blocked;
    if (session) state.append({ role: 'user', content: [{ type: 'text', text: session }] });
  }
  // The opening is turn 0 of a new agent (docs/rewind.md); a branch starts at its source's boundary.
  if (state.turns.last < 0) await recordTurnBoundary(agent);
  // After the first messages, so a run that fails here keeps its prompt (a resume continues from it).
  const refused = await adoptStructuredOutputTool(agent);
  if (refused) return refused;
  return prepareExtraTools(agent);
}

/** A resumed agent's first run: it carries a conversation but no turn yet (continue-as-new carries its turn count). */
function isResumed(input: AgentParts['input']): boolean {
  return input.carried !== undefined && input.carried.turn === 0 && input.carried.messages.length > 0;
}

/** For a fork in a worktree: inherited paths point at the parent's checkout. */
function worktreeNotice(worktree: WorktreeInfo | undefined): string {
  if (!worktree) return '';
  if (worktree.madeBy === 'hook')
    return (
      `Note: you run in your own worktree at ${worktree.path}, made by a WorktreeCreate hook. Paths in the conversation above ` +
      `refer to the parent's checkout at ${worktree.mapping.from}; files you saw may differ or be missing here: ` +
      'read a file again before you edit it.\n\n'
    );
  return (
    `Note: you run in your own git worktree at ${worktree.path} (branch ${worktree.branch}). Paths in the conversation above ` +
    `refer to the parent's checkout: ${worktree.mapping.from} corresponds to ${worktree.mapping.to}. Files you saw may differ here: ` +
    'read a file again before you edit it.\n\n'
  );
}
