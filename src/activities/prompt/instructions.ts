// CLAUDE.md files in Claude Code's order: the user's, then repository root down to cwd, nearest (strongest) last.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Larger files are cut (Claude Code recommends staying under this many characters). */
export const maxInstructionFileChars = 40_000;

/** One loaded instruction file. */
export interface InstructionFile {
  path: string;
  kind: 'user' | 'project' | 'local';
  content: string;
}

/** The nearest directory at or above `cwd` that holds `.git` (a repository or a worktree), if any. */
export function repositoryRoot(cwd: string): string | undefined {
  for (let directory = path.resolve(cwd); ; directory = path.dirname(directory)) {
    if (existsSync(path.join(directory, '.git'))) return directory;
    if (path.dirname(directory) === directory) return undefined;
  }
}

/** The directories whose files count as project instructions, from the repository root down to cwd (only cwd outside a repository). */
export function instructionDirectories(cwd: string): string[] {
  const target = path.resolve(cwd);
  const root = repositoryRoot(target) ?? target;
  const directories: string[] = [];
  for (let directory = target; ; directory = path.dirname(directory)) {
    directories.unshift(directory);
    if (directory === root || path.dirname(directory) === directory) break;
  }
  return directories;
}

function readIfFile(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return undefined;
    const text = readFileSync(file, 'utf8');
    return text.length > maxInstructionFileChars
      ? `${text.slice(0, maxInstructionFileChars)}\n[... cut at ${maxInstructionFileChars} characters]`
      : text;
  } catch {
    return undefined;
  }
}

/** Every instruction file for an agent working in `cwd`, in the order they are shown. */
export function loadInstructionFiles(cwd: string, homeDir: string): InstructionFile[] {
  const candidates: Array<Pick<InstructionFile, 'path' | 'kind'>> = [
    { path: path.join(homeDir, '.claude', 'CLAUDE.md'), kind: 'user' },
  ];
  for (const directory of instructionDirectories(cwd)) {
    candidates.push(
      { path: path.join(directory, 'CLAUDE.md'), kind: 'project' },
      { path: path.join(directory, '.claude', 'CLAUDE.md'), kind: 'project' },
      { path: path.join(directory, 'CLAUDE.local.md'), kind: 'local' },
    );
  }
  const seen = new Set<string>();
  const files: InstructionFile[] = [];
  for (const candidate of candidates) {
    const resolved = path.resolve(candidate.path);
    if (seen.has(resolved)) continue;
    seen.add(resolved);
    const content = readIfFile(resolved)?.trim();
    if (content) files.push({ path: resolved, kind: candidate.kind, content });
  }
  return files;
}

const kindLabel: Record<InstructionFile['kind'], string> = {
  user: "the user's own instructions for all projects",
  project: 'project instructions, checked into the repository',
  local: "the user's private instructions for this project, not checked in",
};

/** The instructions section of the system prompt, or undefined when there are none. */
export function renderInstructions(files: readonly InstructionFile[]): string | undefined {
  if (files.length === 0) return undefined;
  return [
    '# Instructions from CLAUDE.md',
    'The files below hold instructions from the user and the project. Follow them: where they differ from the guidance above, they win. Later files are nearer the working directory and take precedence over earlier ones.',
    ...files.map((file) => `Contents of ${file.path} (${kindLabel[file.kind]}):\n\n${file.content}`),
  ].join('\n\n');
}
