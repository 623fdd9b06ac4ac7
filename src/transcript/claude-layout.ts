import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeOutputDirectory } from '../project/runtime-output';
import { messageRecords, transcriptSession } from './records';
import type { AgentTranscript } from './transcript-types';

/** One file of an export in Claude Code's layout, its path relative to the config directory. */
export interface LayoutFile {
  relativePath: string;
  text: string;
}

/** Claude Code's project directory name: the working directory with every character but letters and digits as '-'. */
export function projectDirName(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

// Agent ids are workflow ids: keep them readable but safe as one path segment.
const fileSafe = (agentId: string): string => agentId.replace(/[^a-zA-Z0-9._-]/g, '_');

const jsonl = (records: readonly unknown[]): string => records.map((record) => `${JSON.stringify(record)}\n`).join('');

/** A tree's transcripts in Claude Code's session layout: the root's `.jsonl`, then `subagents/agent-<id>.jsonl`. */
export function claudeCodeLayout(transcripts: readonly AgentTranscript[]): LayoutFile[] {
  const root = transcripts[0];
  if (!root) return [];
  const session = transcriptSession(root.meta.agentId);
  const projectDir = path.posix.join('projects', projectDirName(root.meta.cwd ?? 'unknown'));
  const files: LayoutFile[] = [
    {
      relativePath: path.posix.join(projectDir, `${session.sessionId}.jsonl`),
      text: jsonl(messageRecords(root, session)),
    },
  ];
  for (const transcript of transcripts.slice(1)) {
    const { meta } = transcript;
    const base = path.posix.join(projectDir, session.sessionId, 'subagents', `agent-${fileSafe(meta.agentId)}`);
    files.push({ relativePath: `${base}.jsonl`, text: jsonl(messageRecords(transcript, session)) });
    const sidecar = {
      agentType: meta.agentType,
      ...(meta.worktree ? { worktreePath: meta.worktree.path } : {}),
      ...(meta.description !== null ? { description: meta.description } : {}),
      ...(meta.parentToolUseId !== null ? { toolUseId: meta.parentToolUseId } : {}),
      spawnDepth: meta.depth,
      agentId: meta.agentId,
      parentAgentId: meta.parentAgentId,
      model: meta.model,
    };
    files.push({ relativePath: `${base}.meta.json`, text: `${JSON.stringify(sidecar, null, 2)}\n` });
  }
  return files;
}

/** What an export wrote: the files, and the directory it created and marked as runtime output (`.gitignore` of `*`), if any. */
export interface WrittenLayout {
  files: string[];
  marked?: string;
}

/** Writes {@link claudeCodeLayout} under `configDir`, marked as runtime output so git and Glob/Grep skip it. */
export async function writeClaudeCodeLayout(
  configDir: string,
  transcripts: readonly AgentTranscript[],
): Promise<WrittenLayout> {
  const files = claudeCodeLayout(transcripts).map((file) => ({
    target: path.join(configDir, ...file.relativePath.split('/')),
    text: file.text,
  }));
  // Every file lies below the root's project directory, so marking the first directory created on the way there covers all.
  const marked = files[0] ? await makeOutputDirectory(path.dirname(files[0].target)) : undefined;
  for (const file of files) {
    await mkdir(path.dirname(file.target), { recursive: true });
    await writeFile(file.target, file.text);
  }
  return { files: files.map((file) => file.target), ...(marked !== undefined ? { marked } : {}) };
}
