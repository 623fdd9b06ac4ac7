import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AgentResult, AgentStatusSnapshot, AgentWorkflowInput, CarriedAgentState } from '../agents/agent';
import type { ApprovalDecision, ApprovalRequest, CarriedTreeState, TreeSnapshot } from './tree';
import type { TokenUsage } from '../model/messages';
import type { AgentColor } from '../agents/agent-colors';
import type { ConversationQueryInput, ConversationSlice } from '../model/model-call';
import type { RunTranscriptSlice, TranscriptQueryInput } from './run-transcript';
import type {
  BudgetCaps,
  BudgetChange,
  BudgetCharge,
  BudgetGrant,
  BudgetReserveRequest,
  BudgetSnapshot,
} from '../budget/budget';

// Query, signal and update names are part of the public interface: the `temporal` CLI can use them too.

export const conversationQuery = defineQuery<ConversationSlice, [ConversationQueryInput]>('conversation');
export const statusQuery = defineQuery<AgentStatusSnapshot>('status');

/** What a new run of the same agentId needs to continue it (resume). */
export interface ResumeState {
  input: AgentWorkflowInput;
  carried: CarriedAgentState;
  status: AgentStatusSnapshot['state'];
  result?: AgentResult;
  /** Set when a person (or an ancestor on their behalf) stopped the agent: it is not auto-resumed. */
  stoppedBy?: string;
  /** A root's tree bookkeeping (tokens used, budget, pause): a resumed root goes on with it. */
  tree?: CarriedTreeState;
}
export const resumeStateQuery = defineQuery<ResumeState>('resumeState');

/** A directed message to an agent, queued and delivered at its next turn boundary. */
export interface AgentMessage {
  /** agentId of the sender, or 'user'. */
  from: string;
  text: string;
}
export const messageSignal = defineSignal<[AgentMessage]>('message');

/** Why an agent is about to be cancelled; sent just before the cancellation so its result can say so. */
export interface StopNotice {
  by: string;
  reason: string;
  /** The root stops its whole tree: ends are not reported to it (docs/architecture.md, "Abort domains and the control plane"). */
  wholeTree?: boolean;
  /** The stopping parent has already ended, so the stopped agent sends it no `childFinal`. */
  parentEnded?: boolean;
}
export const stopNoticeSignal = defineSignal<[StopNotice]>('stopNotice');

/** A cancelled child's partial result, sent to its parent (a failed child's rides in its AgentFailed failure). */
export const childFinalSignal = defineSignal<[AgentResult]>('childFinal');

// Tree coordination: every agent of a tree reports to its root, which enforces the tree's limits.

export interface TreeSpawnRequest {
  requestId: string;
  requesterId: string;
  childId: string;
}
export const treeSpawnRequestSignal = defineSignal<[TreeSpawnRequest]>('treeSpawnRequest');

export interface TreeSpawnReply {
  requestId: string;
  granted: boolean;
  reason?: string;
}
export const treeSpawnReplySignal = defineSignal<[TreeSpawnReply]>('treeSpawnReply');

/** Something that happened to an agent of the tree, reported to the root. */
export interface TreeAgentEvent {
  agentId: string;
  /** usage: tokens it used; finished: it ended; backgrounded: its parent stopped waiting for it (auto-background). */
  kind: 'usage' | 'finished' | 'backgrounded';
  /** For 'usage': tokens used since the last report. */
  usage?: TokenUsage;
  /** For 'finished': whether the agent was spawned in the background (it may be stopped at the budget). */
  background?: boolean;
}
export const treeAgentEventSignal = defineSignal<[TreeAgentEvent]>('treeAgentEvent');

/** Lets the root know an agent of the tree has started (for the tree listing, limits and budget stops). */
export interface TreeAgentStarted {
  agentId: string;
  parentAgentId: string;
  background: boolean;
  agentType?: string;
  color?: AgentColor;
  description?: string;
  name?: string;
  depth?: number;
  startedAtMs?: number;
  /** Caps of the new agent's subtree (docs/budgets.md). */
  budgetCaps?: BudgetCaps;
}

// The tree's ledger (docs/budgets.md): agents reserve before each model call; model activities charge what was billed.

