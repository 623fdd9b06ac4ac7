/** Polls a script run's snapshot and shows its phases and agents until it ends: redrawn (TTY), line per change, or JSON. */
import { createLogUpdate } from 'log-update';
import type { ScriptRunHandle } from '../../client/script-runs';
import type { AgentResult } from '../../shared/agents/agent';
import type { ScriptRunSnapshot } from '../../shared/scripts/script-run';
import { runFrameText } from '../workflows-view';
import { scriptRunEventLine, scriptRunEvents } from './script-run-events';
import type { WatchOptions } from './watch-loop';

/** Returns the run's result; a snapshot query nobody answers (no worker yet) is waited out. */
export async function watchScriptRun(run: ScriptRunHandle, options: WatchOptions): Promise<AgentResult> {
  const intervalMs = options.intervalMs ?? 500;
  const stream = options.stream ?? process.stdout;
  const draw = options.mode === 'tree' ? createLogUpdate(stream, { showCursor: true }) : undefined;
  const resultPromise = run.result();
  let done = false;
  void resultPromise
    .finally(() => {
      done = true;
    })
    .catch(() => undefined);
  let previous: ScriptRunSnapshot | undefined;
  const show = (next: ScriptRunSnapshot): void => {
    const nowMs = Date.now();
    if (options.mode === 'tree') draw?.(runFrameText(next, nowMs));
    else
      for (const event of scriptRunEvents(previous, next))
        options.print(options.mode === 'json' ? JSON.stringify(event) : scriptRunEventLine(event, nowMs));
    previous = next;
  };
  try {
    while (!done) {
      const next = await run.snapshot().catch(() => undefined);
      if (next) show(next);
      if (next && next.status !== 'running') break;
      await Promise.race([
        resultPromise.catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, intervalMs)),
      ]);
    }
    // The last changes (the run's end) when the result came first.
    if (previous?.status === 'running') {
      const last = await run.snapshot().catch(() => undefined);
      if (last) show(last);
    }
  } finally {
    draw?.done();
  }
  return resultPromise;
}
