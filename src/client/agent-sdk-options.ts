// `startAgent`'s Claude Agent SDK options: `agents` over the file types, `hooks` beside the settings files' (docs/api.md).
import { parseHooksConfig } from '../project/hooks-schema';
import type { HooksConfig } from '../shared/policy/hooks';
import type { LoadedDefinitions } from '../shared/agents/agent-definition';
import { mergeSdkAgents, type SdkAgents } from '../shared/agents/sdk-agents';
import { InvalidAgentDefinition, mapSdkAgents, type AgentDefinition } from './agent-sdk-definitions';

/** What the SDK options add to a root: the merged types, the tree's mapped agents and hooks. */
export interface SdkRootParts {
  loaded: LoadedDefinitions;
  sdkAgents?: SdkAgents;
  /** `initialPrompt` of the root's type, to open its first message. */
  initialPrompt?: string;
  /** `hooks`, run by the whole tree after the settings files' hooks. */
  sdkHooks?: HooksConfig;
}

/** True when a value holds a function anywhere (SDK callback hooks, which no history can record). */
function holdsFunction(value: unknown, depth = 0): boolean {
  if (typeof value === 'function') return true;
  if (typeof value !== 'object' || value === null || depth > 6) return false;
  return Object.values(value).some((inner) => holdsFunction(inner, depth + 1));
}

/** `hooks` (Claude Code's settings shape, command handlers) checked; throws on a hook it cannot run. */
export function sdkHooksConfig(hooks: unknown): HooksConfig | undefined {
  if (holdsFunction(hooks))
    throw new InvalidAgentDefinition(
      'options.hooks: SDK callback hooks are functions of this process and cannot run durably on a worker; ' +
        'give command hooks ({ type: "command", command }) in Claude Code\'s settings shape (docs/hooks.md).',
    );
  const parsed = parseHooksConfig(hooks);
  if (parsed.problems.length > 0) throw new InvalidAgentDefinition(`options.hooks: ${parsed.problems.join('; ')}.`);
  return parsed.hooks;
}

/** `loaded` with `agents` merged over it (programmatic wins), their warnings printed; `hooks` checked. */
export function sdkRootParts(
  options: { agents?: Record<string, AgentDefinition>; hooks?: unknown; type: string },
  loaded: LoadedDefinitions,
  warn: (line: string) => void = (line) => console.warn(`warning: ${line}`),
): SdkRootParts {
  const sdkHooks = options.hooks === undefined ? undefined : sdkHooksConfig(options.hooks);
  if (options.agents === undefined) return { loaded, ...(sdkHooks ? { sdkHooks } : {}) };
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
    ...(sdkHooks ? { sdkHooks } : {}),
  };
}
