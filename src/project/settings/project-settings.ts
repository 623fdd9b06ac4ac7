// Claude Code's settings files; a malformed one is reported, never widening what agents may do (docs/configuration.md).
import { statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { readCappedText } from '../capped-file';
import { mergeHooks, type HooksConfig } from '../../shared/policy/hooks';
import {
  parsePermissionRule,
  permissionRuleKinds,
  type PermissionRule,
  type PermissionRules,
} from '../../shared/policy/permission-rules';
import type { TreeSettings } from '../../shared/agents/tree-settings';
import { parseHooksConfig } from '../hooks-schema';
import type { SandboxSettings } from '../../shared/policy/sandbox';
import { egressDomains } from './egress-settings';
import { mergeSandboxSettings, parseSandboxSettings, readDenyRulesAsSandbox } from './sandbox-settings';

const settingsSchema = z.looseObject({
  permissions: z
    .looseObject(
      {
        allow: z.array(z.unknown(), { error: 'permissions.allow must be a list of rules' }).optional(),
        ask: z.array(z.unknown(), { error: 'permissions.ask must be a list of rules' }).optional(),
        deny: z.array(z.unknown(), { error: 'permissions.deny must be a list of rules' }).optional(),
      },
      { error: 'permissions must be an object with allow, ask and deny lists' },
    )
    .optional(),
  hooks: z.unknown().optional(),
  sandbox: z.unknown().optional(),
});

/** One settings file, read. */
interface SettingsFile {
  file: string;
  hooks?: HooksConfig;
  rules: Required<PermissionRules>;
  sandbox?: SandboxSettings;
  /** Its permissions could not be read: allow rules of every file are then ignored. */
  unreadablePermissions: boolean;
  problems: string[];
}

/** The project directory: the nearest of cwd and its ancestors (home excluded) holding `.claude/settings.json` or `.claude/settings.local.json`, else cwd. */
export async function findProjectDir(cwd: string, homeDir: string): Promise<string> {
  const home = path.resolve(homeDir);
  let current = path.resolve(cwd);
  for (;;) {
    if (current !== home) {
      // statSync without throwing: the settings look walks this every turn, and a rejected fs.promises.stat
      // costs ~40 µs of CPU (its Error) against ~4 µs; a stat never waits on a fifo.
      const found = ['settings.json', 'settings.local.json'].some(
        (name) => statSync(path.join(current, '.claude', name), { throwIfNoEntry: false })?.isFile() === true,
      );
      if (found) return current;
    }
    const parent = path.dirname(current);
    if (parent === current) return path.resolve(cwd);
    current = parent;
  }
}

/** Anchors `/x` path rules at the project holding the file and `~/x` at home (as definition rules are). */
function anchored(
  rule: { tool: string; content: string },
  root: string,
  homeDir: string,
): { tool: string; content: string; root?: string } {
  if (rule.tool === 'Bash' || rule.tool === 'WebFetch' || rule.tool === 'Agent' || rule.content === '') return rule;
  if (rule.content.startsWith('~/')) return { ...rule, content: `/${path.join(homeDir, rule.content.slice(2))}` };
  if (rule.content.startsWith('/') && !rule.content.startsWith('//')) return { ...rule, root };
  return rule;
}

/** The largest settings file read; Claude Code's are a few KB, and a bigger one is refused, not parsed. */
export const maxSettingsFileBytes = 1024 * 1024;

/** A file's text, refusing what would hang or flood the worker: a fifo, a device, a directory, or more than the cap. */
async function readSettingsText(file: string): Promise<string> {
  // O_NONBLOCK: opening a fifo with no writer returns at once instead of waiting for one.
  const handle = await fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  try {
    const read = await readCappedText(handle, maxSettingsFileBytes);
    if (read.type === 'text') return read.text;
    if (read.type === 'not-a-file') throw new Error('not a regular file');
    throw new Error(
      read.grew
        ? `more than the ${maxSettingsFileBytes} bytes a settings file may have`
        : `${read.bytes} bytes, more than the ${maxSettingsFileBytes} a settings file may have`,
    );
  } finally {
    await handle.close();
  }
}

/** JSON.parse's complaint without the excerpt of the text it quotes: a symlinked secret must not reach a notice. */
export function jsonErrorWithoutText(error: Error): string {
  return error.message
    .replace(/,? ?".*"(\.\.\.)? is not valid JSON$/s, '')
    .replace(/^(Unexpected token) '.*?'(?=,|$)/s, '$1');
}

async function readSettingsFile(file: string, root: string, homeDir: string): Promise<SettingsFile | undefined> {
  const result: SettingsFile = {
    file,
    rules: { allow: [], ask: [], deny: [] },
    unreadablePermissions: false,
    problems: [],
  };
  let text: string;
  try {
    text = await readSettingsText(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return {
      ...result,
      unreadablePermissions: true,
      problems: [
        `${file}: cannot be read (${(error as Error).message}); its hooks and permission rules are not used, and no allow rule of any settings file applies`,
      ],
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      ...result,
      unreadablePermissions: true,
      problems: [
        `${file}: not valid JSON (${jsonErrorWithoutText(error as Error)}); fix it — until then its hooks and permission rules are not used, and no allow rule of any settings file applies`,
      ],
    };
  }
  const parsed = settingsSchema.safeParse(json);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => issue.message).join('; ');
    return {
      ...result,
      unreadablePermissions: true,
      problems: [
        `${file}: ${detail}; its hooks and permission rules are not used, and no allow rule of any settings file applies`,
      ],
    };
  }
  for (const kind of permissionRuleKinds) {
    for (const [index, entry] of (parsed.data.permissions?.[kind] ?? []).entries()) {
      if (typeof entry !== 'string') {
        result.problems.push(
          `${file}: permissions.${kind}[${index}] must be a string rule like "Bash(git diff:*)"; ignored`,
        );
        continue;
      }
      const rule = parsePermissionRule(entry);
      if ('problem' in rule) {
        result.problems.push(`${file}: permissions.${kind} rule ${JSON.stringify(entry)}: ${rule.problem}; ignored`);
        continue;
      }
      const full: PermissionRule = { ...anchored(rule, root, homeDir), text: entry.trim(), file };
      result.rules[kind].push(full);
    }
  }
  const hooks = parseHooksConfig(parsed.data.hooks);
  result.problems.push(...hooks.problems.map((problem) => `${file}: ${problem}`));
  const sandbox = parseSandboxSettings(parsed.data.sandbox);
  result.problems.push(...sandbox.problems.map((problem) => `${file}: ${problem}`));
  if (sandbox.settings) result.sandbox = sandbox.settings;
  if (hooks.hooks) result.hooks = hooks.hooks;
  return result;
}

