import { parseArgs } from 'node:util';
import { clusterDown, clusterStatus, clusterUp } from '../../cluster/cluster';
import { clusterUsage } from '../command-usage';
import { CliError, ExitCode } from '../exit-codes';

const usage = clusterUsage;

/** `subagents cluster ...`: PostgreSQL, the Temporal server and workers on this machine (docs/operations.md). */
export async function clusterCommand(argv: string[]): Promise<number> {
  try {
    return await clusterAction(argv);
  } catch (error) {
    if (error instanceof CliError) throw error;
    // Install, start-up and process failures carry their own explanation (and the log to read).
    throw new CliError(error instanceof Error ? error.message : String(error), ExitCode.unavailable);
  }
}

async function clusterAction(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  switch (action) {
    case 'up': {
      const { values } = parseArgs({
        args: rest,
        options: {
          workers: { type: 'string', default: '2' },
          'model-url': { type: 'string' },
          json: { type: 'boolean', default: false },
        },
      });
      const workers = Number(values.workers);
      if (!Number.isInteger(workers) || workers < 1 || workers > 16)
        throw new CliError(`--workers must be a whole number from 1 to 16 (got "${values.workers}").`);
      if (values['model-url'] !== undefined && !/^https?:\/\/\S+$/.test(values['model-url']))
        throw new CliError(`--model-url must be an http(s) URL (got "${values['model-url']}").`);
      const info = await clusterUp({
        workers,
        ...(values['model-url'] !== undefined ? { modelUrl: values['model-url'] } : {}),
      });
      if (values.json) {
        console.log(JSON.stringify(info));
      } else {
        console.log(
          `Temporal on PostgreSQL: ${info.address} (namespace ${info.namespace}, task queue ${info.taskQueue}), PostgreSQL ${info.postgres}`,
        );
        for (const worker of info.workers)
          console.log(`  ${worker.id}: pid ${worker.pid}, workspace root ${worker.root}`);
        console.log(`Start an agent on a worker, in its workspace root:`);
        console.log(
          `  TEMPORAL_ADDRESS=${info.address} npx subagents start "..." --worker ${info.workers[0]?.id ?? 'worker-1'} --cwd ${info.workers[0]?.root ?? '<root>'}`,
        );
      }
      return ExitCode.ok;
    }
    case 'down': {
      const { values } = parseArgs({ args: rest, options: { purge: { type: 'boolean', default: false } } });
      await clusterDown({ purge: values.purge });
      return ExitCode.ok;
    }
    case 'status': {
      const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean', default: false } } });
      const status = await clusterStatus();
      if (values.json) console.log(JSON.stringify(status));
      else if (!status.info) console.log('no cluster (run `npm run cluster:up`)');
      else
        for (const [part, up] of Object.entries(status.parts))
          console.log(`${part.padEnd(14)} ${up ? 'running' : 'stopped'}`);
      return status.running ? ExitCode.ok : 1;
    }
    default:
      throw new CliError(`usage: subagents ${usage}`);
  }
}
