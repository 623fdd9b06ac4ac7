import { describe, expect, it } from 'vitest';
import { decidePermission, routeApproval } from '../../src/workflows/tools/permissions';

describe('decidePermission', () => {
  it('always lets read-only and coordination tools run', () => {
    for (const mode of ['default', 'plan', 'dontAsk', 'bubble'] as const) {
      for (const tool of ['Read', 'Glob', 'Grep', 'Agent', 'SendMessage'])
        expect(decidePermission(mode, tool, [])).toEqual({ type: 'allow' });
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
    expect(decidePermission('plan', 'Edit', [])).toMatchObject({
      type: 'deny',
      reason: expect.stringContaining('plan mode'),
    });
    expect(decidePermission('dontAsk', 'Bash', [])).toMatchObject({
      type: 'deny',
      reason: expect.stringContaining('dontAsk'),
    });
  });
  it('honours "always" approvals', () => {
    expect(decidePermission('default', 'Bash', ['Bash'])).toEqual({ type: 'allow' });
  });
  it('runs the web and todo tools without asking, and classifies extra (MCP) tools by their descriptor', () => {
    for (const tool of ['WebFetch', 'WebSearch', 'TodoWrite'])
      expect(decidePermission('default', tool, [])).toEqual({ type: 'allow' });
    const readOnly = { readOnly: true, needsApproval: false, retrySafe: true };
    const writes = { readOnly: false, needsApproval: true, retrySafe: false };
    expect(decidePermission('default', 'mcp__fs__read_file', [], readOnly)).toEqual({ type: 'allow' });
    expect(decidePermission('plan', 'mcp__fs__read_file', [], readOnly)).toEqual({ type: 'allow' });
    expect(decidePermission('default', 'mcp__fs__write_file', [], writes)).toEqual({ type: 'ask' });
    expect(decidePermission('plan', 'mcp__fs__write_file', [], writes)).toMatchObject({ type: 'deny' });
    expect(decidePermission('bypassPermissions', 'mcp__fs__write_file', [], writes)).toEqual({ type: 'allow' });
    expect(decidePermission('default', 'mcp__fs__write_file', ['mcp__fs__write_file'], writes)).toEqual({
      type: 'allow',
    });
  });
});

describe('routeApproval', () => {
  it('bubbles a foreground chain and a bubble agent to the root', () => {
    expect(routeApproval({ mode: 'default', inForegroundChain: true, backgroundApprovals: 'deny' })).toEqual({
      type: 'bubble',
    });
    expect(routeApproval({ mode: 'bubble', inForegroundChain: false, backgroundApprovals: 'deny' })).toEqual({
      type: 'bubble',
    });
  });
  it('auto-denies background agents unless configured otherwise', () => {
    expect(routeApproval({ mode: 'default', inForegroundChain: false, backgroundApprovals: 'deny' })).toMatchObject({
      type: 'auto',
      approved: false,
    });
    expect(routeApproval({ mode: 'default', inForegroundChain: false, backgroundApprovals: 'approve' })).toMatchObject({
      type: 'auto',
      approved: true,
    });
    expect(routeApproval({ mode: 'default', inForegroundChain: false, backgroundApprovals: 'bubble' })).toEqual({
      type: 'bubble',
    });
  });
});
