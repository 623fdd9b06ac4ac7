// Descriptors of tools unknown at build time (MCP, custom): calls are routed by them (docs/tools.md, "Extra tools").
import type { ToolDefinition } from '../model/messages';
import type { McpServerSpec } from './mcp';
import type { ToolTaskQueues } from './custom-tools';

/** How the runtime treats a tool: the same questions tool-classification.ts answers for the built-in tools. */
export interface ToolClassification {
  /** Changes nothing: runs side by side with other read-only calls of its turn. */
  readOnly: boolean;
  /** A call needs a person's approval unless the permission mode allows it (bypassPermissions, an "always" answer). */
  needsApproval: boolean;
  /** A call may be run again after a crash or a lost connection (read-only or idempotent). */
  retrySafe: boolean;
}

/** How a call is run. */
export type ToolRunner =
  | {
      kind: 'mcp';
      /** Server name as the agent knows it (the key of {@link ExtraTools.mcpServers}). */
      server: string;
      /** The tool's own name on that server. */
      tool: string;
    }
  | {
      /** A custom tool defined on the worker (`defineTool`): its own activity type, named after the tool. */
      kind: 'custom';
      /** Task queue of its activity (absent: the agent's own). */
      taskQueue?: string;
      /** Start-to-close limit of one attempt. */
      timeoutMs: number;
      /** Heartbeat timeout (absent: the tool does not heartbeat). */
      heartbeatTimeoutMs?: number;
      /** Attempts at most (1: at most once, like Bash). */
      maximumAttempts: number;
    }
  | {
      /** StructuredOutput: the workflow answers it and ends the agent (src/workflows/tools/structured-output.ts). */
      kind: 'structuredOutput';
    };

/** One tool of an agent beyond the runtime's own. */
export interface ToolDescriptor {
  /** Model-facing definition (its name is what the model calls). */
  definition: ToolDefinition;
  classification: ToolClassification;
  runner: ToolRunner;
}

/** MCP server as the agent saw it at start. */
export interface McpServerStatus {
  name: string;
  state: 'connected' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  error?: string;
  /** Tools of the server that passed the agent's tool filter. */
  tools: number;
  /** Tools left out, with why (names the API does not accept). */
  notes?: string[];
  transport: McpServerSpec['type'];
}

/** An agent's extra tools: snapshotted once at its start, carried across continue-as-new and copied to forks. */
export interface ExtraTools {
  descriptors: ToolDescriptor[];
  /** Specs of the MCP servers the descriptors run on, by name (`${VAR}` references unexpanded). */
  mcpServers: Record<string, McpServerSpec>;
  status: McpServerStatus[];
  /** Built-in tools whose activities run on another task queue (docs/tools.md, "Tool task queues"), as the worker said at the agent's start. */
  taskQueues?: ToolTaskQueues;
  /** Set while the snapshot holds only the worker's custom tools and the agent's MCP servers are still to be started. */
  awaitingMcp?: true;
}

export const noExtraTools = (): ExtraTools => ({ descriptors: [], mcpServers: {}, status: [] });

/** Finds a descriptor by the name the model calls. */
export function descriptorFor(extra: ExtraTools | undefined, name: string): ToolDescriptor | undefined {
  return extra?.descriptors.find((descriptor) => descriptor.definition.name === name);
}
