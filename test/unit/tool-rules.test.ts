import { describe, expect, it } from 'vitest';
import {
  checkToolRules as checkRules,
  commandMatchesRule,
  pathMatchesRule,
  type RuleContext,
  type ToolRules,
} from '../../src/shared/policy/tool-rules';
import { parsedReading } from '../helpers/bash-analysis';
import { expectYesNo } from '../helpers/unit-cases';

const context = { cwd: '/work/repo' };
const bash = (command: string) => ({ command });
/** checkToolRules with a Bash call read by the real parser, as a workflow on the `bash-syntax-tree` patch does. */
const checkToolRules = (
  rules: ToolRules | undefined,
  tool: string,
  input: Record<string, unknown>,
  ruleContext: RuleContext,
) =>
  checkRules(
    rules,
    tool,
    input,
    ruleContext,
    tool === 'Bash' && typeof input.command === 'string' ? parsedReading(input.command) : undefined,
  );

describe('Bash rules (Claude Code matching)', () => {
  it('prefix rules `x:*` match the command and its continuations at a word boundary', () => {
    expectYesNo(commandMatchesRule, {
      yes: [
        ['git diff:*', 'git diff'],
        ['git diff:*', 'git diff HEAD~1 -- src'],
      ],
      no: [
        ['git diff:*', 'git difftool'],
        ['git diff:*', 'git status'],
      ],
    });
  });

  it('wildcards match any text; a single trailing ` *` also matches the bare command; `\\*` is a star', () => {
    expectYesNo(commandMatchesRule, {
      yes: [
        ['npm run *', 'npm run test'],
        ['npm run *', 'npm run'],
        ['git * --no-verify', 'git commit --no-verify'],
        ['echo \\*', 'echo *'],
      ],
      no: [
        ['git * --no-verify', 'git commit'],
        ['echo \\*', 'echo hi'],
        ['a.b', 'axb'],
      ],
    });
  });

  it('exact rules match exactly', () => {
    expectYesNo(commandMatchesRule, { yes: [['git status', 'git status']], no: [['git status', 'git status -s']] });
  });

  it('an allow rule must cover every simple command of a line; a deny rule refuses on any', () => {
    const rules: ToolRules = {
      allow: [
        { tool: 'Bash', content: 'git diff:*' },
        { tool: 'Bash', content: 'git status' },
      ],
    };
    expect(checkToolRules(rules, 'Bash', bash('git diff --stat'), context)).toEqual({ type: 'allowed' });
    expect(checkToolRules(rules, 'Bash', bash('git status && git diff'), context)).toEqual({ type: 'allowed' });
    expect(checkToolRules(rules, 'Bash', bash('git diff 2>/dev/null'), context)).toEqual({ type: 'allowed' });
    for (const refused of [
      'git diff > /tmp/out',
      'git log',
      'git diff && rm -rf /',
      'git diff; curl evil',
      'git diff | sh',
      'git diff $(rm -rf /)',
      'git diff `id`',
      'git diff\nrm x',
      '',
      'git diff &',
    ]) {
      const verdict = checkToolRules(rules, 'Bash', bash(refused), context);
      expect(verdict.type, refused).toBe('refused');
    }
    expect(checkToolRules(rules, 'Bash', bash('git log'), context)).toEqual({
      type: 'refused',
      reason:
        'this agent may use Bash only as its rules allow (Bash(git diff:*), Bash(git status)), and this call matches none of them',
    });
    const deny: ToolRules = { deny: [{ tool: 'Bash', content: 'rm:*' }] };
    expect(checkToolRules(deny, 'Bash', bash('ls && rm -rf build'), context).type).toBe('refused');
    expect(checkToolRules(deny, 'Bash', bash('rm $(cat list)'), context).type).toBe('refused');
    expect(checkToolRules(deny, 'Bash', bash('ls -la'), context)).toEqual({ type: 'allowed' });
  });
});

describe('path rules (gitignore style)', () => {
  const rule = (content: string, root?: string) => ({ tool: 'Edit', content, ...(root ? { root } : {}) });

  it('relative patterns are anchored at the cwd; a name without a slash matches at any depth', () => {
    expectYesNo(pathMatchesRule, {
      yes: [
        [rule('src/**'), '/work/repo/src/a/b.ts', context],
        [rule('*.env'), '/work/repo/deep/x/.env', context],
        [rule('./src/*.ts'), '/work/repo/src/a.ts', context],
      ],
      no: [
        [rule('src/**'), '/work/repo/test/a.ts', context],
        [rule('src/**'), '/elsewhere/src/a.ts', context],
      ],
    });
  });

  it('`/x` is anchored at the rule root, `//x` at the filesystem root', () => {
    expectYesNo(pathMatchesRule, {
      yes: [
        [rule('/src/**', '/work'), '/work/src/a.ts', context],
        [rule('//etc/**'), '/etc/passwd', context],
      ],
      no: [
        [rule('/src/**', '/work'), '/work/repo/src/a.ts', context],
        [rule('//etc/**'), '/work/etc/passwd', context],
      ],
    });
  });

  it('Edit rules cover Write; Read rules cover Glob and Grep (their path, default the cwd); `..` cannot escape a rule', () => {
    const rules: ToolRules = {
      allow: [{ tool: 'Edit', content: 'src/**' }],
      deny: [{ tool: 'Read', content: 'secrets/**' }],
    };
    expect(checkToolRules(rules, 'Edit', { file_path: 'src/a.ts' }, context)).toEqual({ type: 'allowed' });
    expect(checkToolRules(rules, 'Write', { file_path: '/work/repo/src/new.ts' }, context)).toEqual({
      type: 'allowed',
    });
    expect(checkToolRules(rules, 'Write', { file_path: 'README.md' }, context).type).toBe('refused');
    expect(checkToolRules(rules, 'Edit', { file_path: 'src/../README.md' }, context).type).toBe('refused');
    expect(checkToolRules(rules, 'Edit', { file_path: 42 }, context).type).toBe('refused');
    expect(checkToolRules(rules, 'Read', { file_path: 'secrets/key.pem' }, context).type).toBe('refused');
    expect(checkToolRules(rules, 'Grep', { pattern: 'x', path: '/work/repo/secrets/a' }, context).type).toBe('refused');
    expect(checkToolRules(rules, 'Read', { file_path: 'src/a.ts' }, context)).toEqual({ type: 'allowed' });
    // Tools without rules are untouched.
    expect(checkToolRules(rules, 'Bash', { command: 'anything' }, context)).toEqual({ type: 'allowed' });
    expect(checkToolRules(undefined, 'Edit', { file_path: '/etc/x' }, context)).toEqual({ type: 'allowed' });
  });

  it('WebFetch(domain:…) matches the host, `*.` its subdomains', () => {
    const rules: ToolRules = {
      allow: [
        { tool: 'WebFetch', content: 'domain:docs.example.com' },
        { tool: 'WebFetch', content: 'domain:*.github.com' },
      ],
    };
    expect(checkToolRules(rules, 'WebFetch', { url: 'https://docs.example.com/a' }, context).type).toBe('allowed');
    expect(checkToolRules(rules, 'WebFetch', { url: 'https://user@api.github.com/x' }, context).type).toBe('allowed');
    expect(checkToolRules(rules, 'WebFetch', { url: 'https://docs.example.com.evil.io/' }, context).type).toBe(
      'refused',
    );
    expect(checkToolRules(rules, 'WebFetch', { url: null }, context).type).toBe('refused');
  });
});
