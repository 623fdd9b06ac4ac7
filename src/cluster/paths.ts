import path from 'node:path';
import { projectRoot } from '../dev/temporal-cli';

/** Where a local cluster lives; SUBAGENTS_CLUSTER_DIR moves its state (docs/operations.md). */

/** The Temporal server module and version the pinned Temporal CLI (v1.5.1) embeds. */
export const temporalServerModule = 'go.temporal.io/server';
export const pinnedTemporalServerVersion = 'v1.29.1';

export const binDir = path.join(projectRoot, '.temporal', 'bin');
/** `go.temporal.io/server/cmd/server`, named as in the temporalio/server image. */
export const temporalServerBinary = path.join(binDir, 'temporal-server');
/** `go.temporal.io/server/cmd/tools/sql`, named as in the temporalio/admin-tools image. */
export const sqlToolBinary = path.join(binDir, 'temporal-sql-tool');
/** Records which version the two binaries were built from (a pin change rebuilds them). */
export const serverBinariesStamp = path.join(binDir, 'temporal-server.version');

/** The server configuration shared with docker-compose.yml. */
export const deployDir = path.join(projectRoot, 'deploy', 'temporal');
export const serverConfigEnvironment = 'subagents';
export const composeFile = path.join(projectRoot, 'docker-compose.yml');

export function clusterDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.SUBAGENTS_CLUSTER_DIR || path.join(projectRoot, '.temporal', 'cluster'));
}

/** The files of one cluster directory. */
export function clusterPaths(dir: string) {
  return {
    dir,
    state: path.join(dir, 'state.json'),
    /** PostgreSQL's data directory and log, when its user can reach `dir` (else see postgresHome in postgres.ts). */
    postgres: path.join(dir, 'postgres'),
    logs: path.join(dir, 'logs'),
    workspaces: path.join(dir, 'workspaces'),
  };
}
export type ClusterPaths = ReturnType<typeof clusterPaths>;
