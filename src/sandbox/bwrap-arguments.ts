// The bubblewrap command line of one sandboxed process: what it sees and writes (docs/security.md, "The sandbox").
import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { SandboxProfile, SandboxSettings } from '../shared/policy/sandbox';
import { isInside } from '../project/paths';

/** Where a model's command may look: the system, not the users' or the runtime's files. */
const systemPaths = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix', '/snap'];

/** Secrets of the system itself, masked even where the system is visible. */
const systemSecrets = [
  '/etc/shadow',
  '/etc/gshadow',
  '/etc/shadow-',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/sudoers.d',
  '/etc/ssl/private',
  '/etc/ssh/ssh_host_rsa_key',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_ed25519_key',
];

/** Credential locations in a home directory, masked for hooks and MCP servers (a command sees no home at all). */
export const homeSecrets = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.azure',
  '.kube',
  '.docker',
  '.config',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.claude.json',
  '.claude/.credentials.json',
  '.local/share/keyrings',
  '.password-store',
  '.temporal',
];

/** Home caches a hook or MCP server may fill (privately): `npx -y` servers need `~/.npm`. */
const serviceCaches = ['.npm', '.cache'];

/** Files inside a writable workspace that would let a command act outside the sandbox later (git hooks, settings with hooks). */
const protectedInWorkspace = [
  '.git/hooks',
  '.git/config',
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.claude/hooks',
  '.mcp.json',
];

/** What the sandbox of one process is built from. */
export interface SandboxRequest {
  profile: SandboxProfile;
  /** The agent's workspace root (its worktree when isolated): writable. */
  workspaceRoot: string;
  /** Where the process starts, inside the workspace. */
  cwd: string;
  /** The worker user's home: hidden for commands, its secret locations masked for services. */
  homeDir: string;
  settings?: SandboxSettings;
  /** Files the worker must keep from every process (its key files, from `*_FILE` variables). */
  hiddenFiles?: readonly string[];
  /** A directory holding the egress proxy's socket, made visible at the same path (commands only). */
  proxySocketDir?: string;
  /** The process shares the worker's network (services by default; commands never). */
  hostNetwork: boolean;
}

type Kind = 'dir' | 'file' | 'symlink' | undefined;

function kindOf(target: string): Kind {
  let stat: Stats;
  try {
    stat = lstatSync(target);
  } catch {
    return undefined;
  }
  return stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'dir' : 'file';
}

/** `~/x` → home; relative paths are taken from the workspace root. */
function resolveSetting(entry: string, request: SandboxRequest): string {
  if (entry === '~' || entry.startsWith('~/')) return path.join(request.homeDir, entry.slice(1));
  const plain = entry.startsWith('//') ? entry.slice(1) : entry;
  return path.resolve(request.workspaceRoot, plain);
}

