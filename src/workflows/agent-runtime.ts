import type { CancellationScope } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../shared/agent';
import type { LoadedDefinitions } from '../shared/agent-definition';
import type { TreeSpawnReply } from '../shared/definitions';
import type { AgentState } from './agent-state';
import type { Inbox } from './inbox';
import type { TreeCoordinator } from './tree-coordinator';

/** Definitions and settings an agent loads once, on its first spawn. */
export interface SpawnContext {
  loaded: LoadedDefinitions;
  /** SUBAGENTS_SUBAGENT_MODEL, read by the activity. */
  subagentModelOverride?: string;
}

/** What the parts of one agent's workflow share. */
export interface AgentRuntime {
  input: AgentWorkflowInput;
  state: AgentState;
  /** The agent's rendered system prompt bytes (threaded unchanged to forks). */
  systemPrompt(): string;
  /** Where the agent works: input.cwd / workspaceRoot, or inside its worktree once created. */
  cwd: string;
  workspaceRoot: string;
  /** The agent's lifetime abort domain: cancelled when the agent is stopped. */
  lifetime: CancellationScope;
  /**
   * Parent of every child's abort domain. Not cancellable itself, so a stop reaches children only
   * through an explicit stop that first tells them who stopped them and why.
   */
  childrenParent: CancellationScope;
  inbox: Inbox;
  /** Present on the root only. */
  tree?: TreeCoordinator;
  spawnReplies: Map<string, TreeSpawnReply>;
  spawnContext?: SpawnContext;
  /** Who stopped this agent and why, when a stop notice arrived. */
  stopNotice?: { by: string; reason: string };
  /** The current turn's abort domain (model call, tools, foreground children); interrupt cancels it. */
  currentTurn?: CancellationScope;
  /** Set by the interrupt signal until the interrupted turn is wrapped up. */
  interrupt?: { by: string; reason: string };
  /** False once the parent moved this agent to the background (approvals then follow background rules). */
  inForegroundChain: boolean;
  /** Answers to this agent's approval requests, by requestId. */
  approvalDecisions: Map<string, { approved: boolean; always?: boolean; by?: string; reason?: string }>;
  /** Approval requests waiting for an answer. */
  pendingApprovals: Set<string>;
  /** Tools approved "always" (for this agent; the root also keeps the tree's set). */
  alwaysAllowed: Set<string>;
}
