// Bash lines that hide an `rm` from a reader that looks only at the first word: shared by the rule and corpus tests.

/** `rm` inside a subshell, a substitution, a group, a compound, behind an assignment or the command builtin. */
export const hiddenRm = [
  '(rm x)',
  '$(rm x)',
  '{ rm x; }',
  'if true; then rm x; fi',
  'echo $(rm -rf /)',
  'a=1 rm x',
  'command rm x',
];
