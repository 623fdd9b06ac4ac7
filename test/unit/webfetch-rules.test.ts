import { describe, expect, it } from 'vitest';
import { decideByRules, type PermissionRules } from '../../src/shared/policy/permission-rules';

const rules = (allow: string[], deny: string[] = []): PermissionRules => {
  const parse = (text: string) => ({
    text,
    tool: 'WebFetch',
    content: /\((.*)\)/.exec(text)![1]!,
    file: 'settings.json',
  });
  return { allow: allow.map(parse), deny: deny.map(parse) };
};
const decide = (set: PermissionRules, url: string) => decideByRules(set, 'WebFetch', { url }, { cwd: '/w' })?.type;

describe('WebFetch(domain:…) rules see the host the fetch connects to', () => {
  it('an allow rule does not let through a URL whose real host is another (backslash, userinfo)', () => {
    const set = rules(['WebFetch(domain:docs.python.org)']);
    expect(decide(set, 'https://docs.python.org/3/')).toBe('allow');
    // WHATWG URL (what WebFetch uses) reads the host as internal.example; a regex read docs.python.org.
    expect(new URL('http://internal.example\\@docs.python.org/').hostname).toBe('internal.example');
    expect(decide(set, 'http://internal.example\\@docs.python.org/')).toBeUndefined();
    expect(decide(set, 'https://docs.python.org@internal.example/')).toBeUndefined();
  });

  it('a deny rule catches a trailing dot, upper case and a backslash in front of the real host', () => {
    const set = rules([], ['WebFetch(domain:evil.example)']);
    for (const url of ['https://evil.example./', 'https://EVIL.example/', 'http://evil.example\\@docs.python.org/'])
      expect(decide(set, url), url).toBe('deny');
    expect(decide(set, 'https://docs.python.org/')).toBeUndefined();
  });
});
