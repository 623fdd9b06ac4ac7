// The start's probe for absent paths: certain only of a miss, never of a path it cannot see.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { certainlyMissing } from '../../src/project/certainly-missing';
import { loadMcpConfig } from '../../src/project/mcp-config';
import { findDefinitionFiles } from '../../src/project/agent-definitions/discover';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certainly-missing-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('certainlyMissing', () => {
  it('is true for no entry and for a path under a file, false for a file, a directory and a dangling link', () => {
    const file = path.join(dir, 'file.json');
    fs.writeFileSync(file, '{}');
    fs.symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));
    expect(certainlyMissing(path.join(dir, 'absent.json'))).toBe(true);
    expect(certainlyMissing(path.join(file, '.mcp.json'))).toBe(true);
    expect(certainlyMissing(file)).toBe(false);
    expect(certainlyMissing(dir)).toBe(false);
    // statSync follows the link: its target is absent, so the read that follows would find nothing either.
    expect(certainlyMissing(path.join(dir, 'dangling'))).toBe(true);
  });

  it('leaves an unreadable file to the read, which reports it (a directory where .mcp.json should be)', async () => {
    const project = path.join(dir, 'project');
    fs.mkdirSync(path.join(project, '.mcp.json'), { recursive: true });
    const config = await loadMcpConfig(project);
    expect(config.problems.map((problem) => problem.file)).toContain(path.join(project, '.mcp.json'));
    expect(config.problems[0]!.message).toMatch(/cannot read the file/);
  });

  it('lets the definitions walk say nothing of an absent directory and still read a present one', async () => {
    expect(await findDefinitionFiles(path.join(dir, 'no', '.claude', 'agents'))).toEqual({ files: [], problems: [] });
    const agents = path.join(dir, 'with', '.claude', 'agents');
    fs.mkdirSync(agents, { recursive: true });
    fs.writeFileSync(path.join(agents, 'a.md'), '---\nname: a\ndescription: x\n---\nbody');
    expect((await findDefinitionFiles(agents)).files).toEqual([path.join(agents, 'a.md')]);
  });
});
