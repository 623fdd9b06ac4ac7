import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSkills, maxSkillChars, renderSkills } from '../../src/project/skills';

let root: string;
let home: string;
let project: string;

async function write(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
}

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'skills-')));
  home = path.join(root, 'home');
  project = path.join(root, 'project');
  await fs.mkdir(path.join(project, 'app'), { recursive: true });
  await fs.mkdir(home, { recursive: true });
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

describe('skills (.claude/skills/<name>/SKILL.md)', () => {
  it('finds the nearest project skill, then the user one, and reports missing ones', async () => {
    await write(
      path.join(project, '.claude/skills/pdf/SKILL.md'),
      '---\nname: pdf\ndescription: PDFs\n---\nUse scripts/fill.py to fill forms.\n',
    );
    await write(path.join(project, '.claude/skills/pdf/scripts/fill.py'), 'print(1)\n');
    await write(
      path.join(home, '.claude/skills/pdf/SKILL.md'),
      '---\nname: pdf\ndescription: user pdf\n---\nUSER PDF\n',
    );
    await write(
      path.join(home, '.claude/skills/style/SKILL.md'),
      '---\nname: style\ndescription: style\n---\nWrite plainly.\n',
    );
    const { skills, missing } = await findSkills(['pdf', 'style', 'ghost'], path.join(project, 'app'), home);
    expect(skills.map((skill) => [skill.name, skill.dir, skill.body])).toEqual([
      ['pdf', path.join(project, '.claude/skills/pdf'), 'Use scripts/fill.py to fill forms.'],
      ['style', path.join(home, '.claude/skills/style'), 'Write plainly.'],
    ]);
    expect(missing).toEqual(['ghost']);
    const text = renderSkills(skills, missing)!;
    expect(text).toContain(
      `<skill name="pdf">\nBase directory for this skill: ${path.join(project, '.claude/skills/pdf')}`,
    );
    expect(text).toContain('Skills your definition names that were not found: ghost.');
  });

  it('reads nothing outside a skills directory: path names, and skill directories linked elsewhere', async () => {
    await write(path.join(root, 'secret/SKILL.md'), 'SECRET');
    await fs.mkdir(path.join(project, '.claude/skills'), { recursive: true });
    await fs.symlink(path.join(root, 'secret'), path.join(project, '.claude/skills/linked'));
    const { skills, missing } = await findSkills(['../../secret', '/etc', 'linked', '', '..'], project, home);
    expect(skills).toEqual([]);
    expect(missing).toEqual(['../../secret', '/etc', 'linked', '', '..']);
  });

  it('cuts a huge skill and says where the rest is', async () => {
    await write(
      path.join(project, '.claude/skills/big/SKILL.md'),
      `---\nname: big\ndescription: d\n---\n${'x'.repeat(maxSkillChars * 10)}`,
    );
    const { skills } = await findSkills(['big'], project, home);
    expect(skills[0]!.body).toHaveLength(maxSkillChars);
    expect(skills[0]!.truncated).toBe(true);
    expect(renderSkills(skills, [])).toContain('Read it for the rest.');
  });
});
