import { CancellationScope } from '@temporalio/workflow';
import { onPatchBaseline } from './patches';

/**
 * A cancellation scope under the scope current now (an agent's parts are made in the workflow's root
 * scope), made when first asked for on the patch baseline — most agents never need it, and each scope
 * costs the SDK promises — and at once in runs recorded before the baseline, as they made it
 * (src/workflows/runtime/patches.ts).
 */
export function scopeWhenNeeded(options: { cancellable: boolean }): () => CancellationScope {
  const parent = CancellationScope.current();
  let scope = onPatchBaseline() ? undefined : new CancellationScope(options);
  return () => (scope ??= new CancellationScope({ ...options, parent }));
}
