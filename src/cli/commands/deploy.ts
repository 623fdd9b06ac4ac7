import { isGrpcServiceError, type Client } from '@temporalio/client';
import {
  clearRampingVersion,
  countRunningAgents,
  DeploymentNotFound,
  describeDeployment,
  describeVersion,
  runningAgentIds,
  setCurrentVersion,
  setRampingVersion,
  VersionNotFound,
  type DeploymentDescription,
  type DeploymentVersion,
} from '../../client/deployments';
import { upgradeSignal } from '../../shared/protocol/definitions';
import { parseDeployArgs, type DeployRequest } from '../deploy-args';
import { CliError, ExitCode } from '../exit-codes';
import { connectTemporal } from '../temporal-session';

// `subagents deploy`: roll a new worker version out over running agent trees (docs/operations.md, "Upgrades").

const pollMs = 1000;

/** The deployment, or CliError exit 4 saying how its workers start. */
async function deploymentOrExit(temporal: Client, deploymentName: string): Promise<DeploymentDescription> {
  try {
    return await describeDeployment(temporal, deploymentName);
  } catch (error) {
    if (error instanceof DeploymentNotFound) throw new CliError(error.message, ExitCode.notFound);
    throw error;
  }
}

/** The build as a version of the deployment, or CliError exit 4 when no worker of it ever polled. */
function versionOrExit(deployment: DeploymentDescription, buildId: string): DeploymentVersion {
  const version = { deploymentName: deployment.deploymentName, buildId };
  if (!deployment.versions.some((summary) => summary.buildId === buildId))
    throw new CliError(new VersionNotFound(version).message, ExitCode.notFound);
  return version;
}

/** The workflow task queues any version of the deployment polled: where its agents without a version run. */
async function deploymentTaskQueues(temporal: Client, deployment: DeploymentDescription): Promise<string[]> {
  const queues = new Set<string>();
  for (const summary of deployment.versions) {
    const version = { deploymentName: deployment.deploymentName, buildId: summary.buildId };
    for (const queue of (await describeVersion(temporal, version)).workflowTaskQueues) queues.add(queue);
  }
  return [...queues];
}

/** Sends the upgrade notice to every running agent on these versions; agents that closed meanwhile are skipped. */
async function signalUpgrade(temporal: Client, versions: DeploymentVersion[], currentBuildId: string): Promise<number> {
  let sent = 0;
  for (const version of versions) {
    for (const agentId of await runningAgentIds(temporal, version)) {
      // Best effort: each agent decides whether it moves; one that just finished needs no notice.
      const delivered = await temporal.workflow
        .getHandle(agentId)
        .signal(upgradeSignal, { buildId: currentBuildId })
        .then(
          () => true,
          () => false,
        );
      if (delivered) sent++;
    }
  }
  return sent;
}

async function status(temporal: Client, request: Extract<DeployRequest, { action: 'status' }>): Promise<number> {
  const deployment = await deploymentOrExit(temporal, request.deploymentName);
  // Each version's own describe: the deployment's summaries lag behind its drainage by seconds.
  const described = await Promise.all(
    deployment.versions.map((summary) =>
      describeVersion(temporal, { deploymentName: deployment.deploymentName, buildId: summary.buildId }),
    ),
  );
  const versions = await Promise.all(
    described.map(
      async ({ workflowTaskQueues: _queues, deploymentName: _name, rampPercentage: _ramp, ...version }) => ({
        ...version,
        runningAgents: await countRunningAgents(temporal, {
          deploymentName: deployment.deploymentName,
          buildId: version.buildId,
        }),
      }),
    ),
  );
  const queues = [...new Set(described.flatMap((version) => version.workflowTaskQueues))];
  const unversionedRunningAgents = await countRunningAgents(temporal, 'none', queues);
  if (request.json) {
    console.log(JSON.stringify({ ...deployment, versions, unversionedRunningAgents }));
    return ExitCode.ok;
  }
  const lines = [
    `deployment ${deployment.deploymentName}`,
    `current: ${deployment.currentBuildId ?? '(none: new agents go to unversioned workers)'}`,
    `ramping: ${deployment.ramping ? `${deployment.ramping.buildId} at ${deployment.ramping.percentage}%` : '(none)'}`,
    'versions:',
    ...versions.map(
      (version) =>
        `  ${version.buildId}  ${version.status}${version.drainage && version.drainage !== version.status ? ` (${version.drainage})` : ''}  ${version.runningAgents} running agent(s)`,
    ),
    `running agents on no version (started before versioning): ${unversionedRunningAgents}`,
  ];
  console.log(lines.join('\n'));
  return ExitCode.ok;
}

