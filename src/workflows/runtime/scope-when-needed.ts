import { CancellationScope } from '@temporalio/workflow';

/** A scope under the current one, made on first use: most runs never need it. */
export function scopeWhenNeeded(options: { cancellable: boolean }): () => CancellationScope {
  const parent = CancellationScope.current();
  let scope: CancellationScope | undefined;
  return () => (scope ??= new CancellationScope({ ...options, parent }));
}
