import { workflowInfo } from '@temporalio/workflow';
import type { MessageParam } from '../../shared/model/messages';
import { latestCheckpoint, type TurnBoundary, type TurnConversation } from '../../shared/rewind/turns';
import type { TurnCheckpoint } from '../../shared/workspace/checkpoints';
import { workflowNowMs } from '../runtime/clock';
import type { Conversation } from '../context/conversation';

/** An agent's turn boundaries (docs/rewind.md): appended at each turn's end, carried across runs, cut by a rewind. */
export class TurnLog {
  private readonly list: TurnBoundary[];
  /** Why the workspace is not checkpointed, when the store said so (shown by `status`). */
  private unavailable?: string;
  /** Tools the turn in progress ran (not carried: a run starts at a boundary). */
  private toolsThisTurn = new Set<string>();

  constructor(carried: readonly TurnBoundary[] | undefined) {
    this.list = [...(carried ?? [])];
  }

  get boundaries(): readonly TurnBoundary[] {
    return this.list;
  }

  /** The number of the last boundary (-1 before the opening is recorded). */
  get last(): number {
    return this.list.length === 0 ? -1 : this.list[this.list.length - 1]!.turn;
  }

  /** The turn in progress: the boundary its end will record. */
  get next(): number {
    return this.last + 1;
  }

  get latestCheckpoint(): TurnCheckpoint | undefined {
    return latestCheckpoint(this.list);
  }

  get checkpointsUnavailable(): string | undefined {
    return this.unavailable;
  }

  noteUnavailable(reason: string): void {
    this.unavailable = reason;
  }

  /** The turn's tool calls, noted as they start: a turn that ran only readers needs no checkpoint. */
  noteTools(names: readonly string[]): void {
    for (const name of names) this.toolsThisTurn.add(name);
  }

  /** The tools the turn ran, forgotten for the next. */
  takeTools(): string[] {
    const names = [...this.toolsThisTurn];
    this.toolsThisTurn = new Set();
    return names;
  }

  /** Records the boundary the conversation is at now; a checkpoint rides along when the turn changed files. */
  record(conversation: Conversation, loopTurn: number, checkpoint?: TurnCheckpoint): TurnBoundary {
    const { epoch, logLength } = conversation.position;
    const boundary: TurnBoundary = {
      turn: this.next,
      runId: workflowInfo().runId,
      messageCount: conversation.messages.length,
      hash: conversation.hash,
      epoch,
      logLength,
      loopTurn,
      atMs: workflowNowMs(),
      ...(checkpoint ? { checkpoint } : {}),
    };
    this.list.push(boundary);
    return boundary;
  }

  /** A branch's first run: its boundaries are the source's up to the branch point. */
  adopt(boundaries: readonly TurnBoundary[]): void {
    this.list.length = 0;
    this.list.push(...boundaries);
  }

  /** The workspace before the agent's first write, on the last boundary (docs/rewind.md): it stands for every earlier one too. */
  attachBaseline(checkpoint: TurnCheckpoint): void {
    const last = this.list[this.list.length - 1];
    if (last) this.list[this.list.length - 1] = { ...last, checkpoint: { ...checkpoint, baseline: true } };
  }

  /** A rewind to `turn`: later boundaries go. */
  truncateAfter(turn: number): void {
    const keep = this.list.findIndex((boundary) => boundary.turn > turn);
    if (keep >= 0) this.list.length = keep;
  }

  /** The `turnConversation` answer for a boundary: rebuilt from this run's log, or where to ask. */
  conversationAt(conversation: Conversation, systemPrompt: string, turn: number): TurnConversation {
    const index = this.list.findIndex((boundary) => boundary.turn === turn);
    if (index < 0) return { kind: 'missing', reason: `there is no turn ${turn} (turns 0 to ${this.last}).` };
    const boundary = this.list[index]!;
    if (boundary.runId !== workflowInfo().runId) return { kind: 'elsewhere', runId: boundary.runId };
    const logIndices = conversation.projectionIndicesAt(boundary.epoch, boundary.logLength);
    const messages: MessageParam[] | undefined = conversation.projectionAt(boundary.epoch, boundary.logLength);
    if (!messages || !logIndices || messages.length !== boundary.messageCount)
      return { kind: 'missing', reason: `the conversation at turn ${turn} could not be rebuilt from this run's log.` };
    return {
      kind: 'conversation',
      turn,
      boundary,
      systemPrompt,
      messages,
      logIndices,
      boundaries: this.list.slice(0, index + 1),
    };
  }

  /** This run's boundaries as places in its transcript log (the `transcript` query). */
  marksInRun(): { turn: number; lastIndex: number }[] {
    const runId = workflowInfo().runId;
    return this.list
      .filter((boundary) => boundary.runId === runId && boundary.logLength > 0)
      .map((boundary) => ({ turn: boundary.turn, lastIndex: boundary.logLength - 1 }));
  }

  carry(): { turns?: TurnBoundary[] } {
    return this.list.length > 0 ? { turns: [...this.list] } : {};
  }
}
