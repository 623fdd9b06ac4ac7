// The Claude Agent SDK's `AgentDefinition` (options.agents) checked and mapped onto this runtime's agent types (docs/api.md).
import path from 'node:path';
import { z } from 'zod';
import { agentNameProblem, maxDefinitionPromptBytes, type DefinitionReport } from '../shared/agents/agent-definition';
import { effortLevels } from '../shared/agents/effort';
import { sdkAgentsOrigin, type SdkAgents } from '../shared/agents/sdk-agents';
import { parseDefinitionFile } from '../project/agent-definitions/parse-definition';
import { permissionModeValues } from '../project/agent-definitions/definition-schema';

/** One agent as the Claude Agent SDK's `options.agents` describes it (TypeScript and Python use these keys). */
export interface AgentDefinition {
  description: string;
  prompt: string;
  tools?: string[];
  disallowedTools?: string[];
  model?: string;
  mcpServers?: Array<string | Record<string, unknown>>;
  skills?: string[];
  /** The first user turn when this type runs as the root (prepended to `startAgent`'s prompt); subagents ignore it, as in Claude Code. */
  initialPrompt?: string;
  maxTurns?: number;
  background?: boolean;
  memory?: 'user' | 'project' | 'local';
  effort?: (typeof effortLevels)[number];
  permissionMode?: (typeof permissionModeValues)[number];
  /** Accepted and reported: this runtime has no per-turn critical reminder. */
  criticalSystemReminder_EXPERIMENTAL?: string;
}

/** SDK fields with no meaning in this runtime: accepted, and reported when given. */
export const unsupportedSdkAgentFields = ['criticalSystemReminder_EXPERIMENTAL'] as const;

/** All programmatic agents' prompts together: every agent of the tree carries them in its input (Temporal payloads are at most 2 MB). */
export const maxSdkAgentsPromptBytes = 2 * maxDefinitionPromptBytes;

/** `options.agents` (or the plugin's `agents`) is not a valid set of Claude Agent SDK agents; the message names the agent and field. */
export class InvalidAgentDefinition extends Error {
  override readonly name = 'InvalidAgentDefinition';
}

const text = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .refine((value) => value.trim() !== '', { error: `${field} must not be empty` });
const names = (field: string) =>
  z.array(z.string({ error: `${field} must list strings` }), { error: `${field} must be an array of strings` });

const sdkAgentSchema = z.looseObject(
  {
    description: text('description'),
    prompt: text('prompt'),
    tools: names('tools').optional(),
    disallowedTools: names('disallowedTools').optional(),
    model: text('model').optional(),
    mcpServers: z
      .array(z.union([z.string(), z.record(z.string(), z.unknown())]), {
        error: 'mcpServers must be an array of server names or { name: config } objects',
      })
      .optional(),
    skills: names('skills').optional(),
    initialPrompt: z.string({ error: 'initialPrompt must be a string' }).optional(),
    maxTurns: z
      .int({ error: 'maxTurns must be a positive whole number' })
      .positive({ error: 'maxTurns must be a positive whole number' })
      .optional(),
    background: z.boolean({ error: 'background must be true or false' }).optional(),
    memory: z.enum(['user', 'project', 'local'], { error: 'memory must be "user", "project" or "local"' }).optional(),
    effort: z.enum(effortLevels, { error: `effort must be one of ${effortLevels.join(', ')}` }).optional(),
    permissionMode: z
      .enum(permissionModeValues, { error: `permissionMode must be one of ${permissionModeValues.join(', ')}` })
      .optional(),
    criticalSystemReminder_EXPERIMENTAL: z
      .string({ error: 'criticalSystemReminder_EXPERIMENTAL must be a string' })
      .optional(),
  },
  { error: 'must be an object with at least description and prompt' },
);

const sdkFieldNames = new Set(Object.keys(sdkAgentSchema.shape));

/** The mapped agent types and what was noticed (fields accepted without effect, tools dropped, a file type replaced). */
export interface MappedSdkAgents {
  agents: SdkAgents;
  /** Warnings only: anything that would make an agent unusable throws {@link InvalidAgentDefinition}. */
  reports: DefinitionReport[];
  /** `initialPrompt` by agent name (only a root uses it). */
  initialPrompts: Record<string, string>;
}

