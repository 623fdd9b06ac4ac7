// Settings' `sandbox` key, merged across files; only the operator can turn the sandbox off (docs/security.md).
import path from 'node:path';
import { z } from 'zod';
import type { PermissionRule } from '../../shared/policy/permission-rules';
import type { SandboxSettings } from '../../shared/policy/sandbox';

const paths = z.array(z.string().trim().min(1), { error: 'must be a list of paths' }).max(200).optional();
const domains = z
  .array(
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^(\*\.)?[a-z0-9_.-]+$|^\[?[0-9a-f:.]+\]?$/, {
        error: 'must be host names such as "example.com" or "*.example.com"',
      }),
  )
  .max(500)
  .optional();

const sandboxSchema = z.looseObject({
  enabled: z.boolean({ error: 'sandbox.enabled must be true or false' }).optional(),
  autoAllowBashIfSandboxed: z.boolean({ error: 'sandbox.autoAllowBashIfSandboxed must be true or false' }).optional(),
  filesystem: z.looseObject({ allowWrite: paths, denyWrite: paths, denyRead: paths, allowRead: paths }).optional(),
  network: z.looseObject({ allowedDomains: domains, deniedDomains: domains }).optional(),
});

/** The `sandbox` value of one file, or what is wrong with it (then nothing of it is used). */
export function parseSandboxSettings(value: unknown): { settings?: SandboxSettings; problems: string[] } {
  if (value === undefined) return { problems: [] };
  const parsed = sandboxSchema.safeParse(value);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `sandbox.${issue.path.join('.')}: ${issue.message}`).join('; ');
    return { problems: [`${detail}; its sandbox settings are not used`] };
  }
  const { enabled, autoAllowBashIfSandboxed, filesystem, network } = parsed.data;
  const problems =
    enabled === false
      ? [
          'sandbox.enabled: false is ignored: commands stay sandboxed unless the worker runs with SUBAGENTS_SANDBOX=off (docs/security.md)',
        ]
      : [];
  const settings: SandboxSettings = {
    ...(autoAllowBashIfSandboxed !== undefined ? { autoAllowBashIfSandboxed } : {}),
    ...(filesystem
      ? { filesystem: definedLists(filesystem, ['allowWrite', 'denyWrite', 'denyRead', 'allowRead']) }
      : {}),
    ...(network ? { network: definedLists(network, ['allowedDomains', 'deniedDomains']) } : {}),
  };
  return { settings, problems };
}

function definedLists<Key extends string>(
  source: Partial<Record<Key, string[] | undefined>>,
  keys: readonly Key[],
): Partial<Record<Key, string[]>> {
  return Object.fromEntries(keys.flatMap((key) => (source[key]?.length ? [[key, source[key]]] : []))) as Partial<
    Record<Key, string[]>
  >;
}

function joined(lists: (string[] | undefined)[]): string[] | undefined {
  const all = [...new Set(lists.flatMap((list) => list ?? []))];
  return all.length > 0 ? all : undefined;
}

/** Files merged in order (user, project, local): lists joined; the last file that sets a flag wins. Undefined when none speaks. */
export function mergeSandboxSettings(files: readonly (SandboxSettings | undefined)[]): SandboxSettings | undefined {
  const present = files.filter((file): file is SandboxSettings => file !== undefined);
  if (present.length === 0) return undefined;
  const flag = [...present]
    .reverse()
    .find((file) => file.autoAllowBashIfSandboxed !== undefined)?.autoAllowBashIfSandboxed;
  const filesystem = {
    allowWrite: joined(present.map((file) => file.filesystem?.allowWrite)),
    denyWrite: joined(present.map((file) => file.filesystem?.denyWrite)),
    denyRead: joined(present.map((file) => file.filesystem?.denyRead)),
    allowRead: joined(present.map((file) => file.filesystem?.allowRead)),
  };
  const network = {
    allowedDomains: joined(present.map((file) => file.network?.allowedDomains)),
    deniedDomains: joined(present.map((file) => file.network?.deniedDomains)),
  };
  const compact = <Value extends object>(value: Value) =>
    Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Value;
  const result: SandboxSettings = {
    ...(flag !== undefined ? { autoAllowBashIfSandboxed: flag } : {}),
    ...(Object.values(filesystem).some(Boolean) ? { filesystem: compact(filesystem) } : {}),
    ...(Object.values(network).some(Boolean) ? { network: compact(network) } : {}),
  };
  return Object.keys(result).length > 0 ? result : undefined;
}

/** `Read(...)` deny rules as paths the sandbox hides, as Claude Code does (`//abs`, `/project-relative`, `~/home` already made absolute). */
export function readDenyRulesAsSandbox(
  deny: readonly PermissionRule[],
  projectDir: string,
): SandboxSettings | undefined {
  const denyRead = deny
    .filter((rule) => rule.tool === 'Read' && rule.content !== '')
    .map((rule) => {
      if (rule.content.startsWith('//')) return rule.content.slice(1);
      if (rule.content.startsWith('/')) return path.join(rule.root ?? projectDir, rule.content);
      return path.join(projectDir, rule.content.replace(/^\.\//, ''));
    });
  return denyRead.length > 0 ? { filesystem: { denyRead } } : undefined;
}
