import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { AgentResult, AgentStatusSnapshot, AgentWorkflowInput, CarriedAgentState } from './agent';
import type { TokenUsage } from './messages';
import type { ConversationQueryInput, ConversationSlice } from './model-call';

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
}
export const stopNoticeSignal = defineSignal<[StopNotice]>('stopNotice');

/** A child's final (partial) result, sent to its parent when it ends cancelled or failed. */
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

export interface TreeAgentEvent {
  agentId: string;
  kind: 'usage' | 'finished';
  /** For 'usage': tokens used since the last report. */
  usage?: TokenUsage;
  /** For 'finished': whether the agent was spawned in the background (it may be stopped at the budget). */
  background?: boolean;
}
export const treeAgentEventSignal = defineSignal<[TreeAgentEvent]>('treeAgentEvent');

/** Lets the root know a background agent of the tree is running (for budget stops). */
export interface TreeAgentStarted {
  agentId: string;
  parentAgentId: string;
  background: boolean;
}
export const treeAgentStartedSignal = defineSignal<[TreeAgentStarted]>('treeAgentStarted');
