import { patched } from '@temporalio/workflow';

// Kept, with no id in use: workers run as versions of a worker deployment and each run is pinned to the code it
// started on (docs/operations.md, "Upgrades: worker versions"), so a workflow change needs no branch. The rare
// change that must reach runs already going on the same build id (a fix deployed under --build-id OLD_BUILD)
// still asks here, the one place that calls the SDK's patched() (eslint.config.js), each id with a comment why.

/** `patched(id)` for workflow code: true on a new run and on a replayed run that took the change. */
export function hasPatch(id: string): boolean {
  return patched(id);
}
