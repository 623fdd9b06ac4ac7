import { allHandlersFinished, condition, continueAsNew, setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import { pinnedVersioning } from '../context/version-upgrade';
import type { BoardSnapshot, BoardWorkflowInput } from '../../shared/board/board';
import { boardLimits } from '../../shared/board/board-limits';
import { workflowNowMs } from '../runtime/clock';
import { installBoardHandlers } from './board-handlers';
import { BoardRun } from './board-run';

/** The shared task board (docs/board.md): its loop only sends notices, expires claims and continues-as-new. */
export async function boardWorkflow(input: BoardWorkflowInput): Promise<BoardSnapshot> {
  const board = new BoardRun(input);
  installBoardHandlers(board);
  const continueAsNewDue = () => {
    const info = workflowInfo();
    const limit = input.continueAsNewAfterEvents ?? boardLimits.continueAsNewAfterEvents;
    return (
      info.continueAsNewSuggested ||
      info.historyLength >= limit ||
      board.updatesThisRun >= boardLimits.continueAsNewAfterUpdates
    );
  };
  for (;;) {
    const wake = () => board.needsLoop() || continueAsNewDue();
    board.armedFor = board.nextExpiry();
    if (board.armedFor === undefined) await condition(wake);
    else await condition(wake, Math.max(1, board.armedFor - workflowNowMs()));
    board.armedFor = undefined;
    board.expireDue();
    await board.deliverNotices();
    if (continueAsNewDue() && !board.owesNotices) {
      await condition(allHandlersFinished);
      if (!board.owesNotices) await continueAsNew<typeof boardWorkflow>(board.carry());
    }
  }
}

// A board stays on the version it started on (docs/operations.md, "Upgrades").
setWorkflowOptions(pinnedVersioning, boardWorkflow);
