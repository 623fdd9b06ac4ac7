// Replay: every history of the suite's trees, fetched from the server (so from PostgreSQL), replayed
// against the current workflow code with the workers' payload codec.
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { createDataConverter } from '../../src/codec/data-converter';
import { workflowBundlerOptions, workflowsPath } from '../../src/worker/worker';
import { CheckFailed, type Check } from './context';
import { treeTasks } from './tasks';

export const replayCheck: Check = {
  name: 'replay of every history fetched from PostgreSQL',
  async run(context) {
    if (context.roots.all.length === 0) throw new CheckFailed('no tree ran');
    const histories = [];
    for (const rootId of context.roots.all)
      histories.push(...(await treeTasks(context.env.temporal, rootId)).histories);
    const bundle = await bundleWorkflowCode({
      workflowsPath,
      ...workflowBundlerOptions,
      logger: new DefaultLogger('WARN'),
    });
    const failures: string[] = [];
    let replayed = 0;
    let events = 0;
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: { code: bundle.code }, dataConverter: createDataConverter(), replayName: 'cluster' },
      histories.map(({ workflowId, history }) => {
        events += history.events?.length ?? 0;
        return { workflowId, history };
      }),
    )) {
      replayed += 1;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    if (failures.length > 0)
      throw new CheckFailed(
        `${failures.length} of ${replayed} histories failed to replay: ${failures.slice(0, 3).join('; ')}`,
      );
    if (replayed !== histories.length) throw new CheckFailed(`replayed ${replayed} of ${histories.length} histories`);
    context.figures.replayedHistories = replayed;
    return `${replayed} histories (${events} events) of ${context.roots.all.length} trees replayed`;
  },
};
