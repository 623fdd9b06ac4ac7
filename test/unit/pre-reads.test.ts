/** When an agent's Reads may start with its model call, and which Read takes a pre-read outcome (src/workflows/tools/pre-reads.ts). */
import { describe, expect, it } from 'vitest';
import type { ToolUseBlock } from '../../src/shared/model/messages';
import type { ModelCallResult, PreReadRequest } from '../../src/shared/model/model-call';
import type { ToolContext } from '../../src/shared/tools/tools';
import { preReadLookup, readWithLastCallSummary, runsUnconditionally } from '../../src/workflows/tools/pre-reads';

const rule = (tool: string, content = '') => ({ tool, content });

describe('runsUnconditionally', () => {
  it('holds without rules, and with rules for other tools or settings rules that only allow', () => {
    expect(runsUnconditionally('Read', undefined, undefined)).toBe(true);
    expect(
      runsUnconditionally(
        'Grep',
        { allow: [rule('Bash', 'git diff:*')], deny: [rule('Edit', 'src/**')] },
        { deny: [rule('Bash', 'rm:*')], ask: [rule('WebFetch')] },
      ),
    ).toBe(true);
    expect(runsUnconditionally('Read', undefined, { allow: [rule('Read'), rule('Read', './docs/**')] })).toBe(true);
    // A bare Glob rule speaks about Glob only.
    expect(runsUnconditionally('Read', undefined, { deny: [rule('Glob')] })).toBe(true);
  });

  it('fails when a rule could refuse a call of the tool or ask about it', () => {
    expect(runsUnconditionally('Read', { allow: [rule('Read', 'src/**')] }, undefined)).toBe(false);
    expect(runsUnconditionally('Read', { deny: [rule('Read', '.env')] }, undefined)).toBe(false);
    expect(runsUnconditionally('Read', undefined, { deny: [rule('Read', './secret.txt')] })).toBe(false);
    expect(runsUnconditionally('Read', undefined, { ask: [rule('Read')] })).toBe(false);
    // Read(...) path rules are checked for Glob and Grep too; a bare rule for the tool itself as well.
    expect(runsUnconditionally('Grep', undefined, { deny: [rule('Read', './secrets/**')] })).toBe(false);
    expect(runsUnconditionally('Glob', { deny: [rule('Read', '.env')] }, undefined)).toBe(false);
    expect(runsUnconditionally('Glob', undefined, { ask: [rule('Glob')] })).toBe(false);
  });
});

describe('preReadLookup', () => {
  const context: ToolContext = { agentId: 'agent-1', workspaceRoot: '/ws', cwd: '/ws' };
  const sent: PreReadRequest = { context, tools: ['Read', 'Grep'] };
  const read: ToolUseBlock = { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.txt' } };
  const glob: ToolUseBlock = { type: 'tool_use', id: 'toolu_2', name: 'Glob', input: { pattern: '*' } };
  const outcome = { result: { content: 'A', isError: false } };
  const answer = (preReads?: ModelCallResult['preReads']): ModelCallResult => ({
    id: 'msg_1',
    content: [read, glob],
    stopReason: 'tool_use',
    model: 'm',
    usage: { inputTokens: 1, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    ...(preReads ? { preReads } : {}),
  });

  it('gives a Read its outcome when it runs as the model asked, with the context the call was sent, and says so', () => {
    const taken: string[] = [];
    const lookup = preReadLookup(answer({ toolu_1: outcome }), sent, [read, glob], (call) => taken.push(call.id));
    expect(lookup?.(read, { ...context })).toEqual(outcome);
    expect(lookup?.({ ...read, input: { ...read.input } }, context)).toBeUndefined();
    expect(taken).toEqual(['toolu_1']);
  });

  it('gives none to a rewritten input, another context, a tool the call was not sent, or an id the answer did not pre-read', () => {
    const lookup = preReadLookup(answer({ toolu_1: outcome, toolu_2: outcome }), sent, [read, glob])!;
    expect(lookup({ ...read, input: { file_path: 'a.txt' } }, context)).toBeUndefined();
    expect(lookup(read, { ...context, cwd: '/ws/sub' })).toBeUndefined();
    expect(lookup(glob, context)).toBeUndefined();
    expect(lookup({ ...read, id: 'constructor' }, context)).toBeUndefined();
  });

  it('is absent without pre-read outcomes or without a sent context (a run recorded before, a call that did not ask)', () => {
    expect(preReadLookup(answer(), sent, [read])).toBeUndefined();
    expect(preReadLookup(answer({ toolu_1: outcome }), undefined, [read])).toBeUndefined();
  });
});

describe('readWithLastCallSummary', () => {
  it('names the calls that came back with the last model call, cut to fit', () => {
    expect(readWithLastCallSummary([])).toBe('');
    expect(readWithLastCallSummary(['Glob **/*.ts', 'Read notes.txt'])).toBe(
      ' · read with the last call: Glob **/*.ts, Read notes.txt',
    );
    const long = readWithLastCallSummary(
      Array.from({ length: 20 }, (_unused, index) => `Read src/some/long/path/file-${index}.ts`),
    );
    expect(long).toHaveLength(160);
    expect(long.endsWith('…')).toBe(true);
  });
});
