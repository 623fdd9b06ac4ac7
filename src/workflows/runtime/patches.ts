import { patched } from '@temporalio/workflow';

/**
 * One patch standing for every change made before it (docs/testing.md, "Patches in use"). A run
 * started on this code asks for the baseline once, first thing, and takes each change its baseline
 * covers without asking for it again: every patch a run asks for costs the server a marker event and
 * an upsert of the `TemporalChangeVersion` search attribute (a visibility write), and a child asked
 * four of them before its first model call. Runs recorded before a baseline have no marker of it, so
 * they ask for each later change where they always did and replay as recorded.
 *
 * A change made after the current baseline gets its own id, asked with `hasPatch`; a new baseline
 * (a new id, covering its predecessor's changes and those made since) is cut when several have
 * gathered. Runs recorded with an earlier baseline keep it and ask for the changes it does not cover.
 */
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
const coveredByBaseline2: ReadonlySet<string> = new Set([...coveredByBaseline1, 'stop-in-one-task', 'local-tool-abort', 'stop-notice-in-cancel']);

/** Baseline 3: baseline 2 and the changes made after it. */
const coveredByBaseline3: ReadonlySet<string> = new Set([...coveredByBaseline2, 'abort-only-running-calls']);

/** Baseline 4: baseline 3 and the changes made after it. */
const coveredByBaseline4: ReadonlySet<string> = new Set([...coveredByBaseline3, 'sliding-tool-window', 'no-report-to-ended-parent', 'local-model-abort']);

/** Each baseline and what it covers, newest first: a run takes the first whose marker it has (a new run, the current one). */
const baselines: readonly (readonly [string, ReadonlySet<string>])[] = [
  [patchBaseline, coveredByBaseline4],
  [patchBaseline3, coveredByBaseline3],
  [patchBaseline2, coveredByBaseline2],
  [patchBaseline1, coveredByBaseline1],
];

/** What this run's baseline covers (undefined: no baseline). Module state is per run: the SDK gives each run its own modules. */
/** Stays module state: every part and the board workflow ask `hasPatch`, most with no agent part at hand. */
let covered: ReadonlySet<string> | undefined;

/**
 * Asks for the baseline; call once, at the very start of a run, before any other patch. A new run
 * records the current baseline; a run recorded with an earlier one (no marker of the later) replays with it.
 */
export function adoptPatchBaseline(): void {
  covered = baselines.find(([id]) => patched(id))?.[1];
}

/**
 * Whether this run started on the baseline. Changes that came with the baseline and alter only the
 * timing inside a workflow task (fewer cancellation scopes and promises on the hot paths, each of
 * which costs the SDK a stack capture; docs/testing.md) apply only to such runs, so a run recorded
 * before keeps the order of its commands on replay.
 */
export function onPatchBaseline(): boolean {
  return covered !== undefined;
}

/** `patched(id)` for workflow code: true at once for a change the run's baseline covers. */
export function hasPatch(id: string): boolean {
  if (covered?.has(id)) return true;
  return patched(id);
}