/** An agent asks its root's ledger for room for one model call. */
export interface BudgetReserve {
  request: BudgetReserveRequest;
  requesterId: string;
  /** The agent's previous call, charged first (it rides with the next reservation: one signal instead of two). */
  settle?: BudgetCharge;
}
export const budgetReserveSignal = defineSignal<[BudgetReserve]>('budgetReserve');
/** The root's answer to a reservation. */
export const budgetGrantSignal = defineSignal<[BudgetGrant]>('budgetGrant');
/** What one attempt of a model call was billed (sent by the model activity, and by the agent to release a call that failed). */
export const budgetChargeSignal = defineSignal<[BudgetCharge]>('budgetCharge');
/** The ledger by agent. */
export const budgetQuery = defineQuery<BudgetSnapshot>('budget');
/** Changes the caps of a running tree or subtree; answers the caps now in force. */
export const setBudgetUpdate = defineUpdate<BudgetCaps, [BudgetChange]>('setBudget');

export const treeAgentStartedSignal = defineSignal<[TreeAgentStarted]>('treeAgentStarted');

// Control plane (docs/cli.md): interrupt, steer, close, pause spawning, the tree, approvals.

/** Cancels the agent's current turn (model call, tools, foreground children); the agent stays. */
export interface InterruptInput {
  by?: string;
  reason?: string;
}
export const interruptSignal = defineSignal<[InterruptInput]>('interrupt');

/** Guidance for a running agent, delivered at its next turn boundary without stopping it. */
export interface SteerInput {
  text: string;
  by?: string;
}
export interface SteerAck {
  queued: true;
  /** The agent's turn when the steer was queued. */
  turn: number;
}
export const steerUpdate = defineUpdate<SteerAck, [SteerInput]>('steer');
/** The same as the steer update, for callers that cannot wait for an answer. */
export const steerSignal = defineSignal<[SteerInput]>('steerSignal');

/** Ends an interactive root after its current turn. */
export const closeSignal = defineSignal('close');

/** Pauses (or resumes) new spawns in a whole tree; running agents go on. Sent to the root. */
export const pauseSpawningSignal = defineSignal<[{ paused: boolean }]>('pauseSpawning');

/** Tells a child that its parent stopped waiting for it (auto-background): it is now background. */
export const backgroundedSignal = defineSignal('backgrounded');

/** A newer version of the agent's worker deployment is current (docs/operations.md, "Upgrades"). */
export interface UpgradeNotice {
  /** The build id now current in the agent's deployment. */
  buildId: string;
}

/** Asks a long-lived agent to continue as new onto the deployment's current version at its next turn boundary. */
export const upgradeSignal = defineSignal<[UpgradeNotice]>('upgrade');

/** The whole tree, answered by the root. */
export const treeQuery = defineQuery<TreeSnapshot>('tree');

export const approvalRequestSignal = defineSignal<[ApprovalRequest]>('approvalRequest');

/** The root's answer to the requesting agent. */
export const approvalDecisionSignal = defineSignal<[ApprovalDecision]>('approvalDecision');
/** A person's answer, sent to the root; rejected when no such request is pending. */
export const answerApprovalUpdate = defineUpdate<{ delivered: true }, [ApprovalDecision]>('answerApproval');
export const approvalsQuery = defineQuery<ApprovalRequest[]>('approvals');

// Long runs (docs/architecture.md, Compaction; docs/cli.md): compaction on demand, the run's transcript log, resume inside a tree.

/** Asks an agent to compact its conversation at its next turn boundary (at once when it waits for input). */
export interface CompactInput {
  by?: string;
  /** Extra instructions for the summary ("keep the test output verbatim"). */
  instructions?: string;
}
export interface CompactAck {
  queued: true;
  turn: number;
  /** Estimated tokens of its next request, and its model's window. */
  estimatedTokens: number;
  window: number;
}
export const compactUpdate = defineUpdate<CompactAck, [CompactInput]>('compact');

/** A page of this run's transcript log: every message the run held, also those a compaction replaced. */
export const transcriptQuery = defineQuery<RunTranscriptSlice, [TranscriptQueryInput]>('transcript');

/** Resumes a finished descendant as this agent's child, so it stays in the tree (sent by `client.resume`). */
export interface ResumeDescendantInput {
  agentId: string;
  prompt: string;
  /** Resume even an agent that was stopped (`subagents resume --force`). */
  allowStopped?: boolean;
  /** `subagents rewind` of a finished descendant: its new run starts at this boundary (docs/rewind.md). */
  rewind?: { turn: number; files?: boolean };
  by?: string;
}
export interface ResumeDescendantAck {
  agentId: string;
  /** The ancestor that started the resumed run as its child. */
  startedBy: string;
}
export const resumeDescendantUpdate = defineUpdate<ResumeDescendantAck, [ResumeDescendantInput]>('resumeDescendant');
