// Installs what a local cluster lacks: PostgreSQL from apt, the Temporal server built with Go at the pinned version.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  binDir,
  pinnedTemporalServerVersion,
  serverBinariesStamp,
  sqlToolBinary,
  temporalServerBinary,
  temporalServerModule,
} from './paths';
import { run } from './processes';

export class ClusterInstallError extends Error {
  override name = 'ClusterInstallError';
}

type Log = (line: string) => void;

/** The newest PostgreSQL server installed from packages (its bin directory), if any. */
export function findPostgres(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter(
      (entry) =>
        existsSync(path.join(base, entry, 'bin', 'postgres')) && existsSync(path.join(base, entry, 'bin', 'initdb')),
    )
    .sort((left, right) => Number(right) - Number(left));
  return versions[0] ? path.join(base, versions[0], 'bin') : undefined;
}

/** PostgreSQL's bin directory, installing the `postgresql` package first when it is missing (root on Debian only). */
export function ensurePostgres(log: Log): string {
  const found = findPostgres();
  if (found) return found;
  const isRoot = process.getuid?.() === 0;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' }).status === 0;
  if (!isRoot || !hasApt) {
    throw new ClusterInstallError(
      'PostgreSQL (12 or newer) is not installed under /usr/lib/postgresql. Install it with your package manager ' +
        '(Debian/Ubuntu: `sudo apt-get install postgresql`), then run this again.',
    );
  }
  log('Installing PostgreSQL from the Debian packages (apt-get install postgresql)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env, what: 'apt-get update' });
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'postgresql'], {
    env,
    what: 'apt-get install postgresql',
  });
  const installed = findPostgres();
  if (!installed)
    throw new ClusterInstallError(
      'apt-get installed postgresql, but no server binaries were found under /usr/lib/postgresql.',
    );
  return installed;
}

function findGo(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  return existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined;
}

/** True when both binaries exist and were built from the pinned version. */
export function serverBinariesCurrent(): boolean {
  return (
    existsSync(temporalServerBinary) &&
    existsSync(sqlToolBinary) &&
    existsSync(serverBinariesStamp) &&
    readFileSync(serverBinariesStamp, 'utf8').trim() === `${temporalServerModule}@${pinnedTemporalServerVersion}`
  );
}

const goInstallAttempts = 3;

/** Builds `temporal-server` and `temporal-sql-tool` with `go install`, named as in the Temporal images. */
export function ensureServerBinaries(log: Log): void {
  if (serverBinariesCurrent()) return;
  const go = findGo();
  if (!go) {
    throw new ClusterInstallError(
      `Go is needed to build the Temporal server ${pinnedTemporalServerVersion} (https://go.dev/doc/install), ` +
        `or put temporal-server and temporal-sql-tool ${pinnedTemporalServerVersion} into ${binDir} yourself.`,
    );
  }
  mkdirSync(binDir, { recursive: true });
  const gobin = mkdtempSync(path.join(os.tmpdir(), 'subagents-temporal-server-'));
  const packages = [
    `${temporalServerModule}/cmd/server@${pinnedTemporalServerVersion}`,
    `${temporalServerModule}/cmd/tools/sql@${pinnedTemporalServerVersion}`,
  ];
  try {
    log(
      `Building the Temporal server ${pinnedTemporalServerVersion} and its SQL tool with Go into ${binDir} (first run only; 5-15 minutes)...`,
    );
    let last = { status: 1, output: '' };
    for (let attempt = 1; attempt <= goInstallAttempts; attempt += 1) {
      last = run(go, ['install', ...packages], {
        env: { ...process.env, GOBIN: gobin, CGO_ENABLED: '0' },
        what: 'go install',
        allowFailure: true,
      });
      if (last.status === 0) break;
      if (attempt < goInstallAttempts) {
        log(
          `go install failed (exit ${last.status}); trying again in ${attempt * 10} s (attempt ${attempt + 1} of ${goInstallAttempts})...`,
        );
        spawnSync('sleep', [String(attempt * 10)]);
      }
    }
    if (last.status !== 0) {
      throw new ClusterInstallError(
        `\`go install ${packages.join(' ')}\` failed ${goInstallAttempts} times:\n${last.output.split('\n').slice(-20).join('\n')}`,
      );
    }
    copyFileSync(path.join(gobin, 'server'), temporalServerBinary);
    copyFileSync(path.join(gobin, 'sql'), sqlToolBinary);
    chmodSync(temporalServerBinary, 0o755);
    chmodSync(sqlToolBinary, 0o755);
    writeFileSync(serverBinariesStamp, `${temporalServerModule}@${pinnedTemporalServerVersion}\n`);
    log(`Temporal server ${pinnedTemporalServerVersion}: ${temporalServerBinary}, ${sqlToolBinary}`);
  } finally {
    rmSync(gobin, { recursive: true, force: true });
  }
}
