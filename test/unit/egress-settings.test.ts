import { describe, expect, it } from 'vitest';
import { egressDomains } from '../../src/project/settings/egress-settings';
import { decideEgress } from '../../src/shared/policy/egress-domains';

const rule = (text: string, tool: string, content: string) => ({ text, tool, content, file: '.claude/settings.json' });

describe('the egress proxy lists from settings', () => {
  it('adds the domains of WebFetch(domain:…) allow and deny rules to the sandbox lists, and nothing else', () => {
    const lists = egressDomains({
      allowedDomains: ['registry.npmjs.org', 'docs.python.org'],
      deniedDomains: ['evil.example'],
      permissions: {
        allow: [
          rule('WebFetch(domain:docs.python.org)', 'WebFetch', 'domain:docs.python.org'),
          rule('WebFetch(domain:*.github.com)', 'WebFetch', 'domain:*.github.com'),
          rule('Bash(curl:*)', 'Bash', 'curl:*'),
          rule('WebFetch', 'WebFetch', ''),
        ],
        deny: [rule('WebFetch(domain:gist.github.com)', 'WebFetch', 'domain:gist.github.com')],
      },
    });
    expect(lists).toEqual({
      allowedDomains: ['registry.npmjs.org', 'docs.python.org', '*.github.com'],
      deniedDomains: ['evil.example', 'gist.github.com'],
    });
    expect(decideEgress('api.github.com', lists.allowedDomains, lists.deniedDomains).type).toBe('allowed');
    expect(decideEgress('gist.github.com', lists.allowedDomains, lists.deniedDomains)).toMatchObject({
      type: 'refused',
      reason: 'denied',
    });
  });

  it('is empty without configuration: no host is reachable', () => {
    expect(egressDomains({})).toEqual({ allowedDomains: [], deniedDomains: [] });
  });
});
