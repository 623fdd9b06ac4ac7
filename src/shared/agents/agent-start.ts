import type { SdkAgents } from './sdk-agents';
import type { PermissionMode } from './agent';
import type { CustomToolFilter, ToolTaskQueues } from '../tools/custom-tools';
import type { ToolDescriptor } from '../tools/extra-tools';
import type { DefinitionPromptRef, MemoryScope, SpawnContext } from './agent-definition';
import type { TreeSettings } from './tree-settings';

/** Input of the `renderAgentStart` activity: who the agent is and where it stands. */
export interface AgentStartInput {
  agentId: string;
  agentType: string;
  name?: string;
  parentAgentId?: string;
  depth: number;
  maxDepth: number;
  model: string;
  definitionPrompt: string;
  /** The prompt by digest ('' as `definitionPrompt`): the activity gets the text (src/project/agent-definitions/prompt-store.ts). */
  definitionPromptRef?: DefinitionPromptRef;
  cwd: string;
  tools: readonly string[];
  allowedAgentTypes?: readonly string[];
  permissionMode: PermissionMode;
  /** `limits.forking`: the roster says what an omitted subagent_type starts. */
  forking: boolean;
  /** A slim prompt: no guidance sections, no git status, no CLAUDE.md (Explore, Plan). */
  oneShot?: boolean;
  /** Which of the worker's custom tools the agent gets (absent: none). */
  customTools?: CustomToolFilter;
  /** Its persistent memory scope: the system prompt gets the directory and the start of MEMORY.md. */
  memory?: MemoryScope;
  /** Skills to preload (names under `.claude/skills`). */
  skills?: readonly string[];
  /** A root: load the tree's settings files (hooks, permission rules) for its cwd. */
  loadSettings?: boolean;
  /** Where saved workflow scripts are looked up from the cwd upward (default: the cwd). */
  workspaceRoot?: string;
  /** The tree's Claude Agent SDK `agents`: merged over the loaded types, and a child's prompt when it is one of them. */
  sdkAgents?: SdkAgents;
}

/** The worker's part of an agent's tools, said once at its start: its custom tools and where built-in tools run. */
export interface WorkerTools {
  descriptors: ToolDescriptor[];
  taskQueues?: ToolTaskQueues;
}

/** What an agent is given at start, once, and keeps for its whole life. */
export interface AgentStart {
  /** The system prompt bytes, sent unchanged on every model call (and threaded to forks). */
  systemPrompt: string;
  /** The `<system-reminder>` that opens its first message: its identity and, with the Agent tool, its roster. */
  context: string;
  /** The preloaded skills' text, a block of the first message after the context (absent: none). */
  skills?: string;
  /** The agent types loaded for the roster; the Agent tool spawns from exactly these. */
  spawnContext?: SpawnContext;
  /** A `memory: user` agent's memory directory: outside the workspace, its file tools may still use it. */
  memoryDirectory?: string;
  /** Absent when the worker has no custom tools and routes no tool (and in runs recorded before custom tools). */
  workerTools?: WorkerTools;
  /** A root's tree settings (asked with `loadSettings`); absent in runs recorded before settings support. */
  settings?: TreeSettings;
}
