// The cluster's private PostgreSQL on 127.0.0.1; as root it runs as `postgres`, since PostgreSQL refuses root.
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
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
    throw new Error(
      'Running as root, but there is no `postgres` system user to run PostgreSQL as (it comes with the postgresql package).',
    );
  }
  return { name: 'postgres', uid, gid: id('-g') };
}

/** PostgreSQL's data and log dir, under the temp dir when the `postgres` user cannot reach the cluster dir. */
export function postgresHome(paths: ClusterPaths): { data: string; log: string; home: string } {
  const inCluster = {
    home: paths.postgres,
    data: path.join(paths.postgres, 'data'),
    log: path.join(paths.postgres, 'postgres.log'),
  };
  const account = serviceAccount();
  if (!account) return inCluster;
  mkdirSync(paths.dir, { recursive: true });
  const reachable = spawnSync('runuser', ['-u', account.name, '--', 'test', '-x', paths.dir]).status === 0;
  if (reachable) return inCluster;
  const home = path.join(
    os.tmpdir(),
    `subagents-postgres-${createHash('sha256').update(paths.dir).digest('hex').slice(0, 12)}`,
  );
  return { home, data: path.join(home, 'data'), log: path.join(home, 'postgres.log') };
}

/** Runs a PostgreSQL program as the account that owns the data directory. */
function asOwner(program: string, args: string[], what: string, allowFailure = false) {
  const account = serviceAccount();
  return account
    ? run('runuser', ['-u', account.name, '--', program, ...args], { what, allowFailure })
    : run(program, args, { what, allowFailure });
}

function own(target: string): void {
  const account = serviceAccount();
  if (account) chownSync(target, account.uid, account.gid);
}

/** Creates the data directory once (initdb); an existing one is kept with its databases. */
export function initPostgres({ bin, paths, password }: PostgresOptions): void {
  const { home, data } = postgresHome(paths);
  if (existsSync(path.join(data, 'PG_VERSION'))) return;
  rmSync(data, { recursive: true, force: true });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  own(home);
  mkdirSync(data, { recursive: true, mode: 0o700 });
  own(data);
  const passwordFile = path.join(home, `.pwfile-${process.pid}`);
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  own(passwordFile);
  try {
    asOwner(
      path.join(bin, 'initdb'),
      [
        '-D',
        data,
        '-U',
        postgresUser,
        `--pwfile=${passwordFile}`,
        '--auth-host=scram-sha-256',
        '--auth-local=scram-sha-256',
        '-E',
        'UTF8',
        '--no-locale',
      ],
      `initdb of ${data} (as ${serviceAccount()?.name ?? 'the current user'})`,
    );
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/** True when the server of this data directory answers on its port. */
export function postgresReady({ bin, port }: Pick<PostgresOptions, 'bin' | 'port'>): boolean {
  return (
    spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'], { encoding: 'utf8' })
      .status === 0
  );
}

/** Starts PostgreSQL (pg_ctl, waits until it accepts connections). */
export async function startPostgres(options: PostgresOptions): Promise<void> {
  const { bin, paths, port } = options;
  if (postgresReady(options)) return;
  const { data, log } = postgresHome(paths);
  if (!existsSync(log)) writeFileSync(log, '');
  chmodSync(log, 0o644);
  own(log);
  const settings = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200`;
  asOwner(
    path.join(bin, 'pg_ctl'),
    ['-D', data, '-l', log, '-o', settings, '-w', '-t', '120', 'start'],
    `PostgreSQL start (log: ${log})`,
  );
  for (let waited = 0; !postgresReady(options); waited += 200) {
    if (waited > 60_000) throw new Error(`PostgreSQL on 127.0.0.1:${port} does not accept connections (log: ${log}).`);
    await sleep(200);
  }
}

/** Stops PostgreSQL if it runs (fast shutdown: open transactions are rolled back). */
export function stopPostgres({ bin, paths }: Pick<PostgresOptions, 'bin' | 'paths'>): void {
  const { data } = postgresHome(paths);
  if (!existsSync(path.join(data, 'postmaster.pid'))) return;
  asOwner(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop'], 'PostgreSQL stop', true);
}

/** Deletes PostgreSQL's data (after stopPostgres). */
export function removePostgresData(paths: ClusterPaths): void {
  rmSync(postgresHome(paths).home, { recursive: true, force: true });
}
