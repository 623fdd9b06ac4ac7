/** StructuredOutput's check of a schema with model-written regexes: in a worker thread with a time limit (as Grep's fallback). */
import type Ajv from 'ajv';
import { Worker } from 'node:worker_threads';

/** How long a schema's regexes may run against one output before the check is stopped. */
export const patternCheckTimeLimitMs = 2_000;

/** How long the check thread may take to load ajv and compile the schema (it runs no model regex then). */
export const patternWorkerStartLimitMs = 5_000;

/** Heap of the check thread: the output is at most scriptLimits.maxResultBytes of JSON. */
const workerHeapMb = 128;

const workerFile = new URL('./structured-output-worker.mjs', import.meta.url);

/** What the check thread found: ajv's verdict, or `timedOut` when the regexes ran past the time limit. */
export type ThreadVerdict = { valid: true } | { valid: false; errors: Ajv.ErrorObject[] } | { timedOut: true };

type WorkerMessage = { type: 'compiled' } | { type: 'verdict'; valid: boolean; errors: Ajv.ErrorObject[] };

/** Whether a schema has a keyword that runs a model-written regex: `pattern`, `patternProperties`, `format: "regex"`. */
export function schemaRunsRegexes(schema: unknown): boolean {
  // Anywhere in the JSON (definitions, a property named "pattern" too): a false positive only costs a thread.
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    const record = node as Record<string, unknown>;
    if ('pattern' in record || 'patternProperties' in record || record.format === 'regex') return true;
    pending.push(...Object.values(record));
  }
  return false;
}

/** Validates `value` against `schema` in a worker thread, terminated when its regexes run past `timeLimitMs`. */
export async function validateInThread(
  schema: Record<string, unknown>,
  value: unknown,
  ajvOptions: Ajv.Options,
  timeLimitMs: number = patternCheckTimeLimitMs,
): Promise<ThreadVerdict> {
  const worker = new Worker(workerFile, {
    workerData: { schema, value, ajvOptions },
    resourceLimits: { maxOldGenerationSizeMb: workerHeapMb },
    stdout: true,
    stderr: true,
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<ThreadVerdict>((resolve, reject) => {
      // Not the model's fault: thrown, so the activity fails and the call is checked again without using an attempt.
      timer = setTimeout(
        () => reject(new Error(`the check thread did not start within ${patternWorkerStartLimitMs / 1000} s`)),
        patternWorkerStartLimitMs,
      );
      worker.on('message', (message: WorkerMessage) => {
        clearTimeout(timer);
        if (message.type === 'compiled') {
          timer = setTimeout(() => resolve({ timedOut: true }), timeLimitMs);
          return;
        }
        resolve(message.valid ? { valid: true } : { valid: false, errors: message.errors });
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the check thread exited with code ${code} before answering`)));
    });
  } finally {
    clearTimeout(timer);
    void worker.terminate();
  }
}
