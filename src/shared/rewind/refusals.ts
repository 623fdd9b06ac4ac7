import type { FileChange } from '../workspace/checkpoints';

/** A `--files` refusal that lists what changed underneath, and what to do (the workflow and the client say the same). */
export function changedUnderneathText(agentId: string, changed: readonly FileChange[], latestTurn?: number): string {
  const shown = changed.slice(0, 20).map((change) => `  ${change.status} ${change.path}`);
  const more = changed.length > shown.length ? [`  … and ${changed.length - shown.length} more`] : [];
  const which = latestTurn === undefined ? '' : ` (turn ${latestTurn})`;
  return [
    `Not rewound: files changed since ${agentId}'s latest checkpoint${which}, by someone else:`,
    ...shown,
    ...more,
    'Nothing was changed. Commit or move those changes and try again, or rewind without --files.',
  ].join('\n');
}
