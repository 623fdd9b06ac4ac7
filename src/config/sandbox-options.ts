// Whether a worker sandboxes agents' processes: on unless SUBAGENTS_SANDBOX=off, never a silent fallback (docs/security.md).
import { execFile } from 'node:child_process';
import { secretFileNames } from './secrets';

/** A worker's sandbox configuration. */
export interface SandboxOptions {
  /** `off` runs every process unconfined (SUBAGENTS_SANDBOX=off): an explicit, logged opt-out. */
  mode: 'on' | 'off';
  /** The bubblewrap executable (SUBAGENTS_BWRAP, default `bwrap` on PATH). */
  bwrap: string;
  /** Files no sandboxed process may see: the worker's secret files (`*_FILE` variables). */
  hiddenFiles: string[];
}

/** A sandbox setting an operator must fix before the worker starts. */
export class SandboxOptionsError extends Error {
  override readonly name = 'SandboxOptionsError';
}

/** Reads SUBAGENTS_SANDBOX (`on`, the default, or `off`) and SUBAGENTS_BWRAP. */
export function sandboxOptionsFromEnv(env: NodeJS.ProcessEnv): SandboxOptions {
  const raw = (env.SUBAGENTS_SANDBOX ?? 'on').trim().toLowerCase();
  const mode = ['on', '1', 'true', ''].includes(raw) ? 'on' : ['off', '0', 'false'].includes(raw) ? 'off' : undefined;
  if (!mode)
    throw new SandboxOptionsError(
      `SUBAGENTS_SANDBOX=${env.SUBAGENTS_SANDBOX}: use "on" (the default) or "off" (run Bash, hooks and MCP servers unconfined; docs/security.md).`,
    );
  const hiddenFiles = secretFileNames(env)
    .map((name) => env[name]?.trim())
    .filter((file): file is string => Boolean(file));
  return { mode, bwrap: env.SUBAGENTS_BWRAP?.trim() || 'bwrap', hiddenFiles };
}

/** The default when a caller gives none: on, bubblewrap from PATH, the process's own secret files hidden. */
export function defaultSandboxOptions(): SandboxOptions {
  return sandboxOptionsFromEnv(process.env);
}

const availability = new Map<string, Promise<string | undefined>>();

/** How to get a working sandbox, for every refusal. */
export const installAdvice =
  'Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap socat`; Fedora: `dnf install bubblewrap socat`) and make sure unprivileged user namespaces are allowed (or run the worker as root), or opt out explicitly with SUBAGENTS_SANDBOX=off (docs/security.md)';

/**
 * Undefined when bubblewrap can build a sandbox here, else why not; found out once per executable
 * by running `true` in the same kind of sandbox the tools use.
 */
export function sandboxProblem(options: SandboxOptions): Promise<string | undefined> {
  let known = availability.get(options.bwrap);
  if (!known) {
    known = new Promise((resolve) => {
      const args = [
        '--die-with-parent',
        '--unshare-pid',
        '--unshare-net',
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--',
        'true',
      ];
      execFile(options.bwrap, args, { timeout: 10_000 }, (error, _stdout, stderr) => {
        if (!error) return resolve(undefined);
        const code = (error as NodeJS.ErrnoException).code;
        resolve(
          code === 'ENOENT'
            ? `bubblewrap (${options.bwrap}) is not installed`
            : `bubblewrap cannot create a sandbox here: ${(stderr || error.message).trim()}`,
        );
      });
    });
    availability.set(options.bwrap, known);
  }
  return known;
}
