import type { ToolUseBlock } from '../../shared/model/messages';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import type { ReadBatchOutcome, ToolContext } from '../../shared/tools/tools';

// Types the tool runner shares with the modules that feed it, kept apart so none of them imports another's code.

/** A tool implemented in workflow code (e.g. Agent), instead of by an activity. */
export type WorkflowTool = (call: ToolUseBlock) => Promise<ToolOutcome>;

/** A call's pre-read outcome for the turn's tool runner (undefined: run it as usual). */
export type PreReadLookup = (call: ToolUseBlock, context: ToolContext) => ReadBatchOutcome | undefined;

/** What a PreToolUse hook decided about one call: refuse it (the text the model sees), or how to ask. */
export type PreToolDecision =
  | { type: 'refuse'; outcome: ToolOutcome }
  | { type: 'go'; permission?: PermissionOverride; context?: string; updatedInput?: Record<string, unknown> };

/** How a call's approval goes against the mode: `allow` skips asking, `ask` asks, `defer` waits for a person whatever the mode. */
export type PermissionOverride = 'allow' | 'ask' | 'defer';
