import { describe, expect, it } from 'vitest';
import { alwaysAllowKey, decideWebFetchPermission, webFetchPermission } from '../../src/workflows/tools/permissions';

describe('WebFetch permission by domain (as Claude Code)', () => {
  it('asks for a new domain in default, acceptEdits and bubble modes', () => {
    for (const mode of ['default', 'acceptEdits', 'bubble'] as const)
      expect(decideWebFetchPermission(mode, 'example.com', []), mode).toEqual({ type: 'ask' });
  });

  it('lets an allow rule, an "always" for the domain, or bypassPermissions through', () => {
    expect(decideWebFetchPermission('default', 'example.com', [], 'allow')).toEqual({ type: 'allow' });
    expect(decideWebFetchPermission('default', 'example.com', [webFetchPermission('example.com')])).toEqual({
      type: 'allow',
    });
    expect(decideWebFetchPermission('bypassPermissions', 'example.com', [])).toEqual({ type: 'allow' });
    // An "always" covers its own domain only.
    expect(decideWebFetchPermission('default', 'evil.example.com', [webFetchPermission('example.com')])).toEqual({
      type: 'ask',
    });
    expect(decideWebFetchPermission('default', 'example.com', ['Bash', 'WebSearch'])).toEqual({ type: 'ask' });
    expect(webFetchPermission('docs.example.com')).toBe('WebFetch(domain:docs.example.com)');
  });

  it('denies in dontAsk and plan unless a rule or an "always" allows', () => {
    for (const mode of ['dontAsk', 'plan'] as const) {
      expect(decideWebFetchPermission(mode, 'example.com', [])).toEqual({
        type: 'deny',
        reason: `WebFetch to example.com needs a person to approve its domain, and this agent runs in ${mode} mode, so it was denied. A settings allow rule WebFetch(domain:example.com) lets it through.`,
      });
      expect(decideWebFetchPermission(mode, 'example.com', [], 'allow')).toEqual({ type: 'allow' });
      expect(decideWebFetchPermission(mode, 'example.com', [webFetchPermission('example.com')])).toEqual({
        type: 'allow',
      });
    }
  });

  it('asks when an ask rule or hook says so, even where the mode or an "always" would allow (dontAsk and plan deny)', () => {
    expect(decideWebFetchPermission('bypassPermissions', 'example.com', [], 'ask')).toEqual({ type: 'ask' });
    expect(decideWebFetchPermission('default', 'example.com', [webFetchPermission('example.com')], 'ask')).toEqual({
      type: 'ask',
    });
    expect(decideWebFetchPermission('dontAsk', 'example.com', [], 'ask')).toMatchObject({
      type: 'deny',
      reason: expect.stringContaining('must be approved by a person'),
    });
  });

  it('lets a URL without an http(s) host through to WebFetch, which refuses it before connecting', () => {
    expect(decideWebFetchPermission('dontAsk', undefined, [])).toEqual({ type: 'allow' });
  });

  it('stores "always" for the domain of a WebFetch request, and believes a permission only in that shape', () => {
    expect(alwaysAllowKey({ tool: 'WebFetch', permission: 'WebFetch(domain:example.com)' })).toBe(
      'WebFetch(domain:example.com)',
    );
    expect(alwaysAllowKey({ tool: 'Bash' })).toBe('Bash');
    // A forged request cannot turn a person's "always" into another tool's.
    expect(alwaysAllowKey({ tool: 'Bash', permission: 'WebFetch(domain:example.com)' })).toBe('Bash');
    expect(alwaysAllowKey({ tool: 'WebFetch', permission: 'Bash' })).toBe('WebFetch');
    expect(alwaysAllowKey({ tool: 'WebFetch', permission: 'WebFetch(domain:a) Bash' })).toBe('WebFetch');
  });
});
