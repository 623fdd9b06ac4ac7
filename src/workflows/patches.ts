import { patched } from '@temporalio/workflow';

/**
 * One patch standing for every change made before it (docs/testing.md, "Patches in use"). A run
 * started on this code asks for the baseline once, first thing, and takes each change listed below
 * without asking for it again: every patch a run asks for costs the server a marker event and an
 * upsert of the `TemporalChangeVersion` search attribute (a visibility write), and a child asked
 * four of them before its first model call. Runs recorded before the baseline have no baseline
 * marker, so they ask for each change where they always did and replay as recorded.
 *
 * A change made after the baseline gets its own id, asked with `hasPatch`, and is not added here:
 * runs recorded with the baseline would otherwise take a path they did not record.
 */
export const patchBaseline = 'patch-baseline-1';

const coveredByBaseline: ReadonlySet<string> = new Set([
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

/** Whether this run started with the baseline. Module state is per run: the SDK gives each run its own modules. */
let runHasBaseline = false;

/** Asks for the baseline; call once, at the very start of a run, before any other patch. */
export function adoptPatchBaseline(): void {
  runHasBaseline = patched(patchBaseline);
}

/**
 * Whether this run started on the baseline. Changes that came with the baseline and alter only the
 * timing inside a workflow task (fewer cancellation scopes and promises on the hot paths, each of
 * which costs the SDK a stack capture; docs/testing.md) apply only to such runs, so a run recorded
 * before keeps the order of its commands on replay.
 */
export function onPatchBaseline(): boolean {
  return runHasBaseline;
}

/** `patched(id)` for workflow code: true at once for a change the run's baseline covers. */
export function hasPatch(id: string): boolean {
  if (runHasBaseline && coveredByBaseline.has(id)) return true;
  return patched(id);
}
