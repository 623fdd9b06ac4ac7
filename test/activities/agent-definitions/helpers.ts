import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A temporary directory tree; `home` is passed as homeDir so the real ~ is never read. */
export interface DefinitionTree {
  root: string;
  home: string;
  /** Writes files relative to root; returns their absolute paths in order. */
  write(files: Record<string, string>): Promise<string[]>;
  cleanup(): Promise<void>;
}

export async function createDefinitionTree(): Promise<DefinitionTree> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'agent-definitions-')));
  const home = path.join(root, 'home');
  await fs.mkdir(home);
  return {
    root,
    home,
    async write(files) {
      const written: string[] = [];
      for (const [relative, content] of Object.entries(files)) {
        const file = path.join(root, relative);
        await fs.mkdir(path.dirname(file), { recursive: true });
        await fs.writeFile(file, content);
        written.push(file);
      }
      return written;
    },
    cleanup: () => fs.rm(root, { recursive: true, force: true }),
  };
}

/** A definition file: front-matter lines, then the body. */
export function definitionFile(frontMatter: string, body = 'You are a test agent.'): string {
  return `---\n${frontMatter.trim()}\n---\n${body}\n`;
}

/** The `agents list` row of the project definition `name`: name, source file, tools, MCP servers, model. */
export function projectRow(name: string, tools: string, mcpServers: string, model: string): string[] {
  return [name, `project ${path.join('.claude', 'agents', `${name}.md`)}`, tools, mcpServers, model];
}
