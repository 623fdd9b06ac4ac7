import type { TokenUsage } from '../model/messages';

// Orchestration scripts (docs/workflows.md): what a script run is given, what it records, and its limits.

/** Limits of script runs (Claude Code's where it has one). */
export const scriptLimits = {
  /** Agents of one run running at once, unless the caller asks for another number (1..maxConcurrentAgentsCeiling). */
  defaultConcurrentAgents: 16,
  maxConcurrentAgentsCeiling: 64,
  /** `agent()` calls per run, nested `workflow()` runs included; the next one throws. */
  maxAgentsPerRun: 1000,
  /** Items `parallel` and `pipeline` accept; a longer list throws (never truncated). */
  maxListItems: 4096,
  /** Script source bytes (UTF-8). */
  maxScriptBytes: 256 * 1024,
  /** JSON bytes of `args`. */
  maxArgsBytes: 64 * 1024,
  /** JSON bytes of one `agent()` call's options (a schema included). */
  maxAgentOptionsBytes: 64 * 1024,
  /** Prompt characters of one `agent()` call. */
  maxPromptChars: 100_000,
  /** JSON bytes of a run's result. */
  maxResultBytes: 256 * 1024,
  /** Attempts an agent with `opts.schema` gets to submit a valid object before its `agent()` call throws. */
  schemaAttempts: 5,
  /** `log()` lines kept per run (the oldest are dropped). */
  maxLogLines: 500,
  /** Characters of one `log()` line or `phase()` title. */
  maxLogChars: 2000,
  /** `workflow()` nests one level: a nested script cannot call it again. */
  maxNesting: 1,
} as const;

/** The `export const meta = {...}` header every script starts with. */
export interface ScriptMeta {
  name: string;
  description: string;
  whenToUse?: string;
  /** Display only: titles of the phases the script will enter with `phase()`. */
  phases?: { title: string; detail?: string; model?: string }[];
}

/** Where a script came from. */
export type ScriptOrigin = 'inline' | 'project' | 'user' | 'path';

/** A script that passed its checks (header, syntax, size): what a run executes. */
export interface CheckedScript {
  meta: ScriptMeta;
  /** The whole source as written (the header included). */
  source: string;
  /** The source with the header statement blanked out (same line numbers): what the interpreter runs. */
  body: string;
  origin: ScriptOrigin;
  /** The file it was read from (saved scripts and `scriptPath`). */
  path?: string;
}

/** One finished `agent()` call of a run, in call order: the journal a resume reuses. */
export interface ScriptJournalEntry {
  /** Call number in the run, from 1, in the order the script made the calls. */
  index: number;
  /** Digest of what decides the call's outcome: prompt and options but display-only ones (label, phase). */
  key: string;
  agentId: string;
  status: 'completed' | 'failed' | 'cancelled';
  /** What `agent()` resolved to (text, schema object, or null); undefined when it threw. */
  value?: unknown;
  /** The error `agent()` threw. */
  error?: string;
  tokens: number;
}

/** A previous run whose unchanged prefix of finished calls a new run reuses (Claude Code's `resumeFromRunId`). */
export interface ScriptResumeSource {
  runId: string;
  journal: ScriptJournalEntry[];
}

/** What a script run is given (the `script` field of its input). */
export interface ScriptRunSpec {
  script: CheckedScript;
  /** The caller's input, verbatim, as the global `args` (undefined when omitted). */
  args?: unknown;
  /** Agents running at once (default scriptLimits.defaultConcurrentAgents). */
  maxConcurrentAgents?: number;
  /** Token total for the script's `budget` (also a cap of the run's subtree in the tree's ledger). */
  tokenBudget?: number;
  resumeFrom?: ScriptResumeSource;
}

export type ScriptRunStatus = 'running' | 'completed' | 'failed' | 'cancelled';
export type ScriptAgentStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'reused';

/** One `agent()` call as the run's views show it. */
export interface ScriptAgentView {
  index: number;
  agentId?: string;
  label: string;
  phase?: string;
  agentType: string;
  model?: string;
  status: ScriptAgentStatus;
  tokens: number;
  startedAtMs?: number;
  endedAtMs?: number;
  /** Set when the call was answered from a previous run's journal. */
  reusedFrom?: string;
  error?: string;
}

/** One phase of a run: its agents by status, tokens and time. */
export interface ScriptPhaseView {
  title: string;
  counts: Record<ScriptAgentStatus, number>;
  tokens: number;
  startedAtMs: number;
  endedAtMs?: number;
}

/** A run as `subagents workflows`, `watch` and the library see it (the run's `scriptRun` query). */
export interface ScriptRunSnapshot {
  runId: string;
  name: string;
  description: string;
  status: ScriptRunStatus;
  startedAtMs: number;
  endedAtMs?: number;
  currentPhase?: string;
  phases: ScriptPhaseView[];
  agents: ScriptAgentView[];
  logs: { atMs: number; text: string }[];
  usage: TokenUsage;
  /** The script's return value (JSON) once completed. */
  result?: unknown;
  error?: string;
  resumedFrom?: string;
  maxConcurrentAgents: number;
}

/** The Workflow tool's input (docs/workflows.md). */
export interface WorkflowToolInput {
  script?: string;
  name?: string;
  scriptPath?: string;
  args?: unknown;
  resumeFromRunId?: string;
  /** Agents at once for this run (1..scriptLimits.maxConcurrentAgentsCeiling). */
  maxConcurrentAgents?: number;
  /** Token total for the run's `budget`. */
  budget?: number;
}

/** The Temporal workflow type of a script run. */
export const scriptRunWorkflowType = 'scriptRunWorkflow';
/** The agent type a script run shows in the tree. */
export const scriptRunAgentType = 'workflow';
