import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentDefinitions } from '../../../src/project/agent-definitions/load';
import { ParsedDefinitionsCache, parsedDefinitions } from '../../../src/project/agent-definitions/parse-cache';
import { parseDefinitionFile } from '../../../src/project/agent-definitions/parse-definition';
import { createDefinitionTree, type DefinitionTree, definitionFile } from './helpers';
import { freshForEachTest } from '../../helpers/unit-fixture';

describe('ParsedDefinitionsCache', () => {
  const text = definitionFile('name: reviewer\ndescription: Reviews code\ntools: Read, Grep', 'You review code.');

  it('gives what a fresh parse gives, the first time and from the cache, each a copy of its own', () => {
    const cache = new ParsedDefinitionsCache();
    const fresh = parseDefinitionFile(text, '/w/.claude/agents/reviewer.md', 'project', '/home/u');
    const first = cache.parse(text, '/w/.claude/agents/reviewer.md', 'project', '/home/u');
    const second = cache.parse(text, '/w/.claude/agents/reviewer.md', 'project', '/home/u');
    expect(first).toEqual(fresh);
    expect(second).toEqual(fresh);
    expect(second).not.toBe(first);
    // A caller that changes its result changes nothing another load gets.
    second.definition!.description = 'changed by a caller';
    second.definition!.tools!.push('Bash');
    second.reports.push({ file: 'x', level: 'warning', message: 'added by a caller' });
    expect(cache.parse(text, '/w/.claude/agents/reviewer.md', 'project', '/home/u')).toEqual(fresh);
  });

  it('parses again when the text changed, and keeps file, source and home apart', () => {
    const cache = new ParsedDefinitionsCache();
    cache.parse(text, '/w/a.md', 'project', '/home/u');
    const edited = text.replace('Reviews code', 'Reviews tests');
    expect(cache.parse(edited, '/w/a.md', 'project', '/home/u').definition?.description).toBe('Reviews tests');
    // The same text elsewhere is its own entry: the file is part of the result (and of reports).
    expect(cache.parse(text, '/w/b.md', 'project', '/home/u').definition?.file).toBe('/w/b.md');
    expect(cache.parse(text, '/w/b.md', 'user', '/home/u').definition?.source).toBe('user');
    expect(cache.parse(text, '/w/b.md', 'user', '/home/v')).toEqual(
      parseDefinitionFile(text, '/w/b.md', 'user', '/home/v'),
    );
    expect(cache.size).toBe(4);
  });

  it('holds at most its limit, dropping the entry read longest ago', () => {
    const cache = new ParsedDefinitionsCache(2);
    cache.parse(text, '/w/a.md', 'project', '/h');
    cache.parse(text, '/w/b.md', 'project', '/h');
    cache.parse(text, '/w/a.md', 'project', '/h'); // read again: now the newest
    cache.parse(text, '/w/c.md', 'project', '/h'); // b goes
    expect(cache.size).toBe(2);
    const bad = 'not a definition at all';
    // A file that does not parse is cached as what it is: a skipped report, never an exception.
    expect(cache.parse(bad, '/w/d.md', 'project', '/h')).toEqual(parseDefinitionFile(bad, '/w/d.md', 'project', '/h'));
    expect(cache.size).toBe(2);
  });
});

describe('loadAgentDefinitions with the worker cache', () => {
  let tree: DefinitionTree;
  freshForEachTest(createDefinitionTree, (created) => (tree = created));

  it('sees every change between loads: an edit of the same length, a new file, a removed file, a file that breaks', async () => {
    const cwd = path.join(tree.root, 'project');
    const [reviewer, tester] = await tree.write({
      'project/.claude/agents/reviewer.md': definitionFile('name: reviewer\ndescription: Reviews code', 'Prompt A.'),
      'project/.claude/agents/tester.md': definitionFile('name: tester\ndescription: Tests code'),
    });
    const load = () => loadAgentDefinitions({ cwd, homeDir: tree.home });
    const before = parsedDefinitions.size;
    expect((await load()).definitions.reviewer?.prompt).toBe('Prompt A.');
    // The loader parses through the worker's cache: one entry per file read.
    expect(parsedDefinitions.size).toBe(before + 2);
    // Same size, same second: only the text differs.
    await fs.writeFile(reviewer!, definitionFile('name: reviewer\ndescription: Reviews code', 'Prompt B.'));
    expect((await load()).definitions.reviewer?.prompt).toBe('Prompt B.');
    await tree.write({ 'project/.claude/agents/planner.md': definitionFile('name: planner\ndescription: Plans') });
    await fs.rm(tester!);
    const loaded = await load();
    expect(loaded.definitions.planner?.description).toBe('Plans');
    expect(loaded.definitions.tester).toBeUndefined();
    await fs.writeFile(reviewer!, '---\nname: [unclosed\n---\nbody\n');
    const broken = await load();
    expect(broken.definitions.reviewer).toBeUndefined();
    expect(broken.reports.some((report) => report.file === reviewer && report.level === 'skipped')).toBe(true);
  });
});