/** A settings path without glob characters, or the directory before its first glob (`secrets/**` → `secrets`). */
function literalPart(entry: string): string | undefined {
  const index = entry.search(/[*?[{]/);
  if (index === -1) return entry;
  const prefix = entry.slice(0, index);
  return prefix.endsWith('/') && prefix.length > 1 ? prefix.slice(0, -1) : undefined;
}

/** The git directory shared by a worktree (`<repo>/.git`), when the workspace is a linked worktree. */
function worktreeCommonDir(workspaceRoot: string): string | undefined {
  const dotGit = path.join(workspaceRoot, '.git');
  if (kindOf(dotGit) !== 'file') return undefined;
  try {
    const gitDir = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    if (!gitDir) return undefined;
    const absolute = path.resolve(workspaceRoot, gitDir);
    const common = readFileSync(path.join(absolute, 'commondir'), 'utf8').trim();
    return path.resolve(absolute, common);
  } catch {
    return undefined;
  }
}

/** Masks a path that exists: an empty directory over a directory, /dev/null over a file. */
function mask(target: string): string[] {
  const kind = kindOf(target);
  if (kind === 'dir') return ['--tmpfs', target];
  if (kind === 'file') return ['--ro-bind', '/dev/null', target];
  return [];
}

function readOnly(target: string): string[] {
  return kindOf(target) ? ['--ro-bind', target, target] : [];
}

function realOrSelf(target: string): string {
  try {
    return realpathSync(target);
  } catch {
    return target;
  }
}

/**
 * Keeps a path below the writable roots from being written. No mount can sit on a symlink (bwrap fails, and with it
 * every command), so for one: the directory holding it goes read-only (the link cannot be swapped) unless that is a
 * root itself, and so does what it points to when that is writable here (never exposing what lies elsewhere).
 */
function protect(target: string, writableRoots: readonly string[]): string[] {
  const kind = kindOf(target);
  if (kind !== 'symlink') return kind ? ['--ro-bind', target, target] : [];
  const args: string[] = [];
  const parent = path.dirname(target);
  if (!writableRoots.includes(parent))
    args.push(...(kindOf(parent) === 'symlink' ? protect(parent, writableRoots) : ['--ro-bind', parent, parent]));
  let real: string;
  try {
    real = realpathSync(target);
    const stat = statSync(real);
    if (!stat.isFile() && !stat.isDirectory()) return args;
  } catch {
    return args;
  }
  if (writableRoots.some((root) => isInside(real, realOrSelf(root)))) args.push('--ro-bind', real, real);
  return args;
}

/** The arguments of `bwrap` (without the program to run) for one process. */
export function bwrapArguments(request: SandboxRequest): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
  ];
  if (!request.hostNetwork) args.push('--unshare-net');
  const filesystem = request.settings?.filesystem ?? {};
  const workspace = path.resolve(request.workspaceRoot);
  // Every host directory the process sees through a bind of its own: the home's credentials inside any of them are masked.
  const bound = [workspace];
  if (request.profile === 'command') {
    for (const system of systemPaths) {
      const kind = kindOf(system);
      if (kind === 'symlink') args.push('--symlink', readlinkSync(system), system);
      else if (kind === 'dir') args.push('--ro-bind', system, system);
    }
    args.push(
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--dir',
      '/var',
      '--tmpfs',
      '/var/tmp',
      '--tmpfs',
      request.homeDir,
    );
    for (const entry of filesystem.allowRead ?? []) {
      const target = resolveSetting(entry, request);
      if (kindOf(target)) bound.push(target);
      args.push(...readOnly(target));
    }
  } else {
    // Caches a later unconfined run would trust (npx, pip) get a private, empty copy instead of the real one.
    args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/var/tmp');
    for (const cache of serviceCaches)
      if (kindOf(path.join(request.homeDir, cache)) === 'dir') args.push('--tmpfs', path.join(request.homeDir, cache));
  }
  args.push('--bind', workspace, workspace);
  // A linked worktree's commits land in its repository's .git, outside the worktree.
  const common = worktreeCommonDir(workspace);
  if (common && kindOf(common) === 'dir') {
    args.push('--bind', common, common);
    bound.push(common);
  }
  const writable: string[] = [];
  for (const entry of filesystem.allowWrite ?? []) {
    const target = resolveSetting(entry, request);
    if (!kindOf(target)) continue;
    args.push('--bind', target, target);
    bound.push(target);
    writable.push(target);
  }
  const protectedPaths = [
    ...protectedInWorkspace.map((relative) => path.join(workspace, relative)),
    ...(common ? [path.join(common, 'hooks'), path.join(common, 'config')] : []),
  ];
  const writableRoots = [workspace, ...(common && kindOf(common) === 'dir' ? [common] : []), ...writable];
  for (const target of protectedPaths) args.push(...protect(target, writableRoots));
  for (const entry of filesystem.denyWrite ?? []) args.push(...protect(resolveSetting(entry, request), writableRoots));
  // Masks come after every bind, which could otherwise uncover them (a workspace at / or at home, `allowRead: ["~"]`).
  const home = path.resolve(request.homeDir);
  const credentials = homeSecrets
    .map((secret) => path.join(home, secret))
    .filter((secret) => request.profile === 'service' || bound.some((root) => isInside(secret, root)));
  const masked = [...systemSecrets, ...(request.hiddenFiles ?? []), ...credentials];
  for (const secret of masked) args.push(...mask(secret));
  for (const entry of filesystem.denyRead ?? []) {
    const literal = literalPart(entry);
    if (literal !== undefined) args.push(...mask(resolveSetting(literal, request)));
  }
  if (request.proxySocketDir) args.push('--bind', request.proxySocketDir, request.proxySocketDir);
  args.push('--chdir', path.resolve(request.cwd));
  return args;
}
