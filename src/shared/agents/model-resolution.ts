import { resolveModelAlias } from './models';

/** The inputs of model resolution, highest priority first (docs/agent-definitions.md). */
export interface ModelResolutionInput {
  /** SUBAGENTS_SUBAGENT_MODEL, read by the activity that loads definitions (never from workflow code). */
  environmentOverride?: string;
  /** The Agent call's `model`. */
  callModel?: string;
  /** The definition's `model` ('inherit' or absent = the parent's). */
  definitionModel?: string;
  parentModel: string;
}

/** Picks a subagent's effective model id: env override > per-call > definition > parent; aliases resolved. */
export function resolveSubagentModel(input: ModelResolutionInput): string {
  const pick = [input.environmentOverride, input.callModel, input.definitionModel].find(
    (model) => model !== undefined && model.trim() !== '' && model !== 'inherit',
  );
  return resolveModelAlias((pick ?? input.parentModel).trim());
}
