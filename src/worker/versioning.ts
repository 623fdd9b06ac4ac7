/** A worker as a version of a worker deployment (docs/operations.md, "Upgrades"). */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import {
  countRunningAgents,
  describeDeployment,
  setCurrentVersion,
  versionKey,
  versionPollsQueue,
  VersionNotFound,
  type DeploymentVersion,
} from '../client/deployments';

/** Which deployment a worker serves and which build of it it is. */
export type WorkerVersion = DeploymentVersion;

/** Names Temporal accepts and that survive the `deployment:build` and `deployment.build` spellings. */
const deploymentNamePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const buildIdPattern = /^[A-Za-z0-9][A-Za-z0-9_+.-]{0,99}$/;

/** A deployment name, or an error that says what to give. */
export function parseDeploymentName(name: string, where: string): string {
  if (!deploymentNamePattern.test(name))
    throw new Error(
      `${where}: "${name}" is not a deployment name: 1-100 letters, digits, "-" and "_", starting with a letter or digit (for example "subagents").`,
    );
  return name;
}

/** A build id, or an error that says what to give. */
export function parseBuildId(buildId: string, where: string): string {
  if (!buildIdPattern.test(buildId))
    throw new Error(
      `${where}: "${buildId}" is not a build id: 1-100 letters, digits, ".", "+", "-" and "_", starting with a letter or digit (for example "1.4.0-3f2a9c1d0b7e"); omit it to derive one from the package version and the workflow bundle.`,
    );
  return buildId;
}

/** The default build id: the package version and the first 12 hex digits of the workflow bundle's SHA-256. */
export function defaultBuildId(packageVersion: string, bundleCode: string): string {
  return `${packageVersion}-${createHash('sha256').update(bundleCode).digest('hex').slice(0, 12)}`;
}

/** What the environment asks: SUBAGENTS_DEPLOYMENT (versioning on) and SUBAGENTS_BUILD_ID (else derived). */
export function versionRequestFromEnv(env: NodeJS.ProcessEnv): { deploymentName?: string; buildId?: string } {
  const deploymentName = env.SUBAGENTS_DEPLOYMENT?.trim();
  const buildId = env.SUBAGENTS_BUILD_ID?.trim();
  if (buildId && !deploymentName)
    throw new Error(
      'SUBAGENTS_BUILD_ID is set without SUBAGENTS_DEPLOYMENT: a build id names a version of a deployment; set both (docs/operations.md, "Upgrades").',
    );
  return {
    ...(deploymentName ? { deploymentName: parseDeploymentName(deploymentName, 'SUBAGENTS_DEPLOYMENT') } : {}),
    ...(buildId ? { buildId: parseBuildId(buildId, 'SUBAGENTS_BUILD_ID') } : {}),
  };
}

/** Worker options of a version: every agent run is pinned to the version it started on unless it hops. */
export function workerDeploymentOptions(version: WorkerVersion): WorkerDeploymentOptions {
  return { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' };
}

/** Half-second tries while the server learns of a new version from its pollers. */
const versionKnownAttempts = 40;

/**
 * A deployment's first version becomes current by itself, so that a fresh setup runs agents without a
 * `deploy promote`; never when agents started on unversioned workers still run (they would move onto
 * this code). Returns what happened, for the worker's log.
 */
export async function adoptIfNoCurrentVersion(
  client: Client,
  version: WorkerVersion,
  taskQueue: string,
): Promise<string> {
  // The server learns of a version from its pollers: wait until this one has polled its queue.
  for (let attempt = 0; !(await versionPollsQueue(client, version, taskQueue)); attempt++) {
    if (attempt >= versionKnownAttempts) throw new VersionNotFound(version);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const { currentBuildId } = await describeDeployment(client, version.deploymentName);
  const promote = `\`subagents deploy promote ${version.buildId} --deployment ${version.deploymentName}\``;
  if (currentBuildId === version.buildId) return `version ${versionKey(version)} is current`;
  if (currentBuildId !== undefined)
    return `version ${versionKey(version)} is not current (${currentBuildId} is): new agents start there until ${promote}`;
  const running = await countRunningAgents(client, 'none', [taskQueue]);
  if (running > 0)
    return `deployment ${version.deploymentName} has no current version and ${running} agent(s) started on unversioned workers still run: making ${version.buildId} current would move them onto this code; when they have ended, run ${promote}`;
  await setCurrentVersion(client, version);
  return `version ${versionKey(version)} made current: deployment ${version.deploymentName} had no current version`;
}
