import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleGit } from 'simple-git';

/** Input of `renderSystemPrompt`. */
export interface RenderSystemPromptInput {
  definitionPrompt: string;
  cwd: string;
  agentType: string;
  model: string;
}

const maxClaudeMdChars = 20_000;

async function gitSummary(cwd: string): Promise<string> {
  try {
    const git = simpleGit({ baseDir: cwd });
    if (!(await git.checkIsRepo())) return 'Is a git repository: no';
    const status = await git.status();
    const log = await git.log({ maxCount: 5 }).catch(() => undefined);
    const changed = status.files.slice(0, 20).map((file) => `  ${file.working_dir}${file.index} ${file.path}`);
    const lines = [
      'Is a git repository: yes',
      `Current branch: ${status.current ?? '(detached)'}`,
      `Status: ${status.files.length === 0 ? 'clean' : `${status.files.length} changed file(s)`}`,
      ...changed,
      ...(status.files.length > 20 ? [`  ... and ${status.files.length - 20} more`] : []),
    ];
    if (log?.all.length) lines.push('Recent commits:', ...log.all.map((commit) => `  ${commit.hash.slice(0, 7)} ${commit.message}`));
    return lines.join('\n');
  } catch {
    return 'Is a git repository: unknown';
  }
}

/** The nearest CLAUDE.md walking up from cwd (the project's instructions), if any. */
function projectInstructions(cwd: string): string | undefined {
  for (let directory = path.resolve(cwd); ; directory = path.dirname(directory)) {
    const file = path.join(directory, 'CLAUDE.md');
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      return text.length > maxClaudeMdChars ? `${text.slice(0, maxClaudeMdChars)}\n[... truncated]` : text;
    }
    if (path.dirname(directory) === directory) return undefined;
  }
}

/**
 * Renders an agent's system prompt once, at start: the definition's prompt plus environment facts.
 * The workflow keeps the returned bytes and sends exactly them on every model call.
 */
export async function renderSystemPrompt(input: RenderSystemPromptInput): Promise<string> {
  const date = new Date().toISOString().slice(0, 10);
  const sections = [
    input.definitionPrompt.trim(),
    [
      '<env>',
      `Working directory: ${input.cwd}`,
      `Platform: ${os.platform()}`,
      `Today's date: ${date}`,
      `Model: ${input.model}`,
      await gitSummary(input.cwd),
      '</env>',
    ].join('\n'),
  ];
  const instructions = projectInstructions(input.cwd);
  if (instructions) sections.push(`<project-instructions source="CLAUDE.md">\n${instructions.trim()}\n</project-instructions>`);
  return sections.join('\n\n');
}
