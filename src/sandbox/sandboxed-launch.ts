// A program to run for an agent, turned into bwrap running it, with the egress proxy where needed (docs/security.md).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ErrorType, errorText } from '../shared/protocol/errors';
import type { SandboxProfile, SandboxSettings } from '../shared/policy/sandbox';
import { bwrapArguments } from './bwrap-arguments';
import { defaultSandboxOptions, installAdvice, sandboxProblem, type SandboxOptions } from '../config/sandbox-options';

/** What to spawn, and what to release once the process has ended. */
export interface SandboxedLaunch {
  file: string;
  args: string[];
  /** Variables to add to the process's environment (the proxy's address). */
  env: Record<string, string>;
  /** True when the process runs confined. */
  sandboxed: boolean;
  /** Stops the egress proxy and removes its socket; safe to call twice. */
  release(): Promise<void>;
  /** Hosts the egress proxy refused during the run, for the result the model reads. */
  refusedHosts(): string[];
}

/** Bash, a hook or an MCP server that could not be confined, so it did not run. */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
  readonly type = ErrorType.SandboxUnavailable;
  constructor(problem: string, what: string) {
    super(errorText(ErrorType.SandboxUnavailable, `${problem}, so ${what} was not run. ${installAdvice}.`));
  }
}

/** Where and as what a process runs. */
export interface LaunchRequest {
  profile: SandboxProfile;
  workspaceRoot: string;
  cwd: string;
  homeDir?: string;
  settings?: SandboxSettings;
  /** Named in the refusal when the sandbox is missing ("the command", "the hook `x`"). */
  what: string;
}

/** The loopback port inside the sandbox where `socat` relays to the proxy's socket. */
const proxyPort = 3128;

/** Waits until the relay listens, then runs the program: a command never starts before its proxy. */
const relayScript = [
  `socat TCP-LISTEN:${proxyPort},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:"$PROXY_SOCKET" 2>/dev/null &`,
  `for attempt in $(seq 1 200); do (exec 3<>/dev/tcp/127.0.0.1/${proxyPort}) 2>/dev/null && break; sleep 0.01; done`,
  'unset PROXY_SOCKET',
  'exec "$@"',
].join('\n');

function proxyEnvironment(): Record<string, string> {
  const url = `http://127.0.0.1:${proxyPort}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: '',
    no_proxy: '',
  };
}

/** The launch of `argv` (program first) as request and options call for; only an explicit `off` runs it unconfined. */
export async function launchSandboxed(
  argv: readonly [string, ...string[]],
  request: LaunchRequest,
  given?: SandboxOptions,
): Promise<SandboxedLaunch> {
  const [program, ...rest] = argv;
  const unconfined: SandboxedLaunch = {
    file: program,
    args: rest,
    env: {},
    sandboxed: false,
    release: async () => undefined,
    refusedHosts: () => [],
  };
  const options = given ?? defaultSandboxOptions();
  if (options.mode === 'off') return unconfined;
  const problem = await sandboxProblem(options);
  if (problem) throw new SandboxUnavailableError(problem, request.what);
  const network = request.settings?.network;
  const proxied = request.profile === 'command' && (network?.allowedDomains?.length ?? 0) > 0;
  let release = async (): Promise<void> => undefined;
  let refusedHosts = (): string[] => [];
  let proxySocketDir: string | undefined;
  const env: Record<string, string> = {};
  if (proxied) {
    proxySocketDir = await fs.mkdtemp(path.join(os.tmpdir(), 'subagents-egress-'));
    const socketPath = path.join(proxySocketDir, 'proxy.sock');
    const { startEgressProxy } = await import('./egress-proxy');
    const proxy = await startEgressProxy({
      socketPath,
      allowedDomains: network?.allowedDomains ?? [],
      ...(network?.deniedDomains ? { deniedDomains: network.deniedDomains } : {}),
    });
    refusedHosts = () => [...new Set(proxy.stats().refusedHosts)];
    let released = false;
    release = async () => {
      if (released) return;
      released = true;
      await proxy.close().catch(() => undefined);
      await fs.rm(proxySocketDir!, { recursive: true, force: true });
    };
    Object.assign(env, proxyEnvironment(), { PROXY_SOCKET: socketPath });
  }
  const args = bwrapArguments({
    profile: request.profile,
    workspaceRoot: request.workspaceRoot,
    cwd: request.cwd,
    homeDir: request.homeDir ?? os.homedir(),
    ...(request.settings ? { settings: request.settings } : {}),
    hiddenFiles: options.hiddenFiles,
    ...(proxySocketDir ? { proxySocketDir } : {}),
    hostNetwork: request.profile === 'service',
  });
  // A service sees /tmp read-only: its scratch space is the private /var/tmp.
  if (request.profile === 'service') Object.assign(env, { TMPDIR: '/var/tmp' });
  const inner = proxied ? ['bash', '-c', relayScript, 'relay', program, ...rest] : [program, ...rest];
  return {
    file: options.bwrap,
    args: [...args, '--', ...inner],
    env,
    sandboxed: true,
    release,
    refusedHosts: () => refusedHosts(),
  };
}
