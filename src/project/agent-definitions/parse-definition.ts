import path from 'node:path';
import type { PermissionMode } from '../../shared/agents/agent';
import { type AgentColor, agentColors, isAgentColor } from '../../shared/agents/agent-colors';
import {
  agentNameProblem,
  maxDefinitionPromptBytes,
  type AgentDefinition,
  type DefinitionReport,
  type ThinkingSetting,
} from '../../shared/agents/agent-definition';
import { modelAliases } from '../../shared/agents/models';
import { hasCaps, type BudgetCaps } from '../../shared/budget/budget';
import {
  type DefinitionFields,
  knownUnsupportedFieldNames,
  supportedFieldNames,
  validateDefinitionFields,
} from './definition-schema';
import { parseFrontMatter, splitFrontMatter } from './front-matter';
import { parseMcpServers, parseRequiredMcpServers } from './mcp-fields';
import { parseAllowList, parseDenyList, remainingTools } from './tool-spec';
import type { ToolRule } from '../../shared/policy/tool-rules';
import { isSkillName } from '../skills';
import { parseHooksConfig } from '../hooks-schema';

/** One file's outcome: a definition (maybe with warnings), or only a `skipped` report. */
export interface ParsedDefinitionFile {
  definition?: AgentDefinition;
  reports: DefinitionReport[];
  /** `tools`/`disallowedTools` entries that were dropped (unknown names, narrowed rules), for `subagents agents --scan`. */
  droppedTools?: string[];
}

/** 262144 → "256 KiB", 5242880 → "5.0 MiB". */
function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${Math.round(bytes / 1024)} KiB`;
}

/** `subagent_type: "fork"` selects the fork path, so no definition may take that name. */
const reservedNames = ['fork'];

function toPermissionMode(
  value: NonNullable<DefinitionFields['permissionMode']>,
  warn: (message: string) => void,
): PermissionMode {
  switch (value) {
    case 'manual':
      return 'default';
    case 'auto':
      warn('permissionMode "auto" is not supported yet; the agent runs in "default" mode');
      return 'default';
    default:
      return value;
  }
}

function toThinking(value: NonNullable<DefinitionFields['thinking']>): ThinkingSetting | undefined {
  if (value === 'adaptive') return { type: 'adaptive' };
  if (typeof value === 'number') return { type: 'enabled', budgetTokens: value };
  return undefined;
}

function toColor(value: unknown, warn: (message: string) => void): AgentColor | undefined {
  if (value === undefined) return undefined;
  const normalized = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (isAgentColor(normalized)) return normalized;
  warn(
    `color ${JSON.stringify(value)?.slice(0, 40)} is not one of ${agentColors.join(', ')}; the agent is shown without a colour`,
  );
  return undefined;
}

function toSkills(value: string | string[], warn: (message: string) => void): string[] {
  const names = (typeof value === 'string' ? value.split(',') : value)
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const bad = names.filter((name) => !isSkillName(name));
  if (bad.length > 0)
    warn(
      `skills: ${bad.map((name) => JSON.stringify(name)).join(', ')} ${bad.length === 1 ? 'is not a skill name' : 'are not skill names'} (a directory name under .claude/skills); ignored`,
    );
  return [...new Set(names.filter(isSkillName))];
}

/** The caps of the agent's subtree from `maxTokens`, `maxCostUsd`, `maxToolCalls` and `maxTime` (docs/budgets.md). */
function budgetOf(fields: DefinitionFields): Pick<AgentDefinition, 'budget'> {
  const budget: BudgetCaps = {
    ...(fields.maxTokens !== undefined ? { tokens: fields.maxTokens } : {}),
    ...(fields.maxCostUsd !== undefined ? { costUsd: fields.maxCostUsd } : {}),
    ...(fields.maxToolCalls !== undefined ? { toolCalls: fields.maxToolCalls } : {}),
    ...(fields.maxTime !== undefined ? { wallTimeMs: fields.maxTime } : {}),
  };
  return hasCaps(budget) ? { budget } : {};
}

function modelWarning(model: string): string | undefined {
  if (model === 'inherit' || model in modelAliases || model.startsWith('claude-')) return undefined;
  return `model "${model}" is not an alias this runtime knows (${Object.keys(modelAliases).join(', ')}) or a claude-* id; it is sent to the API unchanged`;
}

function splitFields(fields: Record<string, unknown>): {
  supported: Record<string, unknown>;
  unsupported: Record<string, unknown>;
} {
  const supported: Record<string, unknown> = {};
  const unsupported: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    // `model:` with nothing after it is YAML null: treat an empty optional field as absent.
    if (supportedFieldNames.includes(key)) {
      if (value !== null) supported[key] = value;
    } else unsupported[key] = value;
  }
  return { supported, unsupported };
}

/** Anchors path rules as Claude Code does: `/x` at the project root, `~/x` at home (as an absolute `//` rule). */
function anchorRules(rules: ToolRule[] | undefined, file: string, homeDir: string | undefined): ToolRule[] | undefined {
  if (!rules) return undefined;
  const marker = `${path.sep}.claude${path.sep}`;
  const index = file.lastIndexOf(marker);
  const root = index > 0 ? file.slice(0, index) : path.dirname(file);
  return rules.map((rule) => {
    if (rule.tool === 'Bash' || rule.tool === 'WebFetch') return rule;
    if (rule.content.startsWith('~/') && homeDir)
      return { ...rule, content: `/${path.join(homeDir, rule.content.slice(2))}` };
    if (rule.content.startsWith('/') && !rule.content.startsWith('//')) return { ...rule, root };
    return rule;
  });
}

