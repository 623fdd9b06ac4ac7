import { parseArgs } from 'node:util';
import { parseRoutableToolName, parseTaskQueueName } from '../../shared/tools/custom-tools';
import { defaultTaskQueue } from '../../shared/protocol/config';
import { runWorkerFromEnv, type ToolWorkerRequest, type VersionRequest } from '../../worker/worker';
import { parseBuildId, parseDeploymentName } from '../../worker/versioning';

const usage =
  'usage: subagents worker [--deployment NAME [--build-id ID]] [--tools Bash,Write --task-queue QUEUE]\n' +
  '  (configured with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, SUBAGENTS_TASK_QUEUE, ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL; docs/configuration.md)';

/** Parses `--tools` and `--task-queue`: undefined for an agent worker, the tool worker's request otherwise; throws what to fix. */
export function parseWorkerArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ToolWorkerRequest | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      tools: { type: 'string' },
      'task-queue': { type: 'string' },
      deployment: { type: 'string' },
      'build-id': { type: 'string' },
    },
  });
  if (values.tools === undefined && values['task-queue'] === undefined) return undefined;
  if (values.tools === undefined || values['task-queue'] === undefined) {
    throw new Error(
      '--tools and --task-queue go together: a tool worker runs the named tools on its own task queue (docs/tools.md, "Tool task queues").',
    );
  }
  const tools = [
    ...new Set(
      values.tools
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name.length > 0),
    ),
  ].map((name) => parseRoutableToolName(name, '--tools'));
  if (tools.length === 0) throw new Error('--tools: name at least one tool (for example --tools Bash,Write).');
  const taskQueue = parseTaskQueueName(values['task-queue'], '--task-queue');
  const agentQueue = env.SUBAGENTS_TASK_QUEUE || defaultTaskQueue;
  if (taskQueue === agentQueue) {
    throw new Error(
      `--task-queue ${taskQueue} is the agents' own task queue: a tool worker needs a queue of its own (for example "sandbox"), else it would take tasks it cannot run.`,
    );
  }
  return { tools, taskQueue };
}

/** Parses `--deployment` and `--build-id` (docs/operations.md, "Upgrades"); throws what to fix. */
export function parseVersionArgs(argv: string[]): VersionRequest {
  const { values } = parseArgs({
    args: argv,
    strict: false,
    allowPositionals: true,
    options: { deployment: { type: 'string' }, 'build-id': { type: 'string' } },
  });
  const deployment = typeof values.deployment === 'string' ? values.deployment : undefined;
  const buildId = typeof values['build-id'] === 'string' ? values['build-id'] : undefined;
  if (buildId !== undefined && deployment === undefined && !process.env.SUBAGENTS_DEPLOYMENT)
    throw new Error(
      '--build-id names a version of a deployment: give --deployment NAME too (docs/operations.md, "Upgrades").',
    );
  return {
    ...(deployment !== undefined ? { deploymentName: parseDeploymentName(deployment, '--deployment') } : {}),
    ...(buildId !== undefined ? { buildId: parseBuildId(buildId, '--build-id') } : {}),
  };
}

/** `subagents worker`: one worker on SUBAGENTS_TASK_QUEUE (or a tool worker) until SIGINT/SIGTERM. */
export async function workerCommand(argv: string[]): Promise<number> {
  let toolWorker: ToolWorkerRequest | undefined;
  let version: VersionRequest;
  try {
    toolWorker = parseWorkerArgs(argv);
    version = parseVersionArgs(argv);
    if (toolWorker && version.deploymentName !== undefined)
      throw new Error('--deployment is for agent workers: a tool worker runs activities only, which need no version.');
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    return 2;
  }
  await runWorkerFromEnv(toolWorker, version);
  return 0;
}
