// Claude Code skills, preloaded into the first message; plain names, so nothing outside a skills directory is read.
import fs from 'node:fs/promises';
import path from 'node:path';
import { splitFrontMatter } from './agent-definitions/front-matter';
import { isInside } from './paths';

/** Longest skill text preloaded; the rest stays in the file, which the agent can Read. */
export const maxSkillChars = 20_000;

/** A skill name: one directory name, no separators or dots-only names. */
export function isSkillName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name) && !name.includes('..');
}

/** A found skill: its directory and its instructions. */
export interface Skill {
  name: string;
  dir: string;
  /** SKILL.md without its front matter (cut at maxSkillChars). */
  body: string;
  truncated: boolean;
}

/** The `.claude/skills` directories for `cwd`: cwd and its parents (nearest first; home's is the user one), then home's. */
export function skillDirectories(cwd: string, homeDir: string): string[] {
  const home = path.resolve(homeDir);
  const directories: string[] = [];
  let current = path.resolve(cwd);
  for (;;) {
    if (current !== home) directories.push(path.join(current, '.claude', 'skills'));
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  directories.push(path.join(home, '.claude', 'skills'));
  return directories;
}

async function readSkill(skillsDir: string, name: string): Promise<Skill | undefined> {
  const dir = path.join(skillsDir, name);
  const realDir = await fs.realpath(dir).catch(() => undefined);
  const realRoot = await fs.realpath(skillsDir).catch(() => undefined);
  // A skill directory linked out of its skills directory is not followed.
  if (!realDir || !realRoot || realDir === realRoot || !isInside(realDir, realRoot)) return undefined;
  const file = path.join(realDir, 'SKILL.md');
  const stats = await fs.stat(file).catch(() => undefined);
  if (!stats?.isFile()) return undefined;
  const handle = await fs.open(file, 'r');
  let text: string;
  try {
    // Read a bounded prefix: a huge file cannot fill the worker's memory.
    const buffer = Buffer.alloc(Math.min(stats.size, maxSkillChars * 4 + 4096));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    text = buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
  const split = splitFrontMatter(text);
  const body = (split.type === 'split' ? split.body : text).trim();
  const truncated = body.length > maxSkillChars;
  return { name, dir: realDir, body: body.slice(0, maxSkillChars), truncated };
}

/** Finds each named skill (nearest directory first); names that are not plain names or are not found come back in `missing`. */
export async function findSkills(
  names: readonly string[],
  cwd: string,
  homeDir: string,
): Promise<{ skills: Skill[]; missing: string[] }> {
  const skills: Skill[] = [];
  const missing: string[] = [];
  const directories = skillDirectories(cwd, homeDir);
  for (const name of [...new Set(names)]) {
    let found: Skill | undefined;
    if (isSkillName(name)) {
      for (const directory of directories) {
        found = await readSkill(directory, name);
        if (found) break;
      }
    }
    if (found) skills.push(found);
    else missing.push(name);
  }
  return { skills, missing };
}

/** The text that preloads skills into the first message. */
export function renderSkills(skills: readonly Skill[], missing: readonly string[]): string | undefined {
  if (skills.length === 0 && missing.length === 0) return undefined;
  const sections = skills.map((skill) =>
    [
      `<skill name="${skill.name}">`,
      `Base directory for this skill: ${skill.dir} (files it mentions are relative to it)`,
      '',
      skill.body,
      ...(skill.truncated
        ? ['', `[The skill continues in ${path.join(skill.dir, 'SKILL.md')}; Read it for the rest.]`]
        : []),
      '</skill>',
    ].join('\n'),
  );
  if (missing.length > 0) sections.push(`Skills your definition names that were not found: ${missing.join(', ')}.`);
  return `The following skills are preloaded for you; follow them when they apply.\n\n${sections.join('\n\n')}`;
}
