import { execFileSync } from 'node:child_process';
import { toolEnvironmentNames } from './secrets';
import { sandboxOptionsFromEnv, type SandboxOptions } from './sandbox-options';

/** How Bash runs its commands (docs/security.md). */
export interface ShellOptions {
  /** Variables passed to commands besides the safe defaults (SUBAGENTS_BASH_ENV). */
  passThrough?: string[];
  /** Run commands as this user instead of the worker's (SUBAGENTS_BASH_USER; the worker must run as root). */
  user?: { name: string; uid: number; gid: number; home: string };
  /** The OS sandbox every command runs in (SUBAGENTS_SANDBOX; default on). */
  sandbox?: SandboxOptions;
}

/** Variables every command gets from the worker's environment when set: what programs need to run, nothing secret. */
export const safeEnvironmentNames = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'COLORTERM',
  'TZ',
  'TMPDIR',
] as const;

/** Keeps commands from waiting for a pager or a password prompt. */
const nonInteractive = { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };

/**
 * The environment of a command: an allowlist (the safe names, LC_*, and what the configuration
 * names), never the worker's whole environment — a secret given to the worker does not reach a
 * command's `env` unless an operator passes it on purpose.
 */
export function commandEnvironment(options: ShellOptions, source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const allowed = new Set<string>([...safeEnvironmentNames, ...(options.passThrough ?? [])]);
  const environment: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && (allowed.has(name) || name.startsWith('LC_'))) environment[name] = value;
  }
  if (options.user)
    Object.assign(environment, { HOME: options.user.home, USER: options.user.name, LOGNAME: options.user.name });
  return { ...environment, ...nonInteractive };
}

/** A shell-option mistake an operator must fix before the worker starts. */
export class ShellOptionsError extends Error {
  override readonly name = 'ShellOptionsError';
}

/** Reads SUBAGENTS_BASH_ENV, SUBAGENTS_BASH_USER and the sandbox's variables; a user that does not exist, or a non-root worker with one, is a clear error. */
export function shellOptionsFromEnv(env: NodeJS.ProcessEnv): ShellOptions {
  const options: ShellOptions = { passThrough: toolEnvironmentNames(env), sandbox: sandboxOptionsFromEnv(env) };
  const userName = env.SUBAGENTS_BASH_USER?.trim();
  if (!userName) return options;
  if (process.getuid?.() !== 0) {
    throw new ShellOptionsError(
      `SUBAGENTS_BASH_USER=${userName} needs the worker to run as root (it starts each command as that user); unset it or run the worker as root.`,
    );
  }
  const entry = passwdEntry(userName);
  if (!entry)
    throw new ShellOptionsError(
      `SUBAGENTS_BASH_USER=${userName}: no such user on this machine (getent passwd ${userName} finds nothing).`,
    );
  return { ...options, user: entry };
}

function passwdEntry(name: string): ShellOptions['user'] {
  try {
    const line = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).trim();
    const [user, , uid, gid, , home] = line.split(':');
    if (!user || uid === undefined || gid === undefined) return undefined;
    return { name: user, uid: Number(uid), gid: Number(gid), home: home || '/' };
  } catch {
    return undefined;
  }
}
