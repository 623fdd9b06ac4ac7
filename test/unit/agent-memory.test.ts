import { describe, expect, it } from 'vitest';
import { memoryDirectory, memoryDirectoryName } from '../../src/activities/agent-memory';
import { assembleToolPool } from '../../src/shared/tools/tool-pool';

describe('agent memory', () => {
  it("keeps Claude Code's locations, with the type as one safe directory name", () => {
    expect(memoryDirectory('user', 'reviewer', '/w', '/h')).toBe('/h/.claude/agent-memory/reviewer');
    expect(memoryDirectory('project', 'reviewer', '/w', '/h')).toBe('/w/.claude/agent-memory/reviewer');
    expect(memoryDirectory('local', 'review-kit:reviewer', '/w', '/h')).toBe(
      '/w/.claude/agent-memory-local/review-kit-reviewer',
    );
    for (const hostile of ['../../etc', '..', '/abs/x', 'a/b', '', '.hidden']) {
      const name = memoryDirectoryName(hostile);
      expect(name, hostile).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/);
      expect(memoryDirectory('project', hostile, '/w', '/h').startsWith('/w/.claude/agent-memory/')).toBe(true);
    }
  });

  it('adds Read, Write and Edit to an allow-list, but not past disallowedTools or a background mode', () => {
    const pool = (definition: Parameters<typeof assembleToolPool>[0]['definition'], background = false) =>
      assembleToolPool({ definition, depth: 1, maxDepth: 3, background, permissionMode: 'default' });
    expect(pool({ tools: ['Grep'], memory: 'project' })).toEqual(['Grep', 'Read', 'Edit', 'Write']);
    expect(pool({ tools: ['Grep'] })).toEqual(['Grep']);
    expect(pool({ tools: ['Grep'], disallowedTools: ['Write'], memory: 'user' })).toEqual(['Grep', 'Read', 'Edit']);
    expect(pool({ tools: ['Grep'], memory: 'local' }, true)).toEqual(['Grep', 'Read']);
  });
});
