import { isGrpcServiceError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import proto from '@temporalio/proto';

// Typed wrappers over the worker deployment calls of the gRPC API (docs/operations.md, "Upgrades"), and where an agent runs.

const enums = proto.temporal.api.enums.v1;
const grpcNotFound = 5;

/** One version of a worker deployment: the workers started with `--deployment NAME --build-id ID`. */
export interface DeploymentVersion {
  deploymentName: string;
  buildId: string;
}

/** Whether pinned agents still run on a version that is neither current nor ramping. */
export type DrainageStatus = 'draining' | 'drained';

/** Where a version stands in its deployment. */
export type VersionStatus = 'inactive' | 'current' | 'ramping' | 'draining' | 'drained' | 'unspecified';

/** One version as its deployment describes it. */
export interface VersionSummary {
  buildId: string;
  status: VersionStatus;
  /** Absent while the version is current or ramping, or before it ever was. */
  drainage?: DrainageStatus;
  createTime?: Date;
}

/** A worker deployment: what new agents start on (current, ramping) and every version it knows. */
export interface DeploymentDescription {
  deploymentName: string;
  /** Absent: new agents go to unversioned workers. */
  currentBuildId?: string;
  ramping?: { buildId: string; percentage: number };
  versions: VersionSummary[];
}

/** One version in detail: its task queues and drainage. */
export interface VersionDescription extends VersionSummary {
  deploymentName: string;
  rampPercentage: number;
  /** The workflow task queues the version's workers polled. */
  workflowTaskQueues: string[];
}

/** The deployment is unknown to the server: no versioned worker of it has polled. */
export class DeploymentNotFound extends Error {
  override readonly name = 'DeploymentNotFound';
  constructor(readonly deploymentName: string) {
    super(
      `No worker deployment "${deploymentName}": no versioned worker of it has polled. ` +
        `Start one with \`subagents worker --deployment ${deploymentName} --build-id BUILD\`, or check the name (SUBAGENTS_DEPLOYMENT).`,
    );
  }
}

/** The build is not a version of the deployment: no worker of it has polled. */
export class VersionNotFound extends Error {
  override readonly name = 'VersionNotFound';
  constructor(readonly version: DeploymentVersion) {
    super(
      `Build "${version.buildId}" is not a version of deployment "${version.deploymentName}": no worker of it has polled. ` +
        `Start one with \`subagents worker --deployment ${version.deploymentName} --build-id ${version.buildId}\`, or check the build id (subagents deploy status).`,
    );
  }
}

/** "deployment:build", as the TemporalWorkerDeploymentVersion search attribute spells a version. */
export function versionKey(version: DeploymentVersion): string {
  return `${version.deploymentName}:${version.buildId}`;
}

/** The version of a "deployment:build" string (the build id may itself hold colons), or undefined. */
export function parseVersionKey(key: string | undefined): DeploymentVersion | undefined {
  const at = key?.indexOf(':') ?? -1;
  if (!key || at <= 0 || at === key.length - 1) return undefined;
  return { deploymentName: key.slice(0, at), buildId: key.slice(at + 1) };
}

function versionStatusOf(status: number | null | undefined): VersionStatus {
  const names: Record<number, VersionStatus> = {
    [enums.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_INACTIVE]: 'inactive',
    [enums.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT]: 'current',
    [enums.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING]: 'ramping',
    [enums.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING]: 'draining',
    [enums.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINED]: 'drained',
  };
  return names[status ?? 0] ?? 'unspecified';
}

function drainageOf(status: number | null | undefined): DrainageStatus | undefined {
  if (status === enums.VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINING) return 'draining';
  if (status === enums.VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED) return 'drained';
  return undefined;
}

function dateOf(
  timestamp: { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined,
) {
  if (!timestamp?.seconds) return undefined;
  const seconds = typeof timestamp.seconds === 'number' ? timestamp.seconds : timestamp.seconds.toNumber();
  return new Date(seconds * 1000 + Math.floor((timestamp.nanos ?? 0) / 1e6));
}

const isNotFound = (error: unknown): boolean => isGrpcServiceError(error) && error.code === grpcNotFound;

/** Tries of a describe that says "not found", a quarter second apart. */
const notFoundTries = 8;

/**
 * Runs a describe, again while it says "not found": the server keeps each deployment and version in a workflow of its
 * own, and a describe can miss it for a moment (seen on 1.29.1 right after a version registered or drained).
 */
async function describeRetryingNotFound<T>(describe: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await describe();
    } catch (error) {
      if (!isNotFound(error) || attempt >= notFoundTries) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** The deployment's routing (current, ramping) and its versions; DeploymentNotFound when the server does not know it (after 2 s of tries). */
export async function describeDeployment(client: Client, deploymentName: string): Promise<DeploymentDescription> {
  let response;
  try {
    response = await describeRetryingNotFound(() =>
      client.workflowService.describeWorkerDeployment({ namespace: client.options.namespace, deploymentName }),
    );
  } catch (error) {
    if (isNotFound(error)) throw new DeploymentNotFound(deploymentName);
    throw error;
  }
  const info = response.workerDeploymentInfo;
  const routing = info?.routingConfig;
  const currentBuildId = routing?.currentDeploymentVersion?.buildId || undefined;
  const rampingBuildId = routing?.rampingDeploymentVersion?.buildId || undefined;
  return {
    deploymentName,
    ...(currentBuildId ? { currentBuildId } : {}),
    ...(rampingBuildId
      ? { ramping: { buildId: rampingBuildId, percentage: routing?.rampingVersionPercentage ?? 0 } }
      : {}),
    versions: (info?.versionSummaries ?? []).map((summary) => {
      const drainage = drainageOf(summary.drainageInfo?.status ?? summary.drainageStatus);
      const createTime = dateOf(summary.createTime);
      return {
        buildId: summary.deploymentVersion?.buildId ?? '',
        status: versionStatusOf(summary.status),
        ...(drainage ? { drainage } : {}),
        ...(createTime ? { createTime } : {}),
      };
    }),
  };
}

/** One version's status, drainage and task queues; VersionNotFound when no worker of it has polled (after 2 s of tries). */
export async function describeVersion(client: Client, version: DeploymentVersion): Promise<VersionDescription> {
  let response;
  try {
    response = await describeRetryingNotFound(() =>
      client.workflowService.describeWorkerDeploymentVersion({
        namespace: client.options.namespace,
        deploymentVersion: version,
      }),
    );
  } catch (error) {
    if (isNotFound(error)) throw new VersionNotFound(version);
    throw error;
  }
  const info = response.workerDeploymentVersionInfo;
  const drainage = drainageOf(info?.drainageInfo?.status);
  const createTime = dateOf(info?.createTime);
  return {
    deploymentName: version.deploymentName,
    buildId: version.buildId,
    status: versionStatusOf(info?.status),
    ...(drainage ? { drainage } : {}),
    ...(createTime ? { createTime } : {}),
    rampPercentage: info?.rampPercentage ?? 0,
    workflowTaskQueues: (info?.taskQueueInfos ?? [])
      .filter((queue) => queue.type === enums.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)
      .map((queue) => queue.name ?? '')
      .filter((name) => name !== ''),
  };
}

/** Whether the version's workers have polled `taskQueue`: a version missing a queue of the current one cannot become current. */
export async function versionPollsQueue(
  client: Client,
  version: DeploymentVersion,
  taskQueue: string,
): Promise<boolean> {
  try {
    return (await describeVersion(client, version)).workflowTaskQueues.includes(taskQueue);
  } catch (error) {
    if (error instanceof VersionNotFound) return false;
    throw error;
  }
}

/** Makes the version current: new agents start on it, unpinned ones move to it. The server refuses a version without pollers. */
export async function setCurrentVersion(client: Client, version: DeploymentVersion): Promise<void> {
  await client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace: client.options.namespace,
    deploymentName: version.deploymentName,
    buildId: version.buildId,
    identity: client.options.identity,
  });
}

/** Sends `percentage` (1..100) of new agents to the version instead of the current one. */
export async function setRampingVersion(client: Client, version: DeploymentVersion, percentage: number): Promise<void> {
  await client.workflowService.setWorkerDeploymentRampingVersion({
    namespace: client.options.namespace,
    deploymentName: version.deploymentName,
    buildId: version.buildId,
    percentage,
    identity: client.options.identity,
  });
}

/** Ends the deployment's ramp: every new agent starts on the current version. */
export async function clearRampingVersion(client: Client, deploymentName: string): Promise<void> {
  await client.workflowService.setWorkerDeploymentRampingVersion({
    namespace: client.options.namespace,
    deploymentName,
    buildId: '',
    percentage: 0,
    identity: client.options.identity,
  });
}

/** What agentVersionOf reads: a describe() result, or a list() entry's search attributes. */
type VersionSource = { raw?: unknown } & Partial<Pick<WorkflowExecutionInfo, 'typedSearchAttributes'>>;

/** The search attribute the server sets on a versioned workflow: "deployment:build". */
const workerDeploymentVersionKey = defineSearchAttributeKey('TemporalWorkerDeploymentVersion', 'KEYWORD');

/** The deployment version the agent runs on (pinned or last run on); undefined when it ran on unversioned workers. */
export function agentVersionOf(source: VersionSource): DeploymentVersion | undefined {
  type Versioning = { versioningInfo?: { deploymentVersion?: Partial<DeploymentVersion> | null } | null } | null;
  // describe()'s raw wraps the execution info; a list() entry's raw is the execution info.
  const raw = source.raw as (Versioning & { workflowExecutionInfo?: Versioning }) | undefined;
  const deploymentVersion = (raw?.workflowExecutionInfo ?? raw)?.versioningInfo?.deploymentVersion;
  if (deploymentVersion?.deploymentName && deploymentVersion.buildId)
    return { deploymentName: deploymentVersion.deploymentName, buildId: deploymentVersion.buildId };
  return parseVersionKey(source.typedSearchAttributes?.get(workerDeploymentVersionKey));
}

const quoted = (value: string) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** The visibility query of running agents: on `version`, or with `version: 'none'` on no version, on these task queues. */
export function runningAgentsQuery(version: DeploymentVersion | 'none', taskQueues: readonly string[] = []): string {
  const clauses = ["WorkflowType = 'agentWorkflow'", "ExecutionStatus = 'Running'"];
  if (version === 'none') clauses.push('TemporalWorkerDeploymentVersion IS NULL');
  else clauses.push(`TemporalWorkerDeploymentVersion = ${quoted(versionKey(version))}`);
  if (taskQueues.length) clauses.push(`TaskQueue IN (${taskQueues.map(quoted).join(', ')})`);
  return clauses.join(' AND ');
}

/** How many agents run on the version (or on none, on these task queues), by visibility (seconds behind). */
export async function countRunningAgents(
  client: Client,
  version: DeploymentVersion | 'none',
  taskQueues: readonly string[] = [],
): Promise<number> {
  if (version === 'none' && taskQueues.length === 0) return 0;
  const { count } = await client.workflow.count(runningAgentsQuery(version, taskQueues));
  return count;
}

/** The ids of the running agents on the version, by visibility, at most `limit`. */
export async function runningAgentIds(client: Client, version: DeploymentVersion, limit = 1000): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of client.workflow.list({ query: runningAgentsQuery(version) })) {
    ids.push(execution.workflowId);
    if (ids.length >= limit) break;
  }
  return ids;
}

/** The version the agent runs on (from its workflow's describe), or undefined when it runs on unversioned workers. */
export async function agentVersion(client: Client, agentId: string): Promise<DeploymentVersion | undefined> {
  return agentVersionOf(await client.workflow.getHandle(agentId).describe());
}

/** Each agent of the tree with a version, by agentId: one visibility query (seconds behind), the latest run of each. */
export async function treeAgentVersions(
  client: Client,
  rootId: string,
  limit = 1000,
): Promise<Map<string, DeploymentVersion>> {
  const versions = new Map<string, DeploymentVersion>();
  const seen = new Set<string>();
  const query = `WorkflowId = ${quoted(rootId)} OR RootAgentId = ${quoted(rootId)}`;
  // Newest runs come first: a continued-as-new agent reports the version of its latest run.
  for await (const execution of client.workflow.list({ query })) {
    if (seen.has(execution.workflowId)) continue;
    seen.add(execution.workflowId);
    const version = agentVersionOf(execution);
    if (version) versions.set(execution.workflowId, version);
    if (seen.size >= limit) break;
  }
  return versions;
}
