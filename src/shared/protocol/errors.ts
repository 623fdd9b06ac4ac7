// The one error vocabulary: failure type names and error text prefixes; nothing types an error name by hand.
export const ErrorType = {
  // Tool calls the runtime refuses (the model reads `Type: what to do instead`).
  PathOutsideWorkspace: 'PathOutsideWorkspace',
  InvalidToolInput: 'InvalidToolInput',
  FileNotRead: 'FileNotRead',
  FileChangedSinceRead: 'FileChangedSinceRead',
  FileNotFound: 'FileNotFound',
  NotAFile: 'NotAFile',
  NotADirectory: 'NotADirectory',
  BinaryFile: 'BinaryFile',
  FileTooLarge: 'FileTooLarge',
  /** Write or Edit of a file with more than one hard link: the change would reach its other names, maybe outside the workspace. */
  HardLinkedFile: 'HardLinkedFile',
  StringNotFound: 'StringNotFound',
  StringNotUnique: 'StringNotUnique',
  InvalidPattern: 'InvalidPattern',
  /** Grep without ripgrep ran past its time limit (a backtracking regex, or a very large tree). */
  SearchTimedOut: 'SearchTimedOut',
  ToolNotAllowed: 'ToolNotAllowed',
  /** A read-only agent's Bash call that could write, run programs or was not understood. */
  CommandNotReadOnly: 'CommandNotReadOnly',
  /** A call refused by a tool rule of the agent's definition (`Bash(git diff:*)` in tools, `Edit(secrets/**)` in disallowedTools). */
  ToolRuleDenied: 'ToolRuleDenied',
  UnknownTool: 'UnknownTool',
  /** A call a hook refused (PreToolUse exit code 2 or `permissionDecision: "deny"`, docs/hooks.md). */
  HookBlocked: 'HookBlocked',
  /** A call refused by a `permissions.deny` rule of a settings file (docs/configuration.md). */
  PermissionRuleDenied: 'PermissionRuleDenied',
  /** Bash, a hook or an MCP server could not be put in the OS sandbox on this worker, so it did not run (docs/security.md). */
  SandboxUnavailable: 'SandboxUnavailable',

  // Web and MCP tools (docs/tools.md).
  /** WebFetch refused the URL: not http(s), credentials in it, or a private/local address not allowed by configuration. */
  UrlNotAllowed: 'UrlNotAllowed',
  /** WebFetch could not get the page (network, HTTP status, too many redirects, timeout). */
  FetchFailed: 'FetchFailed',
  ContentTooLarge: 'ContentTooLarge',
  UnsupportedContent: 'UnsupportedContent',
  WebSearchFailed: 'WebSearchFailed',
  /** The sandbox's egress proxy refused a connection: the host is not allowed, is denied, or resolves to a private address. */
  EgressRefused: 'EgressRefused',
  /** An MCP server could not be started or reached. */
  McpServerUnavailable: 'McpServerUnavailable',
  /** An MCP server stopped (exited, connection dropped) while a call ran. */
  McpServerStopped: 'McpServerStopped',
  McpToolTimeout: 'McpToolTimeout',
  /** A stdio MCP server's answer was larger than the MCP SDK's read buffer: the SDK closed the connection; never retried. */
  McpResultTooLarge: 'McpResultTooLarge',

  // Agents and the tree.
  /** The workflow failure of an agent that failed; its details carry the partial AgentResult. */
  AgentFailed: 'AgentFailed',
  MaxTurnsExceeded: 'MaxTurnsExceeded',
  SpawnLimitReached: 'SpawnLimitReached',
  /** A model call's retries used up what the tree's ledger reserved for it (docs/budgets.md); not retried. */
  BudgetExhausted: 'BudgetExhausted',
  ForkInsideFork: 'ForkInsideFork',
  /** No agent (workflow) with the given agentId. */
  AgentNotFound: 'AgentNotFound',
  /** A message or steer larger than the agent's context can hold (src/workflows/context/message-size.ts). */
  MessageTooLarge: 'MessageTooLarge',
  /** A resume the tree refused (stopped agent without allowStopped, still running, not a descendant, limits). */
  ResumeRefused: 'ResumeRefused',
  /** A rewind of a running agent was refused or could not be carried out; nothing after the refusal changed (docs/rewind.md). */
  RewindRefused: 'RewindRefused',
  /** A child's agent type whose definition (recorded by digest) is no longer where its parent loaded it, and no worker holds its prompt. */
  AgentTypeGone: 'AgentTypeGone',
  /** The conversation a model call read does not hash to what the workflow sent (see activities/model.ts). */
  ConversationMismatch: 'ConversationMismatch',

  // The model API (activities/model-errors.ts decides which are retryable).
  ModelRateLimit: 'ModelInvocationError.RateLimit',
  ModelOverloaded: 'ModelInvocationError.Overloaded',
  ModelServerError: 'ModelInvocationError.ServerError',
  ModelConnection: 'ModelInvocationError.Connection',
  ModelTimeout: 'ModelInvocationError.Timeout',
  ModelConflict: 'ModelInvocationError.Conflict',
  ModelBadRequest: 'ModelInvocationError.BadRequest',
  ModelAuthentication: 'ModelInvocationError.Authentication',
  ModelNotFound: 'ModelInvocationError.NotFound',
  ModelPermission: 'ModelInvocationError.PermissionDenied',

  // Worktree isolation.
  NotAGitRepository: 'NotAGitRepository',
  WorktreeDirNotWritable: 'WorktreeDirNotWritable',
  WorktreeCreateFailed: 'WorktreeCreateFailed',
  WorktreeFinishFailed: 'WorktreeFinishFailed',
  /** Another git process holds a lock file of the repository: retryable. */
  WorktreeBusy: 'WorktreeBusy',

  // Workspace checkpoints (docs/rewind.md).
  /** A checkpoint's ref or objects are gone (dropped by retention or with the agent's checkpoints), or its store is. */
  CheckpointUnavailable: 'CheckpointUnavailable',
  /** A git command of the checkpoint store failed. */
  CheckpointFailed: 'CheckpointFailed',
  /** An agent id, turn, retention setting or restore target the checkpoint store refuses. */
  InvalidCheckpointInput: 'InvalidCheckpointInput',

  // Task board (docs/board.md): refusals of the board's updates, which the model or CLI user reads.
  TaskNotFound: 'TaskNotFound',
  /** Another owner holds the task (in progress). */
  TaskClaimed: 'TaskClaimed',
  /** The task waits for open dependencies, or is blocked. */
  TaskNotReady: 'TaskNotReady',
  /** Completed tasks are not reopened or changed by agents. */
  TaskCompleted: 'TaskCompleted',
  /** A pending task assigned to someone else. */
  TaskAssigned: 'TaskAssigned',
  /** Release of a task nobody holds. */
  TaskNotClaimed: 'TaskNotClaimed',
  DependencyCycle: 'DependencyCycle',
  BoardLimitReached: 'BoardLimitReached',
  InvalidBoardRequest: 'InvalidBoardRequest',
  BoardNotFound: 'BoardNotFound',
  BoardUnavailable: 'BoardUnavailable',
  // Workspace routing (workers without a shared filesystem, docs/operations.md).
  /** The worker holding the agent's files did not take a call within the agent's wait: it is gone. */
  WorkspaceWorkerUnavailable: 'WorkspaceWorkerUnavailable',
  /** A worker with SUBAGENTS_WORKSPACE_ROOT got a call for files outside it (the agent is placed on another worker). */
  WorkspaceNotOnThisWorker: 'WorkspaceNotOnThisWorker',
  // Custom tools and tool task queues (docs/tools.md, "Custom tools", "Tool task queues").
  /** No worker polled a tool's own task queue within the wait: the call did not run. */
  ToolWorkerUnavailable: 'ToolWorkerUnavailable',
  /** A custom tool's `run` threw: the message says what failed. */
  CustomToolFailed: 'CustomToolFailed',
  // Orchestration scripts (docs/workflows.md).
  /** A script refused before its run started: header, syntax, size, or import/require. */
  InvalidScript: 'InvalidScript',
  /** No saved script of that name in the project's or the user's `.claude/workflows`. */
  ScriptNotFound: 'ScriptNotFound',
  /** A `resumeFromRunId` that cannot be resumed: unknown, not a script run, still running, or nothing finished. */
  ScriptResumeRefused: 'ScriptResumeRefused',
  /** A script run that ended with an error: the script threw, hit a limit, or returned what cannot be kept. */
  ScriptFailed: 'ScriptFailed',
  /** An `outputSchema` refused before its agent started: not an object schema, invalid, or no object can match it. */
  InvalidOutputSchema: 'InvalidOutputSchema',
  /** An agent with `outputSchema` used up its attempts without a valid StructuredOutput call (docs/tools.md). */
  StructuredOutputMissing: 'StructuredOutputMissing',
} as const;
export type ErrorTypeName = (typeof ErrorType)[keyof typeof ErrorType];

/** The text of an error: its type name first, so a reader (model or person) and code can both tell the kind. */
export function errorText(type: ErrorTypeName, detail: string): string {
  return `${type}: ${detail}`;
}

/** The message of anything thrown: an Error's message, otherwise the value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
