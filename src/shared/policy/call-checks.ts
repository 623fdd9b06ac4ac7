import { ErrorType, errorText } from '../protocol/errors';
import type { ToolUseBlock } from '../model/messages';
import { unanalysed, type BashReading } from './command-analysis';
import { decideByRules, permissionRuleKinds, type PermissionRules, type RuleDecision } from './permission-rules';
import { classifyReadOnlyCommand } from './read-only-command';
import { checkToolRules, type ToolRules } from './tool-rules';

/** The rules a call's input is checked against before it runs (docs/permissions.md). */
export interface CallRules {
  /** Tool rules of the agent's definition (`Bash(git diff:*)`, `Edit(src/**)`). */
  toolRules?: ToolRules;
  /** Permission rules of the tree's settings files (deny > ask > allow). */
  permissionRules?: PermissionRules;
  /** A read-only agent: its Bash runs read-only commands only. */
  readOnlyBash?: boolean;
}

/** One verdict on a call's input: refused with the model's text, or the settings rule that spoke (if any). */
export type CallVerdict = { refusal: string } | { rule?: RuleDecision };

/** Whether a Bash call's checks read its command: a read-only agent's, or one a Bash rule with content speaks about. */
export function readsBashCommand(rules: CallRules): boolean {
  if (rules.readOnlyBash) return true;
  const all = [
    ...(rules.toolRules?.allow ?? []),
    ...(rules.toolRules?.deny ?? []),
    ...permissionRuleKinds.flatMap((kind) => rules.permissionRules?.[kind] ?? []),
  ];
  return all.some((rule) => rule.tool === 'Bash' && rule.content !== '');
}

/** Input checks in order: the definition's tool rules, the settings rules, a read-only agent's Bash. */
export function checkCallInput(
  call: ToolUseBlock,
  rules: CallRules,
  where: { cwd: string; bash: BashReading | undefined },
): CallVerdict {
  const { cwd, bash } = where;
  const verdict = checkToolRules(rules.toolRules, call.name, call.input, { cwd }, bash);
  if (verdict.type === 'refused') {
    return {
      refusal: errorText(
        ErrorType.ToolRuleDenied,
        `${verdict.reason}; nothing was run. Stay within the rules, or report what you would have done.`,
      ),
    };
  }
  const rule = decideByRules(rules.permissionRules, call.name, call.input, { cwd }, bash);
  if (rule?.type === 'deny') {
    return {
      refusal: errorText(
        ErrorType.PermissionRuleDenied,
        `the rule ${rule.rule.text} in permissions.deny of ${rule.rule.file} refuses this call; nothing was run. Do without it, or report what you would have done.`,
      ),
    };
  }
  if (call.name === 'Bash' && rules.readOnlyBash) {
    // Checked here, not only in the prompt: a refused command never reaches the shell. A read-only command needs no approval.
    const readOnly = classifyReadOnlyCommand(bash?.analysis ?? unanalysed('the command was not analysed'));
    if (!readOnly.readOnly) {
      return {
        refusal: errorText(
          ErrorType.CommandNotReadOnly,
          `${readOnly.reason}. This agent may run read-only commands only (git log/diff/show/status, ls, cat, grep, find without -exec, ...); nothing was run.`,
        ),
      };
    }
  }
  return rule ? { rule } : {};
}
