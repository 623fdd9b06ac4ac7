// Every number of the task board, in one place: a full board stays under Temporal's payload limit (docs/board.md).
export const boardLimits = {
  /** Tasks on one board, completed ones included (deleting a task frees its slot). */
  maxTasks: 200,
  maxSubjectChars: 200,
  maxDescriptionChars: 2_000,
  maxActiveFormChars: 200,
  /** The result note (or the reason a task is blocked). */
  maxNoteChars: 1_000,
  /** A task's metadata object, as JSON. */
  maxMetadataChars: 1_000,
  /** blockedBy (and blocks) entries per task. */
  maxDependencies: 50,
  /** An owner's (or actor's) name. */
  maxOwnerChars: 200,
  /** A named board's name: letters, digits, '.', '_' and '-'. */
  maxBoardNameChars: 64,
  /** A claim lasts this long without a heartbeat (per board; a tree's agents may set `limits.boardLeaseMs`). */
  defaultLeaseMs: 60_000,
  minLeaseMs: 1_000,
  maxLeaseMs: 3_600_000,
  /** The runtime renews a claim this many times per lease while its agent runs. */
  heartbeatsPerLease: 3,
  /** Recent events the board keeps for the CLI and the UI. */
  keptEvents: 200,
  /** TaskCreate request ids remembered, so a retried create does not add a second task. */
  keptRequestIds: 200,
  /** The board continues-as-new past this many history events (or when Temporal suggests it). */
  continueAsNewAfterEvents: 2_000,
  /** ... or past this many accepted updates in one run (Temporal allows 2,000 per run). */
  continueAsNewAfterUpdates: 500,
} as const;
