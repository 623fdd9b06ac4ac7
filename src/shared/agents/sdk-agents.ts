// Claude Agent SDK `agents` (docs/api.md, "Claude Agent SDK agents"): merged over the agent types loaded from files.
import type { AgentDefinition, DefinitionReport, LoadedDefinitions } from './agent-definition';

/** Programmatic agent types, already mapped onto this runtime's definitions (src/client/agent-sdk-definitions.ts). */
export type SdkAgents = Record<string, AgentDefinition>;

/** Where reports about programmatic agents point: the option they came from. */
export const sdkAgentsOrigin = (name: string): string => `options.agents[${JSON.stringify(name)}]`;

/**
 * `loaded` with `layers` merged over it, later layers winning: a programmatic definition replaces a file or built-in
 * one of the same name, as in the Claude Agent SDK. Each replacement is reported.
 */
export function mergeSdkAgents(loaded: LoadedDefinitions, ...layers: (SdkAgents | undefined)[]): LoadedDefinitions {
  const present = layers.filter((layer): layer is SdkAgents => layer !== undefined && Object.keys(layer).length > 0);
  if (present.length === 0) return loaded;
  const definitions: Record<string, AgentDefinition> = { ...loaded.definitions };
  const reports: DefinitionReport[] = [...loaded.reports];
  for (const layer of present) {
    for (const [name, definition] of Object.entries(layer)) {
      const replaced = Object.hasOwn(definitions, name) ? definitions[name] : undefined;
      if (replaced && replaced.source !== 'sdk') {
        reports.push({
          file: replaced.file ?? sdkAgentsOrigin(name),
          level: 'skipped',
          message: `agent "${name}" is also given in options.agents, which is used: programmatic definitions take precedence over ${replaced.source} ones (as in the Claude Agent SDK)`,
          name,
        });
      }
      definitions[name] = { ...definition, name, source: 'sdk' };
    }
  }
  const names = Object.keys(definitions).sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  return { ...loaded, definitions: Object.fromEntries(names.map((name) => [name, definitions[name]!])), reports };
}
