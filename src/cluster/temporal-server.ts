import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { temporalAnswers } from '../dev/dev-server';
import { temporalServerArgs, temporalServerEnvironment } from './compose-steps';
import { deployDir, temporalServerBinary, type ClusterPaths } from './paths';
import { pidAlive, spawnDetached, stopProcessGroup } from './processes';
import type { ClusterState } from './state';

export const serverLogFile = (paths: ClusterPaths): string => path.join(paths.logs, 'temporal-server.log');
export const frontendAddress = (state: ClusterState): string => `127.0.0.1:${state.ports.frontend}`;

/** Starts the Temporal server (all services, one process) on the cluster's ports and waits until its frontend answers. */
export async function startTemporalServer(paths: ClusterPaths, state: ClusterState): Promise<number> {
  const env = {
    ...process.env,
    ...temporalServerEnvironment({ postgresPort: state.postgresPort, password: state.password, ports: state.ports }),
  };
  const logFile = serverLogFile(paths);
  const pid = spawnDetached(temporalServerBinary, temporalServerArgs(deployDir), { env, logFile, cwd: paths.dir });
  const address = frontendAddress(state);
  const deadline = Date.now() + 180_000;
  while (!(await temporalAnswers(address))) {
    if (!pidAlive(pid))
      throw new Error(`The Temporal server exited before it answered at ${address} (see ${logFile}).`);
    if (Date.now() > deadline) {
      await stopProcessGroup(pid);
      throw new Error(`The Temporal server did not answer at ${address} within 3 minutes (see ${logFile}).`);
    }
    await sleep(500);
  }
  return pid;
}

/** Stops the server gracefully (SIGTERM, then SIGKILL after 20 s). */
export function stopTemporalServer(pid: number | undefined): Promise<void> {
  return stopProcessGroup(pid, 20_000);
}