/** Settings for `cwd` (user, project, local); an unreadable file disables every allow rule. */
export async function loadProjectSettings(cwd: string, homeDir: string): Promise<TreeSettings> {
  const projectDir = await findProjectDir(cwd, homeDir);
  const candidates = [
    { file: path.join(homeDir, '.claude', 'settings.json'), root: homeDir },
    ...(path.resolve(projectDir) === path.resolve(homeDir)
      ? []
      : [{ file: path.join(projectDir, '.claude', 'settings.json'), root: projectDir }]),
    { file: path.join(projectDir, '.claude', 'settings.local.json'), root: projectDir },
  ];
  const read = (await Promise.all(candidates.map(({ file, root }) => readSettingsFile(file, root, homeDir)))).filter(
    (file): file is SettingsFile => file !== undefined,
  );
  const anyUnreadable = read.some((file) => file.unreadablePermissions);
  const rules: Required<PermissionRules> = { allow: [], ask: [], deny: [] };
  for (const file of read) {
    rules.deny.push(...file.rules.deny);
    rules.ask.push(...file.rules.ask);
    if (!anyUnreadable) rules.allow.push(...file.rules.allow);
  }
  const permissions: PermissionRules = Object.fromEntries(
    permissionRuleKinds.filter((kind) => rules[kind].length > 0).map((kind) => [kind, rules[kind]]),
  );
  const hooks = mergeHooks(...read.map((file) => file.hooks));
  const problems = read.flatMap((file) => file.problems);
  // As in Claude Code, WebFetch(domain:…) rules also open (or close) the domain to sandboxed commands.
  const webDomains = egressDomains({ permissions: rules });
  const webNetwork: SandboxSettings | undefined =
    webDomains.allowedDomains.length + webDomains.deniedDomains.length > 0 ? { network: webDomains } : undefined;
  const sandbox = mergeSandboxSettings([
    ...read.map((file) => file.sandbox),
    readDenyRulesAsSandbox(rules.deny, projectDir),
    webNetwork,
  ]);
  return {
    projectDir,
    files: read.filter((file) => !file.unreadablePermissions).map((file) => file.file),
    ...(hooks ? { hooks } : {}),
    ...(Object.keys(permissions).length > 0 ? { permissions } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(problems.length > 0 ? { problems } : {}),
  };
}
