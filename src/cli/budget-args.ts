import {
  budgetActions,
  capNames,
  type BudgetAction,
  type BudgetCaps,
  type CapName,
  type TreeBudget,
} from '../shared/budget/budget';
import { parseDuration } from '../shared/protocol/duration';
import { CliError } from './exit-codes';
import { closest } from './suggest';

/** Budget flags of `subagents start` and `--set` of `subagents budget` (docs/cli.md), parsed before anything connects. */

/** A value as the user typed it, cut short for an error message. */
const shown = (value: string): string => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

/** Plain digits only: no sign, exponent, hex or blanks, which Number() would take ("1e309" is Infinity, "0x10" is 16). */
const wholePattern = /^\d{1,16}$/;
const decimalPattern = /^\d{1,12}(?:\.\d{1,12})?$/;

/** A positive whole number written as digits; `what` names it in the error. */
export function parseWholeCount(value: string, what: string): number {
  const number = wholePattern.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < 1)
    throw new CliError(`${what} must be a positive whole number (got ${shown(value)}).`);
  return number;
}

/** A positive amount of US dollars, e.g. 2 or 0.50. */
export function parseUsd(value: string, what: string): number {
  const number = decimalPattern.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(number) || number <= 0)
    throw new CliError(`${what} must be a positive number of US dollars, e.g. 2 or 0.50 (got ${shown(value)}).`);
  return number;
}

/** A wall time: 90s, 30m, 2h, 1d, or milliseconds as a bare number. */
export function parseWallTime(value: string, what: string): number {
  const parsed = parseDuration(value);
  if (!parsed.ok) throw new CliError(`${what}: ${parsed.error}.`);
  return parsed.ms;
}

/** The cap's value from its text, as `--set NAME=VALUE` and the start flags read it. */
function capValue(cap: CapName, value: string, what: string): number {
  switch (cap) {
    case 'costUsd':
      return parseUsd(value, what);
    case 'wallTimeMs':
      return parseWallTime(value, what);
    case 'tokens':
    case 'toolCalls':
    case 'turns':
    case 'concurrentAgents':
      return parseWholeCount(value, what);
  }
}

/** The flags of `start` that set the tree's budget, as parseArgs gives them. */
export interface StartBudgetFlags {
  'max-tokens'?: string;
  'max-cost-usd'?: string;
  /** Claude Code's name for the same cap (`claude -p --max-budget-usd`). */
  'max-budget-usd'?: string;
  'max-tool-calls'?: string;
  'max-time'?: string;
  'max-agents'?: string;
  'on-budget'?: string;
}

/** `limits.budget` from the start flags; undefined when none is given. (`--max-turns` keeps its own meaning: the root's turns.) */
export function startBudget(flags: StartBudgetFlags): TreeBudget | undefined {
  const flagCaps: [keyof StartBudgetFlags, CapName][] = [
    ['max-tokens', 'tokens'],
    ['max-cost-usd', 'costUsd'],
    ['max-budget-usd', 'costUsd'],
    ['max-tool-calls', 'toolCalls'],
    ['max-time', 'wallTimeMs'],
    ['max-agents', 'concurrentAgents'],
  ];
  if (flags['max-cost-usd'] !== undefined && flags['max-budget-usd'] !== undefined) {
    throw new CliError("--max-budget-usd is Claude Code's name for --max-cost-usd: give one of them.");
  }
  const caps: BudgetCaps = {};
  for (const [flag, cap] of flagCaps) {
    const value = flags[flag];
    if (value !== undefined) caps[cap] = capValue(cap, value, `--${flag}`);
  }
  const action = flags['on-budget'];
  if (action !== undefined && !(budgetActions as readonly string[]).includes(action)) {
    throw new CliError(
      `--on-budget must be ${budgetActions.join(', ')} (got ${shown(action)}): stop the capped subtree, let its agents finish with what they have, or ask a person (an approval).`,
    );
  }
  if (Object.keys(caps).length === 0 && action === undefined) return undefined;
  return { caps, ...(action !== undefined ? { action: action as BudgetAction } : {}) };
}

/** `--set tokens=50000 --set costUsd=2`: the caps to put in force. Each name once; a misspelt one gets the name meant. */
export function parseCapAssignments(assignments: readonly string[]): BudgetCaps {
  const caps: BudgetCaps = {};
  for (const assignment of assignments) {
    const equals = assignment.indexOf('=');
    const name = equals < 0 ? assignment : assignment.slice(0, equals).trim();
    const value = equals < 0 ? '' : assignment.slice(equals + 1).trim();
    if (equals < 0 || value === '')
      throw new CliError(`--set takes NAME=VALUE, e.g. --set tokens=50000 (got ${shown(assignment)}).`);
    if (!(capNames as readonly string[]).includes(name)) {
      const near = name.length <= 40 ? closest(name, capNames) : undefined;
      throw new CliError(
        `--set: no cap named ${shown(name)}.${near ? ` Did you mean "${near}"?` : ''} Caps: ${capNames.join(', ')}.`,
      );
    }
    const cap = name as CapName;
    if (caps[cap] !== undefined) throw new CliError(`--set: ${cap} is given twice; give each cap once.`);
    caps[cap] = capValue(cap, value, `--set ${cap}`);
  }
  return caps;
}
