import { z } from 'zod';
import { effortLevels } from '../../shared/agents/effort';
import { parseDuration } from '../../shared/protocol/duration';

/** Front-matter `permissionMode` values accepted from files, including Claude Code's aliases. */
export const permissionModeValues = [
  'default',
  'acceptEdits',
  'bypassPermissions',
  'plan',
  'dontAsk',
  'bubble',
  'manual',
  'auto',
] as const;

function requiredText(field: string) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? `field "${field}" is required` : `field "${field}" must be a string`,
    })
    .trim()
    .min(1, { error: `field "${field}" must not be empty` });
}

function toolList(field: string) {
  return z.union([z.string(), z.array(z.string())], {
    error: `field "${field}" must be a comma-separated string or a YAML list of tool names`,
  });
}

function positiveInteger(field: string) {
  const message = `field "${field}" must be a positive whole number`;
  return z.int({ error: message }).positive({ error: message });
}

// A wall-time cap: "30m", "90s", "2h", or ms as a number (src/shared/protocol/duration.ts).
const maxTime = z
  .union([z.string(), z.number()], {
    error: 'field "maxTime" must be a duration such as 30m, 90s or 2h, or milliseconds as a number',
  })
  .transform((value, context) => {
    const parsed = parseDuration(value);
    if (parsed.ok) return parsed.ms;
    context.addIssue({ code: 'custom', message: `field "maxTime": ${parsed.error}` });
    return z.NEVER;
  });

const thinkingError =
  'field "thinking" must be adaptive, off, or a thinking budget in tokens (an integer of at least 1024)';

/** The front-matter fields this runtime understands; everything else is kept as `unsupported`. */
export const definitionFieldsSchema = z.object({
  name: requiredText('name'),
  description: requiredText('description'),
  tools: toolList('tools').optional(),
  disallowedTools: toolList('disallowedTools').optional(),
  model: z
    .string({ error: 'field "model" must be a string: an alias (haiku, sonnet, opus), a model id, or inherit' })
    .trim()
    .min(1, { error: 'field "model" must not be empty' })
    .optional(),
  permissionMode: z
    .enum(permissionModeValues, { error: `field "permissionMode" must be one of ${permissionModeValues.join(', ')}` })
    .optional(),
  maxTurns: z
    .int({ error: 'field "maxTurns" must be a positive integer' })
    .positive({ error: 'field "maxTurns" must be a positive integer' })
    .optional(),
  // Our own caps of the agent's subtree (docs/budgets.md), beside Claude Code's per-agent maxTurns.
  maxTokens: positiveInteger('maxTokens').optional(),
  maxCostUsd: z
    .number({ error: 'field "maxCostUsd" must be a positive number of US dollars' })
    .positive({ error: 'field "maxCostUsd" must be a positive number of US dollars' })
    .optional(),
  maxToolCalls: positiveInteger('maxToolCalls').optional(),
  maxTime: maxTime.optional(),
  background: z.boolean({ error: 'field "background" must be true or false' }).optional(),
  isolation: z.literal('worktree', { error: 'field "isolation" must be "worktree"' }).optional(),
  thinking: z
    .union([z.literal('adaptive'), z.literal('off'), z.literal(false), z.int().min(1024, { error: thinkingError })], {
      error: thinkingError,
    })
    .optional(),
  effort: z.enum(effortLevels, { error: `field "effort" must be one of ${effortLevels.join(', ')}` }).optional(),
  skills: z
    .union([z.string(), z.array(z.string())], {
      error: 'field "skills" must be a skill name, a comma-separated string or a YAML list of skill names',
    })
    .optional(),
  memory: z.enum(['user', 'project', 'local'], { error: 'field "memory" must be user, project or local' }).optional(),
  omitClaudeMd: z.boolean({ error: 'field "omitClaudeMd" must be true or false' }).optional(),
  mcpServers: z
    .union([z.array(z.union([z.string(), z.record(z.string(), z.unknown())])), z.record(z.string(), z.unknown())], {
      error:
        'field "mcpServers" must be a list of server names or {name: server} entries (or one {name: server} mapping)',
    })
    .optional(),
  // Checked entry by entry (src/project/hooks-schema.ts): a bad hook is dropped with a warning, never a reason to skip the file.
  hooks: z.unknown().optional(),
  // A colour is cosmetic: a bad one is a warning (parse-definition.ts), never a reason to skip the file.
  color: z.unknown().optional(),
  requiredMcpServers: z
    .union([z.string(), z.array(z.string())], {
      error: 'field "requiredMcpServers" must be a server name or a list of server names',
    })
    .optional(),
});

export type DefinitionFields = z.infer<typeof definitionFieldsSchema>;

/** Names of the fields the schema reads. */
export const supportedFieldNames: readonly string[] = Object.keys(definitionFieldsSchema.shape);

/** Fields Claude Code documents (or reads) that this runtime accepts without acting on them. */
export const knownUnsupportedFieldNames: readonly string[] = [
  'initialPrompt',
  'requiredMcpServers',
  'omitClaudeMd',
  'criticalSystemReminder_EXPERIMENTAL',
  'experimental',
];

/** Validates the supported fields; returns every problem as a readable sentence. */
export function validateDefinitionFields(
  fields: Record<string, unknown>,
): { type: 'valid'; value: DefinitionFields } | { type: 'invalid'; reasons: string[] } {
  const result = definitionFieldsSchema.safeParse(fields);
  if (result.success) return { type: 'valid', value: result.data };
  return { type: 'invalid', reasons: result.error.issues.map((issue) => issue.message) };
}
