import { describe, expect, it } from 'vitest';
import { formatTable, clipToWidth, padCell } from '../../src/cli/table';
import { parseDefinitionFile } from '../../src/project/agent-definitions/parse-definition';
import { agentNameProblem, maxDefinitionPromptBytes } from '../../src/shared/agents/agent-definition';
import { agentHeaders, decodeHeaderValue, encodeHeaderValue } from '../../src/shared/model/agent-headers';
import { buildContext } from '../../src/model-server/conversation';
import type { MessagesRequest } from '../../src/model-server/request-types';

describe('agent header values', () => {
  it('leave printable ASCII as it is and percent-encode everything else, reversibly', () => {
    for (const value of [
      'root.1.2',
      'general-purpose',
      'code reviewer',
      'レビュー担当',
      'a\nb',
      '100%',
      '%41',
      'ü',
      '',
    ]) {
      const encoded = encodeHeaderValue(value);
      expect(encoded, value).toMatch(/^[\x20-\x7e]*$/);
      expect(decodeHeaderValue(encoded), value).toBe(value);
    }
    expect(encodeHeaderValue('root.1.2')).toBe('root.1.2');
    expect(encodeHeaderValue('code reviewer')).toBe('code reviewer');
    // A stray % from elsewhere is kept as received rather than failing the request.
    expect(decodeHeaderValue('50%zz')).toBe('50%zz');
  });

  it('are what fetch accepts (a header value is a ByteString) and what the model server reads back', () => {
    const headers = agentHeaders({ id: 'root.1', type: 'レビュー担当', name: '審査係' });
    expect(() => new Headers(headers)).not.toThrow();
    expect(() => new Headers({ 'x-subagents-agent-type': 'レビュー担当' })).toThrow();
    const request = { system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
    const context = buildContext(request as unknown as MessagesRequest, headers);
    expect(context).toMatchObject({ agentId: 'root.1', agentType: 'レビュー担当', agentName: '審査係' });
  });
});

describe('agent names in definitions', () => {
  const file = '/p/.claude/agents/a.md';
  const definition = (name: string, body = 'You review.') =>
    parseDefinitionFile(`---\nname: ${JSON.stringify(name)}\ndescription: d\n---\n${body}\n`, file, 'project');

  it('accepts a name in any language and refuses one with a control character, saying which', () => {
    expect(definition('レビュー担当').definition?.name).toBe('レビュー担当');
    expect(definition('код-ревьюер').definition?.name).toBe('код-ревьюер');
    for (const name of ['two\nlines', 'tab\there', 'bell\u0007', 'sep\u2028x']) {
      const parsed = definition(name);
      expect(parsed.definition, JSON.stringify(name)).toBeUndefined();
      expect(parsed.reports[0]).toMatchObject({ level: 'skipped', name });
      expect(parsed.reports[0]!.message).toContain('control character');
    }
    expect(agentNameProblem('x'.repeat(129))).toContain('longer than 128');
    expect(agentNameProblem('レ'.repeat(128))).toBeUndefined();
  });

  it('skips a body over the limit with its size and the limit, and takes one at the limit', () => {
    const over = definition('huge', 'x'.repeat(5 * 1024 * 1024));
    expect(over.definition).toBeUndefined();
    expect(over.reports[0]).toMatchObject({ level: 'skipped', name: 'huge' });
    expect(over.reports[0]!.message).toContain('is 5.0 MiB, over the 256 KiB limit');
    expect(definition('at-limit', 'x'.repeat(maxDefinitionPromptBytes)).definition?.name).toBe('at-limit');
    // Bytes, not characters: 100k three-byte characters are 300 KB.
    expect(definition('wide', '審'.repeat(100_000)).definition).toBeUndefined();
  });
});

describe('CLI tables with wide characters', () => {
  it('align columns by screen width', () => {
    const lines = formatTable([
      ['NAME', 'SOURCE', 'DESCRIPTION'],
      ['レビュー担当', 'project', 'reads code'],
      ['explore', 'built-in', 'finds files'],
    ]);
    // The second column starts at the same screen column on every line.
    const column = (line: string) => {
      const index = line.search(/project|built-in|SOURCE/);
      return [...line.slice(0, index)].reduce(
        (width, character) => width + (/[\u3000-\u9fff]/.test(character) ? 2 : 1),
        0,
      );
    };
    expect(new Set(lines.map(column)).size).toBe(1);
    expect(padCell('審', 4)).toBe('審  ');
  });

  it('clip to a width without splitting a wide character or an emoji', () => {
    expect(clipToWidth('レビュー担当です', 7)).toBe('レビュ…');
    expect(clipToWidth('short', 7)).toBe('short');
    expect(clipToWidth('👩‍👩‍👧 family', 3)).toBe('👩‍👩‍👧…');
  });
});