/** A front-matter line whose value is JSON (a subset of YAML), so the file parser reads exactly these values. */
const frontMatterLine = (key: string, value: unknown): string => `${key}: ${JSON.stringify(value)}`;

/** Checks `agents` with the SDK's shape and maps each onto this runtime's agent type, as its `.claude/agents` file would be. */
export function mapSdkAgents(agents: unknown, where = 'options.agents'): MappedSdkAgents {
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents))
    throw new InvalidAgentDefinition(`${where} must be an object of agent definitions by name.`);
  const mapped: SdkAgents = {};
  const reports: DefinitionReport[] = [];
  const initialPrompts: Record<string, string> = {};
  let promptBytes = 0;
  for (const [name, raw] of Object.entries(agents)) {
    const at = `${where}[${JSON.stringify(name)}]`;
    const nameProblem =
      name.trim() === ''
        ? 'is empty'
        : name === 'fork'
          ? 'is reserved (it selects the fork path)'
          : agentNameProblem(name);
    if (nameProblem) throw new InvalidAgentDefinition(`${at}: the agent name ${nameProblem}; rename the agent.`);
    if (
      typeof raw === 'function' ||
      (typeof raw === 'object' && raw !== null && Object.values(raw).some((value) => typeof value === 'function'))
    )
      throw new InvalidAgentDefinition(
        `${at}: functions cannot be recorded in a durable agent's history; give plain data.`,
      );
    const parsed = sdkAgentSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
      throw new InvalidAgentDefinition(`${at}${field}: ${issue.message}.`);
    }
    const definition = parsed.data;
    const warn = (message: string) => reports.push({ file: sdkAgentsOrigin(name), level: 'warning', message, name });
    for (const key of Object.keys(definition)) {
      if (!sdkFieldNames.has(key)) warn(`field "${key}" is not a Claude Agent SDK AgentDefinition field; ignored`);
      else if ((unsupportedSdkAgentFields as readonly string[]).includes(key))
        warn(`field "${key}" is accepted but has no effect in this runtime (docs/api.md, "Claude Agent SDK agents")`);
    }
    if (definition.initialPrompt !== undefined) initialPrompts[name] = definition.initialPrompt;
    const fields: Array<[string, unknown]> = [
      ['name', name],
      ['description', definition.description],
      ['tools', definition.tools],
      ['disallowedTools', definition.disallowedTools],
      ['model', definition.model],
      ['mcpServers', definition.mcpServers],
      ['skills', definition.skills],
      ['maxTurns', definition.maxTurns],
      ['background', definition.background],
      ['memory', definition.memory],
      ['effort', definition.effort],
      ['permissionMode', definition.permissionMode],
    ];
    const frontMatter = fields
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => frontMatterLine(key, value))
      .join('\n');
    // Path rules (`Read(/src/**)`) anchor at the directory of the file, as they would in the project's .claude/agents.
    const pseudoFile = path.join(process.cwd(), '.claude', 'agents', `${name}.md`);
    const file = parseDefinitionFile(`---\n${frontMatter}\n---\n${definition.prompt}\n`, pseudoFile, 'project');
    const skipped = file.reports.find((report) => report.level === 'skipped');
    if (!file.definition || skipped)
      throw new InvalidAgentDefinition(`${at}: ${skipped?.message ?? 'the definition cannot be used'}.`);
    for (const report of file.reports) warn(report.message);
    const { file: _file, ...withoutFile } = file.definition;
    mapped[name] = { ...withoutFile, source: 'sdk' };
    promptBytes += Buffer.byteLength(withoutFile.prompt, 'utf8');
  }
  if (promptBytes > maxSdkAgentsPromptBytes)
    throw new InvalidAgentDefinition(
      `${where}: the prompts together are ${Math.round(promptBytes / 1024)} KiB, over the ${maxSdkAgentsPromptBytes / 1024} KiB ` +
        'that every agent of the tree carries in its input; shorten them, or move reference material into files the agents read.',
    );
  return { agents: mapped, reports, initialPrompts };
}
