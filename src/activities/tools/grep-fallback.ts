/** Grep without ripgrep: JavaScript regular expressions in a worker thread with a time limit. */
import { ErrorType } from '../../shared/protocol/errors';
import type { LiveToolDetails } from '../../shared/protocol/live-activity';
import { Worker } from 'node:worker_threads';
import { toolLimits } from '../../shared/tools/tool-definitions';
import type { GrepFindings, GrepRequest } from './grep-findings';
import type { ToolEnv } from './tool-env';
import { ToolCancelled, ToolRefusal } from './tool-error';

/** How long the fallback may search before it is stopped. */
export const fallbackTimeLimitMs = 30_000;

/** Heap of the search thread: files up to grepMaxFileBytes are read whole, as strings and lines. */
const workerHeapMb = 512;

const workerFile = new URL('./grep-fallback-worker.mjs', import.meta.url);

const installHint =
  'Install ripgrep (apt-get install ripgrep), which searches in linear time, or narrow path, glob or type.';

/** Refuses a pattern JavaScript cannot compile, with the engine's reason (compiling does not backtrack). */
export function checkJavaScriptPattern(pattern: string, options: { ignoreCase: boolean; multiline: boolean }): void {
  try {
    new RegExp(pattern, `${options.ignoreCase ? 'i' : ''}${options.multiline ? 'gms' : ''}`);
  } catch (error) {
    throw new ToolRefusal(
      ErrorType.InvalidPattern,
      `${JSON.stringify(pattern)} is not a valid JavaScript regular expression (${(error as Error).message}); ripgrep is not installed on this worker, ` +
        'so Grep uses JavaScript syntax. Escape characters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.',
    );
  }
}

/** Searches the given files (absolute path and path as shown) in a worker thread; terminated at the time limit or on abort. */
export async function searchWithFallback(
  request: GrepRequest,
  files: readonly { path: string; shown: string }[],
  env: ToolEnv,
  timeLimitMs: number = fallbackTimeLimitMs,
): Promise<GrepFindings> {
  checkJavaScriptPattern(request.pattern, request);
  if (env.signal.aborted) throw new ToolCancelled();
  const worker = new Worker(workerFile, {
    workerData: { ...request, files, maxFileBytes: toolLimits.grepMaxFileBytes, maxLineChars: toolLimits.maxLineChars },
    resourceLimits: { maxOldGenerationSizeMb: workerHeapMb },
    stdout: true,
    stderr: true,
  });
  let timer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<GrepFindings>((resolve, reject) => {
      const stop = (error: Error) => {
        reject(error);
        void worker.terminate();
      };
      timer = setTimeout(
        () =>
          stop(
            new ToolRefusal(
              ErrorType.SearchTimedOut,
              `the search for ${JSON.stringify(request.pattern)} took longer than ${timeLimitMs / 1000} s and was stopped: ripgrep is not installed, so Grep ran JavaScript regular expressions, which can take exponential time on patterns such as (a+)+$. ${installHint}`,
            ),
          ),
        timeLimitMs,
      );
      heartbeat = setInterval(
        () => env.heartbeat({ kind: 'tool', tool: 'Grep' } satisfies LiveToolDetails),
        toolLimits.heartbeatIntervalMs,
      );
      onAbort = () => stop(new ToolCancelled());
      env.signal.addEventListener('abort', onAbort, { once: true });
      worker.once('message', (findings: GrepFindings) => resolve(findings));
      // Out of memory arrives here as ERR_WORKER_OUT_OF_MEMORY, which the tool reports as "Grep failed: ...".
      worker.once('error', reject);
      worker.once('exit', (code) =>
        reject(new Error(`Grep's search thread exited with code ${code} before answering`)),
      );
    });
  } finally {
    clearTimeout(timer);
    clearInterval(heartbeat);
    if (onAbort) env.signal.removeEventListener('abort', onAbort);
    void worker.terminate();
  }
}
