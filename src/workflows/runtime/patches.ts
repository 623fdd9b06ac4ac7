import { patched } from '@temporalio/workflow';

/** The current baseline: one patch for every change before it, one marker a run (docs/testing.md, "Patches in use"). */
export const patchBaseline = 'patch-baseline-4';

/** The first baseline (runs started before baseline 2 replay with it). */
export const patchBaseline1 = 'patch-baseline-1';

/** The second baseline (runs started before baseline 3 replay with it). */
export const patchBaseline2 = 'patch-baseline-2';

/** The third baseline (runs started before baseline 4 replay with it). */
export const patchBaseline3 = 'patch-baseline-3';

const coveredByBaseline1: ReadonlySet<string> = new Set([
  'backgrounded-tree-event',
  'agent-start-context',
  'agent-input-unknown-fields',
  'truncated-turns',
  'cancelled-turn-is-interrupted',
  'stall-watchdog',
  'local-agent-start',
  'local-read-tool',
  'batched-local-reads',
  'task-board',
  'context-compaction',
  'continue-as-new-every-boundary',
  'oversized-message-refused',
  'tree-budget-stops-all',
  'agent-hooks',
  'send-message-resume-limits',
  'checked-agent-cwd',
]);

/** Baseline 2: baseline 1 and the stop and abort changes made after it. */
const coveredByBaseline2: ReadonlySet<string> = new Set([
  ...coveredByBaseline1,
  'stop-in-one-task',
  'local-tool-abort',
  'stop-notice-in-cancel',
]);

const coveredByBaseline3: ReadonlySet<string> = new Set([...coveredByBaseline2, 'abort-only-running-calls']);

const coveredByBaseline4: ReadonlySet<string> = new Set([
  ...coveredByBaseline3,
  'sliding-tool-window',
  'no-report-to-ended-parent',
  'local-model-abort',
]);

/** Each baseline and what it covers, newest first: a run takes the first whose marker it has (a new run, the current one). */
const baselines: readonly (readonly [string, ReadonlySet<string>])[] = [
  [patchBaseline, coveredByBaseline4],
  [patchBaseline3, coveredByBaseline3],
  [patchBaseline2, coveredByBaseline2],
  [patchBaseline1, coveredByBaseline1],
];

/** What this run's baseline covers (undefined: none). Module state: `hasPatch` is asked with no agent part at hand. */
let covered: ReadonlySet<string> | undefined;

/** Asks for the baseline; call once, first thing in a run, before any other patch. */
export function adoptPatchBaseline(): void {
  covered = baselines.find(([id]) => patched(id))?.[1];
}

/** Whether this run started on a baseline; timing-only changes apply only then, so older runs keep their command order. */
export function onPatchBaseline(): boolean {
  return covered !== undefined;
}

/** `patched(id)` for workflow code: true at once for a change the run's baseline covers. */
export function hasPatch(id: string): boolean {
  if (covered?.has(id)) return true;
  return patched(id);
}
