/** What `subagents diff` reads (docs/rewind.md): each agent's boundaries and last conversation, and their latest files. */
import { WorkflowNotFoundError, type WorkflowClient } from '@temporalio/client';
import { compareCheckpoints } from '../checkpoints';
import { resolveCheckpointOptions } from '../checkpoints/options';
import { locateStore } from '../checkpoints/store';
import { ErrorType, errorText, messageOf } from '../shared/protocol/errors';
import type { BranchSide } from '../shared/rewind/branch-diff';
import { turnConversationQuery, turnsQuery } from '../shared/rewind/rewind-protocol';
import { conversationHashOf, type TurnConversation } from '../shared/rewind/turns';
import type { FileChange, TurnCheckpoint } from '../shared/workspace/checkpoints';

/** Earlier runs a boundary may be held by, at most: each continue-as-new adds one hop. */
const maxHops = 50;

/** Queries a run of the agent (the latest without `runId`), saying which agent is unknown. */
async function queryRun<T>(agentId: string, query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError)
      throw new Error(
        errorText(ErrorType.AgentNotFound, `no agent ${agentId} (or its run is past the namespace's retention).`),
      );
    throw error;
  }
}

/** An agent's boundaries and its exact conversation at the last one, running or closed. */
export async function loadBranchSide(client: WorkflowClient, agentId: string): Promise<BranchSide> {
  const snapshot = await queryRun(agentId, () => client.getHandle(agentId).query(turnsQuery));
  const boundaries = Array.isArray(snapshot?.boundaries) ? snapshot.boundaries : [];
  const last = boundaries[boundaries.length - 1];
  if (!last) return { agentId, boundaries: [], messages: [] };
  let runId: string | undefined;
  for (let hop = 0; hop < maxHops; hop++) {
    const answer: TurnConversation = await queryRun(agentId, () =>
      client.getHandle(agentId, runId).query(turnConversationQuery, { turn: last.turn }),
    );
    if (answer?.kind === 'elsewhere' && typeof answer.runId === 'string') {
      runId = answer.runId;
      continue;
    }
    if (answer?.kind !== 'conversation' || !Array.isArray(answer.messages))
      throw new Error(
        errorText(
          ErrorType.ConversationMismatch,
          `agent ${agentId}'s conversation at turn ${last.turn} cannot be read: ${answer?.kind === 'missing' ? answer.reason : 'its run gave no conversation'}. If it was just rewound, run diff again.`,
        ),
      );
    // The boundaries may have moved on between the two queries: the conversation's own list is the one it matches.
    if (!Array.isArray(answer.boundaries) || conversationHashOf(answer.messages) !== answer.boundary?.hash)
      throw new Error(
        errorText(
          ErrorType.ConversationMismatch,
          `agent ${agentId}'s conversation at turn ${last.turn} does not hash to what its boundary recorded.`,
        ),
      );
    return { agentId, boundaries: answer.boundaries, messages: answer.messages };
  }
  throw new Error(
    errorText(
      ErrorType.ConversationMismatch,
      `agent ${agentId}'s turn ${last.turn} was not found within ${maxHops} runs.`,
    ),
  );
}

/** The files that differ from checkpoint `a` to checkpoint `b`, read from their repository on this machine. */
export async function compareLatestFiles(
  a: TurnCheckpoint | undefined,
  b: TurnCheckpoint | undefined,
): Promise<FileChange[] | { unavailable: string }> {
  if (!a || !b)
    return {
      unavailable:
        a || b ? 'only one side has a checkpoint of its files.' : 'neither side has a checkpoint of its files.',
    };
  if (a.tree === b.tree) return [];
  if (a.store !== b.store || (a.store === 'private' && a.gitDir !== b.gitDir))
    return {
      unavailable: `the checkpoints are in different stores (${a.store === 'private' ? a.gitDir : a.root} and ${b.store === 'private' ? b.gitDir : b.root}).`,
    };
  const apart = await differentRepositories(a, b);
  if (apart) return { unavailable: apart };
  try {
    return await compareCheckpoints(a, b);
  } catch (error) {
    // A removed worktree (a fork's) leaves its checkpoints in the repository it shared: read them from b's side.
    if (a.root !== b.root) {
      const reversed = await compareCheckpoints(b, a).catch(() => undefined);
      if (reversed) return reversed.map(inverted);
    }
    // A root on another machine, a dropped checkpoint: what the store said is the reason.
    return { unavailable: messageOf(error) };
  }
}

/** A change from b to a, seen from a to b. */
function inverted(change: FileChange): FileChange {
  const status = change.status === 'added' ? 'deleted' : change.status === 'deleted' ? 'added' : 'modified';
  return { path: change.path, status };
}

/** Why two repository checkpoints with different roots cannot be compared: checkouts of two repositories. */
async function differentRepositories(a: TurnCheckpoint, b: TurnCheckpoint): Promise<string | undefined> {
  if (a.store !== 'repository' || a.root === b.root) return undefined;
  const options = resolveCheckpointOptions();
  // A root that is gone proves nothing: a removed worktree's checkpoints stay in the repository it shared.
  const commonDir = (root: string) =>
    locateStore(root, options, true).then(
      (located) => (located.kind === 'store' ? located.store.commonDir : undefined),
      () => undefined,
    );
  const [storeA, storeB] = await Promise.all([commonDir(a.root), commonDir(b.root)]);
  return storeA && storeB && storeA !== storeB
    ? `${a.root} and ${b.root} are checkouts of two repositories, so their checkpoints are not in one store.`
    : undefined;
}
