import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/** The newest Temporal CLI tag that `go install` can build (later tags carry a `replace` directive). */
export const pinnedTemporalCliVersion = 'v1.5.1';

/** Repository root (two levels above this file). */
export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/** Where the project installs its own Temporal CLI. */
export const localTemporalCli = path.join(projectRoot, '.temporal', 'bin', 'temporal');

/** Attempts of `go install` before giving up (the module proxy can fail for a moment). */
const goInstallAttempts = 3;

export class TemporalCliUnavailable extends Error {
  override name = 'TemporalCliUnavailable';
}

function onPath(command: string): string | undefined {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const found = result.stdout.trim();
  return result.status === 0 && found ? found : undefined;
}

/** Finds the Temporal CLI: $TEMPORAL_CLI, then `temporal` on PATH, then .temporal/bin/temporal. */
export function findTemporalCli(): string | undefined {
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv) {
    if (!existsSync(fromEnv)) {
      throw new TemporalCliUnavailable(
        `TEMPORAL_CLI=${fromEnv} does not exist. Point it at a temporal binary or unset it.`,
      );
    }
    return fromEnv;
  }
  return onPath('temporal') ?? (existsSync(localTemporalCli) ? localTemporalCli : undefined);
}

/** Finds the Temporal CLI, building the pinned version with Go into .temporal/bin when none is found. */
export function ensureTemporalCli(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): string {
  const found = findTemporalCli();
  if (found) return found;
  const go = onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) {
    throw new TemporalCliUnavailable(
      'No Temporal CLI found ($TEMPORAL_CLI, `temporal` on PATH, .temporal/bin/temporal) and Go is not installed to build one.\n' +
        'Install the Temporal CLI (https://docs.temporal.io/cli#install, e.g. `brew install temporal`) ' +
        'or Go (https://go.dev/doc/install), or set TEMPORAL_CLI to a temporal binary.',
    );
  }
  const binDir = path.dirname(localTemporalCli);
  mkdirSync(binDir, { recursive: true });
  log(
    `Building the Temporal CLI ${pinnedTemporalCliVersion} with Go into ${binDir} (first run only; takes a few minutes)...`,
  );
  // The module proxy sometimes answers 503 for a moment: a few attempts, a little apart.
  let result = spawnSync('true');
  for (let attempt = 1; attempt <= goInstallAttempts; attempt += 1) {
    result = spawnSync(go, ['install', `github.com/temporalio/cli/cmd/temporal@${pinnedTemporalCliVersion}`], {
      env: { ...process.env, GOBIN: binDir },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (result.status === 0 && existsSync(localTemporalCli)) break;
    if (attempt < goInstallAttempts) {
      log(
        `go install failed (exit ${result.status}); trying again in ${attempt * 10} s (attempt ${attempt + 1} of ${goInstallAttempts})...`,
      );
      spawnSync('sleep', [String(attempt * 10)]);
    }
  }
  if (result.status !== 0 || !existsSync(localTemporalCli)) {
    throw new TemporalCliUnavailable(
      `\`GOBIN=${binDir} go install github.com/temporalio/cli/cmd/temporal@${pinnedTemporalCliVersion}\` failed ${goInstallAttempts} times (last exit ${result.status}). ` +
        'Check that the Go module proxy is reachable, or install the Temporal CLI yourself and set TEMPORAL_CLI.',
    );
  }
  log(`Temporal CLI installed at ${localTemporalCli}`);
  return localTemporalCli;
}
