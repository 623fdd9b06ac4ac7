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
  /** The agent's lifetime abort domain: cancelled when the agent is stopped. Children's scopes hang off it. */
  lifetime: CancellationScope;
  inbox: Inbox;
  /** Present on the root only. */
  tree?: TreeCoordinator;
  spawnReplies: Map<string, TreeSpawnReply>;
  spawnContext?: SpawnContext;
  /** Who stopped this agent and why, when a stop notice arrived. */
  stopNotice?: { by: string; reason: string };
}
