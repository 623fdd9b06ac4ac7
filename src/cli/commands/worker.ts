import { runWorkerFromEnv } from '../../worker';

/** `subagents worker`: one worker on SUBAGENTS_TASK_QUEUE until SIGINT/SIGTERM. */
export async function workerCommand(argv: string[]): Promise<number> {
  if (argv.length > 0) {
    console.error('subagents worker takes no arguments; configure it with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, SUBAGENTS_TASK_QUEUE, ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL.');
    return 2;
  }
  await runWorkerFromEnv();
  return 0;
}
