import { CancellationScope } from '@temporalio/workflow';
import { onPatchBaseline } from './patches';

/** A scope under the current one, made on first use on the patch baseline, at once in older runs (as they did). */
export function scopeWhenNeeded(options: { cancellable: boolean }): () => CancellationScope {
  const parent = CancellationScope.current();
  let scope = onPatchBaseline() ? undefined : new CancellationScope(options);
  return () => (scope ??= new CancellationScope({ ...options, parent }));
}
