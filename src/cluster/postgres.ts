/**
 * The cluster's PostgreSQL: a private data directory and port on 127.0.0.1, no Unix socket, one
 * superuser `temporal` with a password. As root it runs as the `postgres` system user (PostgreSQL
 * refuses to run as root); otherwise as the current user.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnSync } from 'node:child_process';
import { run } from './processes';
import type { ClusterPaths } from './paths';

export const postgresUser = 'temporal';

interface PostgresOptions {
  bin: string;
  paths: ClusterPaths;
  port: number;
  password: string;
}

/** The system account that runs PostgreSQL when we are root, with its uid and gid. */
function serviceAccount(): { name: string; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  if (!Number.isInteger(uid) || uid <= 0) {
    throw new Error('Running as root, but there is no `postgres` system user to run PostgreSQL as (it comes with the postgresql package).');
  }
  return { name: 'postgres', uid, gid: id('-g') };
}

/** Runs a PostgreSQL program as the account that owns the data directory. */
function asOwner(program: string, args: string[], what: string, allowFailure = false) {
  const account = serviceAccount();
  return account ? run('runuser', ['-u', account.name, '--', program, ...args], { what, allowFailure }) : run(program, args, { what, allowFailure });
}

function own(target: string): void {
  const account = serviceAccount();
  if (account) chownSync(target, account.uid, account.gid);
}

/** Creates the data directory once (initdb); an existing one is kept with its databases. */
export function initPostgres({ bin, paths, password }: PostgresOptions): void {
  if (existsSync(path.join(paths.postgresData, 'PG_VERSION'))) return;
  rmSync(paths.postgresData, { recursive: true, force: true });
  mkdirSync(paths.postgresData, { recursive: true, mode: 0o700 });
  mkdirSync(paths.logs, { recursive: true });
  own(paths.postgresData);
  const passwordFile = path.join(paths.dir, `.pwfile-${process.pid}`);
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  own(passwordFile);
  try {
    asOwner(
      path.join(bin, 'initdb'),
      ['-D', paths.postgresData, '-U', postgresUser, `--pwfile=${passwordFile}`, '--auth-host=scram-sha-256', '--auth-local=scram-sha-256', '-E', 'UTF8', '--no-locale'],
      `initdb (as ${serviceAccount()?.name ?? 'the current user'}; the data directory's parents must be reachable by that user: set SUBAGENTS_CLUSTER_DIR elsewhere if not)`,
    );
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/** True when the server of this data directory answers on its port. */
export function postgresReady({ bin, port }: Pick<PostgresOptions, 'bin' | 'port'>): boolean {
  return spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'], { encoding: 'utf8' }).status === 0;
}

/** Starts PostgreSQL (pg_ctl, waits until it accepts connections). */
export async function startPostgres(options: PostgresOptions): Promise<void> {
  const { bin, paths, port } = options;
  if (postgresReady(options)) return;
  mkdirSync(paths.logs, { recursive: true });
  if (!existsSync(paths.postgresLog)) writeFileSync(paths.postgresLog, '');
  chmodSync(paths.postgresLog, 0o644);
  own(paths.postgresLog);
  const settings = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200`;
  asOwner(path.join(bin, 'pg_ctl'), ['-D', paths.postgresData, '-l', paths.postgresLog, '-o', settings, '-w', '-t', '120', 'start'], `PostgreSQL start (log: ${paths.postgresLog})`);
  for (let waited = 0; !postgresReady(options); waited += 200) {
    if (waited > 60_000) throw new Error(`PostgreSQL on 127.0.0.1:${port} does not accept connections (log: ${paths.postgresLog}).`);
    await sleep(200);
  }
}

/** Stops PostgreSQL if it runs (fast shutdown: open transactions are rolled back). */
export function stopPostgres({ bin, paths }: Pick<PostgresOptions, 'bin' | 'paths'>): void {
  if (!existsSync(path.join(paths.postgresData, 'postmaster.pid'))) return;
  asOwner(path.join(bin, 'pg_ctl'), ['-D', paths.postgresData, '-m', 'fast', '-w', '-t', '60', 'stop'], 'PostgreSQL stop', true);
}