async function ramp(temporal: Client, request: Extract<DeployRequest, { action: 'ramp' }>): Promise<number> {
  const deployment = await deploymentOrExit(temporal, request.deploymentName);
  const version = versionOrExit(deployment, request.buildId);
  if (deployment.currentBuildId === request.buildId)
    throw new CliError(`${request.buildId} is already current in ${deployment.deploymentName}: nothing to ramp.`);
  await setRampingVersion(temporal, version, request.percent).catch(refusedForPollers(version, 'ramp to'));
  console.log(
    request.json
      ? JSON.stringify({
          deploymentName: deployment.deploymentName,
          ramping: { buildId: request.buildId, percentage: request.percent },
        })
      : `${request.percent}% of new agents in ${deployment.deploymentName} now start on ${request.buildId} (the rest on ${deployment.currentBuildId ?? 'unversioned workers'}).`,
  );
  return ExitCode.ok;
}

async function rampStop(temporal: Client, request: Extract<DeployRequest, { action: 'ramp-stop' }>): Promise<number> {
  const deployment = await deploymentOrExit(temporal, request.deploymentName);
  if (deployment.ramping) await clearRampingVersion(temporal, deployment.deploymentName);
  console.log(
    request.json
      ? JSON.stringify({ deploymentName: deployment.deploymentName, stopped: deployment.ramping ?? null })
      : deployment.ramping
        ? `Stopped the ramp to ${deployment.ramping.buildId}: new agents start on ${deployment.currentBuildId ?? 'unversioned workers'}.`
        : `${deployment.deploymentName} had no ramp.`,
  );
  return ExitCode.ok;
}

/** Turns the server's refusal of a version without pollers (it forgets stopped workers after minutes) into what to do. */
function refusedForPollers(version: DeploymentVersion, verb: string): (error: unknown) => never {
  return (error) => {
    const said = isGrpcServiceError(error) ? (error.details ?? error.message) : '';
    if (/missing active task queues/i.test(said)) {
      // Its workers started a moment ago (each queue registers on its first poll), or they poll fewer queues.
      throw new CliError(
        `Build ${version.buildId} does not poll every task queue of the current version yet (the server said: ${said}). ` +
          `If its workers just started, ${verb} it again in a few seconds; otherwise start workers of it on the missing queues (subagents worker --deployment ${version.deploymentName} --build-id ${version.buildId}, SUBAGENTS_TASK_QUEUE).`,
        ExitCode.agentUnsuccessful,
      );
    }
    if (isGrpcServiceError(error) && /poller|not found/i.test(said)) {
      throw new CliError(
        `No worker of build ${version.buildId} polls deployment ${version.deploymentName} (the server said: ${said}): agents sent to it would wait. ` +
          `Start one with \`subagents worker --deployment ${version.deploymentName} --build-id ${version.buildId}\`, then ${verb} it again.`,
        ExitCode.agentUnsuccessful,
      );
    }
    throw error;
  };
}

