/** Wire types for tool activities: one JSON input object and one JSON result per call. */
import type { TokenUsage, ToolResultContent } from '../model/messages';
import type { SandboxSettings } from '../policy/sandbox';

/** Where an agent's file tools may act. */
export interface ToolContext {
  /** agentId of the calling agent (its workflow ID). */
  agentId: string;
  /** Absolute path; file tools refuse anything that resolves outside it (after symlinks). */
  workspaceRoot: string;
  /** Absolute path inside workspaceRoot; relative paths resolve against it. */
  cwd: string;
  /** Results longer than this many characters are stored in a file and replaced by a preview. */
  maxResultChars?: number;
  /** The `memory: user` directory outside the workspace, open to file tools too (docs/agent-definitions.md). */
  memoryDir?: string;
  /** The tree's sandbox settings (settings files' `sandbox` key): what Bash may also write, read and reach. */
  sandbox?: SandboxSettings;
}

/** What the agent knew about a file when it last read or wrote it (read-file state). */
export interface ReadFileRecord {
  /** Absolute, symlink-resolved path. */
  path: string;
  mtimeMs: number;
  size: number;
  /** sha256 hex of the whole file content at that time. */
  sha256: string;
  /** True when inherited and no longer trustworthy (e.g. a fork moved to a worktree): needs a fresh Read. */
  stale?: boolean;
}

/** Path → record, per agent; lives in workflow state. */
export type ReadFileState = Record<string, ReadFileRecord>;

/** A tool result that was too large and was moved to a file (recorded per tool_use id). */
export interface ContentReplacement {
  toolUseId: string;
  path: string;
  originalChars: number;
}

/** Input of every tool activity. */
export interface ToolCallInput {
  context: ToolContext;
  toolUseId: string;
  /** The model's tool input, validated by the activity. */
  input: Record<string, unknown>;
  /** The agent's read-file state (only the entries the tool needs; Write/Edit consult it). */
  readFileState?: ReadFileState;
}

/** Result of every tool activity. */
export interface ToolCallResult {
  /** Text given to the model as the tool_result content. */
  content: string;
  isError: boolean;
  /** Files this call read or wrote: merged into the agent's read-file state. */
  readFiles?: ReadFileRecord[];
  /** Set when the content was replaced by a preview. */
  replacement?: ContentReplacement;
  /** Rich content (text and images) sent to the model instead of `content` (MCP tools). */
  blocks?: ToolResultContent[];
  /** Model tokens the tool itself used (WebFetch's small model call, WebSearch's search call): added to the agent's usage. */
  usage?: TokenUsage;
}

/** One Read of a batch (`readBatch`, src/workflows/tools/read-batch.ts): its result, or the message of the error it threw. */
export type ReadBatchOutcome = { result: ToolCallResult } | { failure: string };
