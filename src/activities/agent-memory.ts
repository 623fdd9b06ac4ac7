// Agent memory in Claude Code's directories, MEMORY.md's start in the system prompt (docs/agent-definitions.md).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { MemoryScope } from '../shared/agents/agent-definition';

/** How much of MEMORY.md the system prompt carries (Claude Code's: 200 lines, 25 KB). */
export const memoryPromptLimits = { lines: 200, bytes: 25_000 } as const;

/** An agent type as one directory name: characters other than letters, digits, `.`, `_`, `-` become `-`. */
export function memoryDirectoryName(agentType: string): string {
  const name = agentType
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^\.+/, '-')
    .slice(0, 100);
  return name === '' ? '-' : name;
}

/** The memory directory of an agent type for a scope. */
export function memoryDirectory(scope: MemoryScope, agentType: string, cwd: string, homeDir: string): string {
  const name = memoryDirectoryName(agentType);
  switch (scope) {
    case 'user':
      return path.join(homeDir, '.claude', 'agent-memory', name);
    case 'project':
      return path.join(cwd, '.claude', 'agent-memory', name);
    case 'local':
      return path.join(cwd, '.claude', 'agent-memory-local', name);
  }
}

/** The system prompt section: where the memory is and the start of MEMORY.md. Creates the directory. */
export async function memorySection(
  scope: MemoryScope,
  agentType: string,
  cwd: string,
  homeDir: string,
): Promise<string> {
  const dir = memoryDirectory(scope, agentType, cwd, homeDir);
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, 'MEMORY.md');
  let text = '';
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (handle) {
    try {
      const buffer = Buffer.alloc(memoryPromptLimits.bytes);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      // Cut at the last whole line, so a multi-byte character is never split.
      text = buffer
        .subarray(0, bytesRead)
        .toString('utf8')
        .replace(/\uFFFD[^\n]*$/, '');
    } finally {
      await handle.close();
    }
  }
  const lines = text.split('\n').slice(0, memoryPromptLimits.lines).join('\n').trim();
  return [
    '# Persistent agent memory',
    `You have a persistent memory directory at ${dir} (${scope} scope), kept across runs of agents of your type.`,
    `Keep what future runs should know in ${file} (and other files there) with Read, Write and Edit; the start of MEMORY.md`,
    '(its first 200 lines) is given to you at every start. Record lasting lessons, not the details of this one task.',
    '',
    lines === '' ? 'MEMORY.md is empty or does not exist yet.' : `Contents of MEMORY.md:\n\n${lines}`,
  ].join('\n');
}