/** Parses one definition file's text (Claude Code format); never throws. `homeDir` anchors `~/` path rules. */
export function parseDefinitionFile(
  text: string,
  file: string,
  source: 'user' | 'project' | 'plugin',
  homeDir?: string,
): ParsedDefinitionFile {
  const skipped = (message: string): ParsedDefinitionFile => ({ reports: [{ file, level: 'skipped', message }] });
  const split = splitFrontMatter(text);
  if (split.type === 'error') return skipped(split.reason);
  const frontMatter = parseFrontMatter(split.frontMatter);
  if (frontMatter.type === 'error') return skipped(frontMatter.reason);

  const { supported, unsupported } = splitFields(frontMatter.fields);
  const validated = validateDefinitionFields(supported);
  if (validated.type === 'invalid') return skipped(validated.reasons.join('; '));
  const fields = validated.value;
  const named = (message: string): ParsedDefinitionFile => ({
    reports: [{ file, level: 'skipped', message, name: fields.name }],
  });
  if (reservedNames.includes(fields.name))
    return named(`name "${fields.name}" is reserved (it selects the fork path); rename the agent`);
  const nameProblem = agentNameProblem(fields.name);
  if (nameProblem) return named(`name ${JSON.stringify(fields.name)} ${nameProblem}; rename the agent`);
  const prompt = split.body.trim();
  if (prompt === '')
    return named(`the body is empty: the text after the front matter is agent "${fields.name}"'s system prompt`);
  const promptBytes = Buffer.byteLength(prompt, 'utf8');
  if (promptBytes > maxDefinitionPromptBytes)
    return named(
      `the body of agent "${fields.name}" is ${formatBytes(promptBytes)}, over the ${formatBytes(maxDefinitionPromptBytes)} ` +
        "limit of an agent's system prompt (it is recorded in the agent's Temporal history): shorten it, or move " +
        'reference material into files the agent reads',
    );

  const warnings: string[] = [];
  const warn = (message: string) => warnings.push(message);
  if (frontMatter.note) warn(frontMatter.note);
  const allow = fields.tools === undefined ? undefined : parseAllowList(fields.tools);
  const deny = fields.disallowedTools === undefined ? undefined : parseDenyList(fields.disallowedTools);
  warnings.push(...(allow?.warnings ?? []), ...(deny?.warnings ?? []));
  const permissionMode =
    fields.permissionMode === undefined ? undefined : toPermissionMode(fields.permissionMode, warn);
  const unknownModel = fields.model === undefined ? undefined : modelWarning(fields.model);
  if (unknownModel) warn(unknownModel);
  for (const key of Object.keys(unsupported)) {
    const undocumented = knownUnsupportedFieldNames.includes(key)
      ? ''
      : ' (it is not a documented Claude Code field either: check the spelling)';
    warn(`field "${key}" is accepted but not supported yet${undocumented}`);
  }
  const color = toColor(fields.color, warn);
  const hooks = parseHooksConfig(fields.hooks);
  for (const problem of hooks.problems) warn(`${problem} (the agent loads without it)`);
  const skills = fields.skills === undefined ? [] : toSkills(fields.skills, warn);
  const mcpServers = fields.mcpServers === undefined ? undefined : parseMcpServers(fields.mcpServers);
  warnings.push(...(mcpServers?.warnings ?? []));
  const requiredMcpServers =
    fields.requiredMcpServers === undefined ? [] : parseRequiredMcpServers(fields.requiredMcpServers);
  const customTools = allow?.customTools?.filter((name) => !deny?.disallowedCustomTools?.includes(name)) ?? [];
  if (remainingTools(allow?.tools, deny?.disallowedTools).length === 0 && !allow?.mcpTools?.length) {
    warn(
      customTools.length === 0
        ? `agent "${fields.name}" resolves to no tools; spawning it will be refused`
        : `agent "${fields.name}" has no runtime or MCP tools: it runs only if its worker defines the custom tool(s) ${customTools.join(', ')}`,
    );
  }

  const definition: AgentDefinition = {
    name: fields.name,
    description: fields.description,
    ...(allow?.tools ? { tools: allow.tools } : {}),
    ...(deny?.disallowedTools ? { disallowedTools: deny.disallowedTools } : {}),
    ...(allow?.allowedAgentTypes ? { allowedAgentTypes: allow.allowedAgentTypes } : {}),
    ...(allow?.mcpTools ? { mcpTools: allow.mcpTools } : {}),
    ...(allow?.customTools ? { customTools: allow.customTools } : {}),
    ...(deny?.disallowedCustomTools ? { disallowedCustomTools: deny.disallowedCustomTools } : {}),
    ...(mcpServers?.entries.length ? { mcpServers: mcpServers.entries } : {}),
    ...(requiredMcpServers.length > 0 ? { requiredMcpServers } : {}),
    ...(fields.model !== undefined ? { model: fields.model } : {}),
    ...(permissionMode !== undefined ? { permissionMode } : {}),
    ...(fields.maxTurns !== undefined ? { maxTurns: fields.maxTurns } : {}),
    ...budgetOf(fields),
    ...(fields.background !== undefined ? { background: fields.background } : {}),
    ...(fields.isolation !== undefined ? { isolation: fields.isolation } : {}),
    ...(fields.thinking !== undefined && toThinking(fields.thinking) ? { thinking: toThinking(fields.thinking) } : {}),
    ...(color !== undefined ? { color } : {}),
    ...(fields.effort !== undefined ? { effort: fields.effort } : {}),
    ...(skills.length > 0 ? { skills } : {}),
    ...(fields.memory !== undefined ? { memory: fields.memory } : {}),
    // A `hooks` field with nothing usable stays an empty configuration, so a plugin agent's is still reported as ignored.
    ...(fields.hooks !== undefined && fields.hooks !== null ? { hooks: hooks.hooks ?? {} } : {}),
    ...(fields.omitClaudeMd ? { oneShot: true } : {}),
    prompt,
    source,
    file,
    ...(Object.keys(unsupported).length > 0 ? { unsupported } : {}),
  };
  const allowRules = anchorRules(allow?.rules, file, homeDir);
  const denyRules = anchorRules(deny?.rules, file, homeDir);
  if (allowRules || denyRules) {
    definition.toolRules = { ...(allowRules ? { allow: allowRules } : {}), ...(denyRules ? { deny: denyRules } : {}) };
  }
  const droppedTools = [...(allow?.dropped ?? []), ...(deny?.dropped ?? [])];
  return {
    definition,
    reports: warnings.map((message) => ({ file, level: 'warning', message })),
    ...(droppedTools.length > 0 ? { droppedTools } : {}),
  };
}
