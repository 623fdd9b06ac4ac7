import type { AgentParts } from '../loop/agent-parts';
import { endsWithAnswer } from '../../shared/rewind/turns';
import { appendUserText, textOf } from '../../shared/tools/tool-results';
import { setupActivities, setupOptions } from '../runtime/activity-proxies';
import { restoreCheckpointOn } from '../tools/workspace-activities';
import { changedUnderneathText } from '../../shared/rewind/refusals';
import { continueWithPrompt, copiedFrom } from './conversation-rewind';

/** A fork's or a rewound run's first step (docs/rewind.md): files as of the turn, then the turn's exact conversation. */
export async function openBranch(agent: Pick<AgentParts, 'input' | 'state'>): Promise<string | undefined> {
  const { input, state } = agent;
  const branch = input.branchFrom!;
  if (branch.restore) {
    const restored = await restoreCheckpointOn(input.workspaceWorker, {
      checkpoint: branch.restore.checkpoint,
      targetRoot: state.worktree?.path ?? branch.restore.checkpoint.root,
      ...(branch.restore.latest ? { latest: branch.restore.latest } : {}),
    });
    if (restored.kind === 'refused') return changedUnderneathText(branch.agentId, restored.changedSince);
  }
  const fetched = await setupActivities.fetchTurnConversation.executeWithOptions(
    { ...setupOptions, summary: `conversation of ${branch.agentId} at turn ${branch.turn}` },
    [{ agentId: branch.agentId, runId: branch.runId, turn: branch.turn, hash: branch.hash }],
  );
  const inherited =
    branch.reason === 'fork'
      ? fetched.boundaries.map((boundary) => ({ ...boundary, inheritedFrom: boundary.inheritedFrom ?? branch.agentId }))
      : fetched.boundaries;
  state.turns.adopt(inherited);
  if (branch.reason === 'rewind') {
    // The same agent going back: its transcript joins these messages to the earlier run's and marks the rewind.
    state.conversation.markRewind(branch.turn);
    state.conversation.replaceWith(fetched.messages, copiedFrom(fetched));
    if (branch.prompt !== undefined) continueWithPrompt(state.conversation, branch.prompt);
  } else {
    const opening =
      branch.prompt !== undefined ? appendUserText(fetched.messages, branch.prompt) : [...fetched.messages];
    for (const message of opening) state.append(message);
  }
  const messages = state.messages;
  // Files may differ from what the conversation read (another worktree, a restore, or time passed).
  state.markReadStateStale();
  if (branch.prompt === undefined && endsWithAnswer(messages)) {
    const last = messages[messages.length - 1]!;
    const text = typeof last.content === 'string' ? last.content : textOf(last.content);
    state.startAwaiting({ kind: 'final', text, stopReason: 'end_turn' });
  }
  return undefined;
}
