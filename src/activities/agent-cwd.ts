import fs from 'node:fs/promises';
import path from 'node:path';
import { ErrorType, errorText } from '../shared/protocol/errors';
import type { ResolveAgentCwdInput, ResolveAgentCwdResult } from '../shared/workspace/working-directory';
import { isInside } from '../project/paths';

/** Checks an Agent call's cwd: a directory inside the parent's workspace, links resolved (docs/security.md). */
export async function resolveAgentCwd(input: ResolveAgentCwdInput): Promise<ResolveAgentCwdResult> {
  const refuse = (type: Parameters<typeof errorText>[0], detail: string): ResolveAgentCwdResult => ({
    ok: false,
    error: errorText(type, detail),
  });
  if (input.requested.includes('\0')) return refuse(ErrorType.InvalidToolInput, '"cwd" contains a NUL character.');
  const root = await fs.realpath(input.workspaceRoot).catch(() => path.resolve(input.workspaceRoot));
  const absolute = path.resolve(input.parentCwd, input.requested);
  const real = await fs.realpath(absolute).catch(() => undefined);
  if (real === undefined) {
    return refuse(
      ErrorType.FileNotFound,
      `cwd "${input.requested}" (resolved to ${absolute}) does not exist. Give an existing directory inside the workspace ${root}.`,
    );
  }
  if (!isInside(real, root)) {
    const through = real !== absolute ? ` (through a symbolic link, ${absolute})` : '';
    return refuse(
      ErrorType.PathOutsideWorkspace,
      `cwd "${input.requested}" resolves to ${real}${through}, outside the workspace ${root}. A subagent works inside its parent's workspace: give a directory under ${root}.`,
    );
  }
  const stat = await fs.stat(real);
  if (!stat.isDirectory())
    return refuse(
      ErrorType.NotADirectory,
      `cwd "${input.requested}" is a file (${real}); give a directory inside the workspace ${root}.`,
    );
  return { ok: true, cwd: real };
}
