// What an agent applies of a PermissionRequest hook's `updatedPermissions` (docs/hooks.md); their shape is in permission-update-schema.ts.
// No zod here: the agent's state imports this, and a worker shares that module between runs.
import type { PermissionMode } from '../agents/permission-mode';
import { parsePermissionRule, type PermissionRule, type PermissionRules } from './permission-rules';

/** Where Claude Code writes an update: only `session` is applied here (the others are settings files). */
export const permissionUpdateDestinations = [
  'session',
  'localSettings',
  'projectSettings',
  'userSettings',
  'cliArg',
] as const;

/** The modes a hook may name (Claude Code's; `bubble` is this runtime's own). */
export const hookModes = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk'] as const;

type Destination = (typeof permissionUpdateDestinations)[number];
type RuleValue = { toolName: string; ruleContent?: string };

/** One permission update, as `buildPermissionUpdateSchema` (permission-update-schema.ts) reads it. */
export type PermissionUpdate =
  | {
      type: 'addRules' | 'replaceRules' | 'removeRules';
      rules: RuleValue[];
      behavior: 'allow' | 'deny' | 'ask';
      destination: Destination;
    }
  | { type: 'setMode'; mode: (typeof hookModes)[number]; destination: Destination }
  | { type: 'addDirectories' | 'removeDirectories'; directories: string[]; destination: Destination };

/** Bounds that keep a hook's answer small: it is carried in the agent's state. */
export const permissionUpdateLimits = { maxUpdates: 20, maxRules: 50, maxRuleChars: 1_000 } as const;

/** The permissions a hook gave an agent for the rest of its run: rules beside the settings files', and its mode. */
export interface SessionPermissions {
  rules?: PermissionRules;
  mode?: PermissionMode;
}

/** Where a session rule says it comes from (the settings rules name their file). */
export const sessionRuleOrigin = 'a PermissionRequest hook (session)';

/** How permissive a mode is: a hook may move an agent down freely, up only to its ceiling. */
const modeRank: Record<PermissionMode, number> = {
  plan: 0,
  dontAsk: 0,
  default: 1,
  bubble: 1,
  acceptEdits: 2,
  bypassPermissions: 3,
};

/** The most permissive mode a hook may set: a subagent's start mode (its parent's and definition's word); a root may also accept edits. */
export function modeCeiling(startMode: PermissionMode, isSubagent: boolean): PermissionMode {
  if (isSubagent || modeRank[startMode] >= modeRank.acceptEdits) return startMode;
  return 'acceptEdits';
}

/** What applying some updates does: the new session permissions, and a notice for each update refused. */
export interface AppliedUpdates {
  permissions: SessionPermissions;
  notices: string[];
}

const ruleText = (rule: { toolName: string; ruleContent?: string | undefined }) =>
  rule.ruleContent === undefined || rule.ruleContent === '' ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`;

/** Applies a hook's updates to an agent's session permissions (pure): `session` rules and modes up to `ceiling`; the rest refused with a notice. */
export function applyPermissionUpdates(
  current: SessionPermissions,
  updates: readonly PermissionUpdate[],
  ceiling: PermissionMode,
): AppliedUpdates {
  const notices: string[] = [];
  let rules: PermissionRules = { ...current.rules };
  let mode = current.mode;
  for (const update of updates) {
    if (update.destination !== 'session') {
      notices.push(
        `${update.type} for ${update.destination} was not applied: only destination "session" is (settings files are the project's, not a hook's to write)`,
      );
      continue;
    }
    switch (update.type) {
      case 'setMode':
        if (modeRank[update.mode] > modeRank[ceiling]) {
          notices.push(`setMode ${update.mode} was refused: this agent may not be more permissive than ${ceiling}`);
          break;
        }
        mode = update.mode;
        break;
      case 'addRules':
      case 'replaceRules':
      case 'removeRules': {
        const parsed: PermissionRule[] = [];
        for (const rule of update.rules) {
          const text = ruleText(rule);
          const read = parsePermissionRule(text);
          if ('problem' in read) notices.push(`${update.type} rule ${JSON.stringify(text)}: ${read.problem}; ignored`);
          else parsed.push({ ...read, text, file: sessionRuleOrigin });
        }
        const kept = rules[update.behavior] ?? [];
        const texts = new Set(parsed.map((rule) => rule.text));
        const next =
          update.type === 'addRules'
            ? [...kept, ...parsed.filter((rule) => !kept.some((old) => old.text === rule.text))]
            : update.type === 'replaceRules'
              ? parsed
              : kept.filter((rule) => !texts.has(rule.text));
        rules = { ...rules, [update.behavior]: next.slice(-permissionUpdateLimits.maxRules) };
        break;
      }
      case 'addDirectories':
      case 'removeDirectories':
        notices.push(
          `${update.type} was not applied: an agent's file tools are confined to its workspace, which a hook does not widen`,
        );
        break;
    }
  }
  const hasRules = Object.values(rules).some((list) => list && list.length > 0);
  return {
    permissions: { ...(hasRules ? { rules } : {}), ...(mode !== undefined ? { mode } : {}) },
    notices,
  };
}

/** The settings files' rules with the session's added (deny > ask > allow still holds across both). */
export function withSessionRules(
  settings: PermissionRules | undefined,
  session: PermissionRules | undefined,
): PermissionRules | undefined {
  if (!session) return settings;
  return {
    allow: [...(settings?.allow ?? []), ...(session.allow ?? [])],
    ask: [...(settings?.ask ?? []), ...(session.ask ?? [])],
    deny: [...(settings?.deny ?? []), ...(session.deny ?? [])],
  };
}
