import type { PermissionMode } from './permission-mode';
import type { AgentColor } from './agent-colors';
import type { EffortLevel } from './effort';
import type { ToolRules } from '../policy/tool-rules';
import type { McpServerEntry, McpServerSpec } from '../tools/mcp';
import type { HooksConfig } from '../policy/hooks';
import type { BudgetCaps } from '../budget/budget';

/** Where a definition came from; sdk (options.agents) beats project beats user beats plugin beats built-in on a name clash. */
export type DefinitionSource = 'built-in' | 'plugin' | 'user' | 'project' | 'sdk';

/** A resolved agent type: a built-in, or a `.claude/agents/*.md` file in Claude Code's format. */
export interface AgentDefinition {
  name: string;
  description: string;
  /** Allow-list of tool names; undefined (or ['*']) = every tool. */
  tools?: string[];
  /** Deny-list, applied before `tools`. */
  disallowedTools?: string[];
  /** From `Agent(a,b)` in `tools`: the agent types this one may spawn (undefined = any). */
  allowedAgentTypes?: string[];
  /** Model id, alias (haiku/sonnet/opus), or 'inherit'. */
  model?: string;
  permissionMode?: PermissionMode;
  maxTurns?: number;
  /** Caps of the subtree of each agent of this type (front matter `maxTokens`, `maxCostUsd`, `maxToolCalls`, `maxTime`; docs/budgets.md). */
  budget?: BudgetCaps;
  /** Always run in the background. */
  background?: boolean;
  isolation?: 'worktree';
  /** Its Bash runs only read-only commands (Explore, Plan): anything else is refused when called. */
  readOnlyBash?: boolean;
  /** One-shot (Explore, Plan, `omitClaudeMd: true`): no CLAUDE.md or git status, no SendMessage trailer. */
  oneShot?: boolean;
  /** Extended thinking for its model calls (front matter `thinking`); off when absent. */
  thinking?: ThinkingSetting;
  /** How much effort its model calls ask for (front matter `effort`): `output_config.effort`, per model (src/shared/agents/effort.ts). */
  effort?: EffortLevel;
  /** Its persistent memory directory (front matter `memory`): MEMORY.md in its system prompt, Read/Write/Edit added to its tools. */
  memory?: MemoryScope;
  /** Skills preloaded into its first message (front matter `skills`: names under `.claude/skills`). */
  skills?: string[];
  /** Claude Code's display colour (front matter `color`): shown in `ls --tree` and progress lines. */
  color?: AgentColor;
  /** The system prompt body. */
  prompt: string;
  source: DefinitionSource;
  /** Absolute path of the defining file (custom definitions). */
  file?: string;
  /** Front-matter fields accepted but not supported yet (fields of other tools, misspellings, ...), kept verbatim. */
  unsupported?: Record<string, unknown>;
  /** Rules of `tools` (`Bash(git diff:*)`: only matching calls run) and `disallowedTools` (`Bash(rm:*)`: matching calls refused), checked at call time. */
  toolRules?: ToolRules;
  /** `mcp__…` entries of `tools` (exact names, `mcp__server`, `mcp__server__*`, `mcp__*`). */
  mcpTools?: string[];
  /** Entries of `tools` naming no runtime or MCP tool: the worker's custom tools of these names (docs/tools.md, "Custom tools"). */
  customTools?: string[];
  /** Entries of `disallowedTools` naming no runtime or MCP tool: they deny the worker's custom tools of these names. */
  disallowedCustomTools?: string[];
  /** Hooks scoped to this agent (front matter `hooks`, docs/hooks.md); in a subagent its `Stop` hooks run as `SubagentStop`. */
  hooks?: HooksConfig;
  /** MCP servers of this agent: configured ones by name, or inline specs. */
  mcpServers?: McpServerEntry[];
  /** Servers that must be connected before the agent's first turn (waited for up to 30 s). */
  requiredMcpServers?: string[];
}

/** Where an agent type's persistent memory lives (front matter `memory`). */
export type MemoryScope = 'user' | 'project' | 'local';

/** Extended thinking: a budget of thinking tokens, or adaptive (the model decides). */
export type ThinkingSetting = { type: 'enabled'; budgetTokens: number } | { type: 'adaptive' };

/** Something noticed while loading one definition file. */
export interface DefinitionReport {
  file: string;
  /** skipped: the file is not used; warning: used, with something ignored. */
  level: 'skipped' | 'warning';
  message: string;
  /** The agent's name, when the file got that far (so `start --type NAME` can say why NAME is missing). */
  name?: string;
}

/**
 * The largest system prompt a definition may have: the rendered prompt is recorded in the agent's history, whose
 * payloads Temporal limits to 2 MB (with a warning from 512 KB), beside tools and context.
 */
export const maxDefinitionPromptBytes = 256 * 1024;

/** Why an agent name cannot be used (a control character breaks headers, tables and logs), or undefined. */
export function agentNameProblem(name: string): string | undefined {
  if (/[\p{Cc}\u2028\u2029]/u.test(name)) return 'contains a control character (a newline or tab)';
  if ([...name].length > 128) return 'is longer than 128 characters';
  return undefined;
}

/** The result of loading definitions for a working directory. */
export interface LoadedDefinitions {
  /** By name, after precedence (project > user > built-in). */
  definitions: Record<string, AgentDefinition>;
  reports: DefinitionReport[];
  /** Directories searched, in order. */
  searched: string[];
}

/** Input of `loadAgentDefinitions`. */
export interface LoadDefinitionsInput {
  cwd: string;
  /** Overrides ~ (tests). */
  homeDir?: string;
}

/** Definitions and settings an agent loads once, on its first spawn (the loadSpawnContext activity). */
export interface SpawnContext {
  loaded: LoadedDefinitions;
  /** SUBAGENTS_SUBAGENT_MODEL, read by the activity. */
  subagentModelOverride?: string;
  /** MCP servers configured for the cwd (`.mcp.json`), by name; absent in runs recorded before MCP support. */
  mcpServers?: Record<string, McpServerSpec>;
  /** Prompt digests by name when the prompts were left out (docs/agent-definitions.md, "What an agent records"). */
  promptDigests?: Record<string, string>;
}

/** Where a child's definition prompt is, when its parent recorded only its digest: the digest, and the file that defined it (none for a built-in). */
export interface DefinitionPromptRef {
  digest: string;
  file?: string;
}
