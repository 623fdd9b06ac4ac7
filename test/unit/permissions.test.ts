import { describe, expect, it } from 'vitest';
import { decidePermission, routeApproval } from '../../src/workflows/permissions';

describe('decidePermission', () => {
  it('always lets read-only and coordination tools run', () => {
    for (const mode of ['default', 'plan', 'dontAsk', 'bubble'] as const) {
      for (const tool of ['Read', 'Glob', 'Grep', 'Agent', 'SendMessage']) expect(decidePermission(mode, tool, [])).toEqual({ type: 'allow' });
    }
  });
  it('asks for edits and Bash in default and bubble modes', () => {
    expect(decidePermission('default', 'Edit', [])).toEqual({ type: 'ask' });
    expect(decidePermission('bubble', 'Bash', [])).toEqual({ type: 'ask' });
  });
  it('accepts edits but asks for Bash in acceptEdits; allows everything in bypassPermissions', () => {
    expect(decidePermission('acceptEdits', 'Write', [])).toEqual({ type: 'allow' });
    expect(decidePermission('acceptEdits', 'Bash', [])).toEqual({ type: 'ask' });
    expect(decidePermission('bypassPermissions', 'Bash', [])).toEqual({ type: 'allow' });
  });
  it('denies without asking in plan and dontAsk', () => {
    expect(decidePermission('plan', 'Edit', [])).toMatchObject({ type: 'deny', reason: expect.stringContaining('plan mode') });
    expect(decidePermission('dontAsk', 'Bash', [])).toMatchObject({ type: 'deny', reason: expect.stringContaining('dontAsk') });
  });
  it('honours "always" approvals', () => {
    expect(decidePermission('default', 'Bash', ['Bash'])).toEqual({ type: 'allow' });
  });
});

describe('routeApproval', () => {
  it('bubbles a foreground chain and a bubble agent to the root', () => {
    expect(routeApproval({ mode: 'default', inForegroundChain: true, backgroundApprovals: 'deny' })).toEqual({ type: 'bubble' });
    expect(routeApproval({ mode: 'bubble', inForegroundChain: false, backgroundApprovals: 'deny' })).toEqual({ type: 'bubble' });
  });
  it('auto-denies background agents unless configured otherwise', () => {
    expect(routeApproval({ mode: 'default', inForegroundChain: false, backgroundApprovals: 'deny' })).toMatchObject({ type: 'auto', approved: false });
    expect(routeApproval({ mode: 'default', inForegroundChain: false, backgroundApprovals: 'approve' })).toMatchObject({ type: 'auto', approved: true });
    expect(routeApproval({ mode: 'default', inForegroundChain: false, backgroundApprovals: 'bubble' })).toEqual({ type: 'bubble' });
  });
});