async function promote(temporal: Client, request: Extract<DeployRequest, { action: 'promote' }>): Promise<number> {
  const deployment = await deploymentOrExit(temporal, request.deploymentName);
  const version = versionOrExit(deployment, request.buildId);
  const unversioned = await countRunningAgents(temporal, 'none', await deploymentTaskQueues(temporal, deployment));
  if (unversioned > 0 && !request.force) {
    throw new CliError(
      `${unversioned} running agent(s) on the deployment's task queues have no version (started before versioning): ` +
        `they would move onto ${request.buildId} at their next workflow task, whose code may not replay their history. ` +
        'Wait for them to finish (subagents ls), or pass --force if this build still replays them.',
      ExitCode.agentUnsuccessful,
    );
  }
  if (deployment.currentBuildId !== request.buildId)
    await setCurrentVersion(temporal, version).catch(refusedForPollers(version, 'promote'));
  const others = deployment.versions
    .filter((summary) => summary.buildId !== request.buildId)
    .map((summary) => ({ deploymentName: deployment.deploymentName, buildId: summary.buildId }));
  const signalled = await signalUpgrade(temporal, others, request.buildId);
  console.log(
    request.json
      ? JSON.stringify({ deploymentName: deployment.deploymentName, currentBuildId: request.buildId, signalled })
      : `${request.buildId} is current in ${deployment.deploymentName}${deployment.currentBuildId === request.buildId ? ' (it already was)' : ''}. ` +
          `Sent the upgrade notice to ${signalled} running agent(s) on other versions: long and interactive ones move at their next turn boundary, the others finish where they started.`,
  );
  return ExitCode.ok;
}

/** The version's drainage; a version the server no longer has (deleted once drained) has nothing left on it. */
async function drainageNow(temporal: Client, version: DeploymentVersion): Promise<string | undefined> {
  try {
    return (await describeVersion(temporal, version)).drainage;
  } catch (error) {
    if (error instanceof VersionNotFound) return 'drained';
    throw error;
  }
}

async function drain(temporal: Client, request: Extract<DeployRequest, { action: 'drain' }>): Promise<number> {
  const deployment = await deploymentOrExit(temporal, request.deploymentName);
  const version = versionOrExit(deployment, request.buildId);
  if (deployment.currentBuildId === request.buildId || deployment.ramping?.buildId === request.buildId) {
    const role = deployment.currentBuildId === request.buildId ? 'current' : 'ramping';
    throw new CliError(
      `${request.buildId} is the ${role} version of ${deployment.deploymentName}: new agents still start on it. ` +
        `Promote another build first (subagents deploy promote BUILD${role === 'ramping' ? ', or subagents deploy ramp --stop' : ''}).`,
      ExitCode.agentUnsuccessful,
    );
  }
  const signalled = deployment.currentBuildId ? await signalUpgrade(temporal, [version], deployment.currentBuildId) : 0;
  let pinned = await runningAgentIds(temporal, version);
  if (!request.json) {
    console.log(`Sent the upgrade notice to ${signalled} running agent(s) on ${request.buildId}.`);
    console.log(
      pinned.length ? `Still on ${request.buildId}: ${pinned.join(', ')}` : `No running agent on ${request.buildId}.`,
    );
  }
  let drainage = await drainageNow(temporal, version);
  if (request.wait) {
    const deadline = performance.now() + request.timeoutSeconds * 1000;
    while ((pinned.length > 0 || drainage !== 'drained') && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      pinned = await runningAgentIds(temporal, version);
      drainage = await drainageNow(temporal, version);
    }
  }
  const drained = pinned.length === 0 && drainage === 'drained';
  if (request.json)
    console.log(
      JSON.stringify({
        deploymentName: deployment.deploymentName,
        buildId: request.buildId,
        signalled,
        drainage: drainage ?? null,
        runningAgents: pinned,
      }),
    );
  else if (request.wait && drained) console.log(`${request.buildId} is drained: its workers can stop.`);
  else if (request.wait)
    console.log(
      `${request.buildId} is not drained after ${request.timeoutSeconds} s (${drainage ?? 'no drainage status'}; ${pinned.length} running agent(s): ${pinned.join(', ') || '-'}). ` +
        'Keep its workers up; wait longer, or stop those agents (subagents stop ID).',
    );
  return request.wait && !drained ? ExitCode.agentUnsuccessful : ExitCode.ok;
}

/** `subagents deploy status|ramp|promote|drain`: roll a worker version out over running agents. */
export async function deployCommand(argv: string[]): Promise<number> {
  const request = parseDeployArgs(argv);
  const session = await connectTemporal();
  try {
    switch (request.action) {
      case 'status':
        return await status(session.temporal, request);
      case 'ramp':
        return await ramp(session.temporal, request);
      case 'ramp-stop':
        return await rampStop(session.temporal, request);
      case 'promote':
        return await promote(session.temporal, request);
      case 'drain':
        return await drain(session.temporal, request);
    }
  } finally {
    await session.close();
  }
}
