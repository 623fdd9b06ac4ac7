import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { searchAttributeRegistrations } from '../shared/protocol/search-attributes';
import { ensureTemporalCli, projectRoot } from './temporal-cli';

/** How to start a `temporal server start-dev`. */
export interface DevServerOptions {
  /** Frontend gRPC port; 0 picks a free one. */
  port: number;
  /** UI port; omitted or headless → no UI. */
  uiPort?: number;
  headless?: boolean;
  /** SQLite file; omitted → in-memory (state lost on exit). */
  dbFilename?: string;
  /** Extra `--dynamic-config-value KEY=JSON` entries. */
  dynamicConfig?: Record<string, unknown>;
  /** Extra raw arguments (e.g. `--ui-codec-endpoint URL`). */
  extraArgs?: string[];
  /** Where the server's output goes; omitted → a log file beside the DB (or ignored). */
  logFile?: string;
  /** Keep running after this process exits. */
  detached?: boolean;
}

/** A started (or reused) dev server. */
export interface DevServer {
  address: string;
  uiUrl?: string;
  /** The process when we started it; undefined when an existing server was reused. */
  process?: ChildProcess;
  stop(): Promise<void>;
}

/** Asks the OS for a free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** True when a Temporal frontend answers at the address. */
export async function temporalAnswers(address: string, timeoutMs = 1500): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: timeoutMs });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

/** Waits until the server answers, failing with a clear message after the deadline. */
export async function waitForTemporal(
  address: string,
  deadlineMs = 60_000,
  exited?: () => string | undefined,
): Promise<void> {
  const start = Date.now();
  while (Date.now() - start < deadlineMs) {
    const reason = exited?.();
    if (reason) throw new Error(`The Temporal dev server exited before it answered: ${reason}`);
    if (await temporalAnswers(address)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`The Temporal dev server at ${address} did not answer within ${deadlineMs} ms.`);
}

/** Registers the runtime's search attributes on a server that lacks them (idempotent). */
export async function registerSearchAttributes(address: string, namespace = 'default'): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const have = new Set(Object.keys(existing.customAttributes ?? {}));
    const typeCodes = { Keyword: 2, Int: 3 } as const; // temporal.api.enums.v1.IndexedValueType
    const missing = Object.entries(searchAttributeRegistrations).filter(([name]) => !have.has(name));
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, typeCodes[type]])),
    });
  } finally {
    await connection.close();
  }
}

/**
 * Dynamic configuration every dev server we start gets (the cluster's is deploy/temporal/dynamicconfig.yaml;
 * docs/operations.md, "Worker tuning"): eager activity dispatch, so an activity scheduled by a workflow
 * task comes back in that task's completion instead of waiting for a poll; and history queue readers
 * not held to 20 reads a second per shard (the dev server has one shard): past that, every step that
 * goes through the transfer queue — a child's start, a workflow task after a child or signal — waited
 * up to 50 ms for the next read.
 */
export const serverDefaults: Readonly<Record<string, unknown>> = {
  'system.enableActivityEagerExecution': true,
  'history.transferProcessorMaxPollRPS': 1000,
  'history.timerProcessorMaxPollRPS': 1000,
  'history.visibilityProcessorMaxPollRPS': 1000,
  // A version shows "drained" seconds after its last pinned agent closes, not minutes (subagents deploy drain --wait).
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '5s',
  'matching.wv.VersionDrainageStatusRefreshInterval': '2s',
};

/** The dev server could not listen: one of its ports is taken (by something that is not a Temporal server). */
export class DevServerPortInUse extends Error {
  override readonly name = 'DevServerPortInUse';
  constructor(
    readonly address: string,
    readonly logFile: string,
  ) {
    super(`${address} is already in use (see ${logFile})`);
  }
}

/** The address the server's log says it could not bind, from the last 8 KiB of the log. */
function boundAddressInLog(logFile: string): string | undefined {
  try {
    const fd = openSync(logFile, 'r');
    try {
      const size = fstatSync(fd).size;
      const buffer = Buffer.alloc(Math.min(size, 8192));
      readSync(fd, buffer, 0, buffer.length, Math.max(0, size - buffer.length));
      return /listen tcp ([^\s"]+?): bind: address already in use/.exec(buffer.toString('utf8'))?.[1];
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Starts `temporal server start-dev` with the runtime's search attributes and waits until it answers. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const cli = ensureTemporalCli();
  const port = options.port || (await freePort());
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn'];
  args.push('--http-port', String(await freePort()), '--metrics-port', String(await freePort()));
  if (options.headless || options.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (options.dbFilename) {
    mkdirSync(path.dirname(options.dbFilename), { recursive: true });
    args.push('--db-filename', options.dbFilename);
  }
  for (const [name, type] of Object.entries(searchAttributeRegistrations)) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  for (const [key, value] of Object.entries({ ...serverDefaults, ...options.dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  args.push(...(options.extraArgs ?? []));
  const logFile = options.logFile ?? path.join(projectRoot, '.temporal', `server-${port}.log`);
  mkdirSync(path.dirname(logFile), { recursive: true });
  const logFd = openSync(logFile, 'a');
  const child = spawn(cli, args, { stdio: ['ignore', logFd, logFd], detached: options.detached ?? false });
  let exitReason: string | undefined;
  child.on('exit', (code, signal) => {
    exitReason = `exit code ${code ?? 'none'}, signal ${signal ?? 'none'} (see ${logFile})`;
  });
  if (options.detached) child.unref();
  const address = `127.0.0.1:${port}`;
  try {
    await waitForTemporal(address, 90_000, () => exitReason);
  } catch (error) {
    child.kill('SIGKILL');
    const taken = exitReason === undefined ? undefined : boundAddressInLog(logFile);
    throw taken ? new DevServerPortInUse(taken, logFile) : error;
  }
  return {
    address,
    uiUrl: options.headless || options.uiPort === undefined ? undefined : `http://127.0.0.1:${options.uiPort}`,
    process: child,
    stop: () => stopProcess(child),
  };
}

/** Sends SIGTERM, then SIGKILL if the process is still alive after a grace period. */
export async function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
