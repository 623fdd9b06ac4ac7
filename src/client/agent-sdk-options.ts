// `startAgent`'s Claude Agent SDK options: `agents` over the file types, `hooks` beside the settings files' (docs/api.md).
import { loadProjectSettings } from '../project/settings/project-settings';
import { parseHooksConfig } from '../project/hooks-schema';
import { mergeHooks } from '../shared/policy/hooks';
import type { LoadedDefinitions } from '../shared/agents/agent-definition';
import { mergeSdkAgents, type SdkAgents } from '../shared/agents/sdk-agents';
import type { TreeSettings } from '../shared/agents/tree-settings';
import { InvalidAgentDefinition, mapSdkAgents, type AgentDefinition } from './agent-sdk-definitions';

/** What the SDK options add to a root: the merged types, the tree's mapped agents, its settings with the hooks. */
export interface SdkRootParts {
  loaded: LoadedDefinitions;
  sdkAgents?: SdkAgents;
  /** `initialPrompt` of the root's type, to open its first message. */
  initialPrompt?: string;
  treeSettings?: TreeSettings;
}

/** True when a value holds a function anywhere (SDK callback hooks, which no history can record). */
function holdsFunction(value: unknown, depth = 0): boolean {
  if (typeof value === 'function') return true;
  if (typeof value !== 'object' || value === null || depth > 6) return false;
  return Object.values(value).some((inner) => holdsFunction(inner, depth + 1));
}

/** The settings files' tree settings with `hooks` (Claude Code's settings shape) run after theirs; throws on a hook it cannot run. */
export async function treeSettingsWithHooks(hooks: unknown, cwd: string, homeDir: string): Promise<TreeSettings> {
  if (holdsFunction(hooks))
    throw new InvalidAgentDefinition(
      'options.hooks: SDK callback hooks are functions of this process and cannot run durably on a worker; ' +
        'give command hooks ({ type: "command", command }) in Claude Code\'s settings shape (docs/hooks.md).',
    );
  const parsed = parseHooksConfig(hooks);
  if (parsed.problems.length > 0) throw new InvalidAgentDefinition(`options.hooks: ${parsed.problems.join('; ')}.`);
  const settings = await loadProjectSettings(cwd, homeDir);
  const merged = mergeHooks(settings.hooks, parsed.hooks);
  return { ...settings, ...(merged ? { hooks: merged } : {}) };
}

/** `loaded` with `agents` merged over it (programmatic wins), their warnings printed; the settings with `hooks` when given. */
export async function sdkRootParts(
  options: { agents?: Record<string, AgentDefinition>; hooks?: unknown; type: string },
  loaded: LoadedDefinitions,
  cwd: string,
  homeDir: string,
  warn: (line: string) => void = (line) => console.warn(`warning: ${line}`),
): Promise<SdkRootParts> {
  const treeSettings =
    options.hooks === undefined ? undefined : await treeSettingsWithHooks(options.hooks, cwd, homeDir);
  if (options.agents === undefined) return { loaded, ...(treeSettings ? { treeSettings } : {}) };
  const mapped = mapSdkAgents(options.agents);
  for (const report of mapped.reports) warn(`${report.file}: ${report.message}`);
  const agents = Object.keys(mapped.agents).length > 0 ? mapped.agents : undefined;
  const initialPrompt = Object.hasOwn(mapped.initialPrompts, options.type)
    ? mapped.initialPrompts[options.type]
    : undefined;
  return {
    loaded: mergeSdkAgents(loaded, agents),
    ...(agents ? { sdkAgents: agents } : {}),
    ...(initialPrompt ? { initialPrompt } : {}),
    ...(treeSettings ? { treeSettings } : {}),
  };
}
