/**
 * The one error vocabulary of the runtime: ApplicationFailure type names and the first word of
 * every error text the model or a user sees. Code matches `failure.type` against these constants
 * and builds messages with {@link errorText}; nothing types an error name by hand.
 */
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
  StringNotFound: 'StringNotFound',
  StringNotUnique: 'StringNotUnique',
  InvalidPattern: 'InvalidPattern',
  ToolNotAllowed: 'ToolNotAllowed',
  /** A read-only agent's Bash call that could write, run programs or was not understood. */
  CommandNotReadOnly: 'CommandNotReadOnly',
  UnknownTool: 'UnknownTool',

  // Agents and the tree.
  /** The workflow failure of an agent that failed; its details carry the partial AgentResult. */
  AgentFailed: 'AgentFailed',
  MaxTurnsExceeded: 'MaxTurnsExceeded',
  SpawnLimitReached: 'SpawnLimitReached',
  ForkInsideFork: 'ForkInsideFork',
  /** No agent (workflow) with the given agentId. */
  AgentNotFound: 'AgentNotFound',
  /** A message or steer larger than the agent's context can hold (src/workflows/message-size.ts). */
  MessageTooLarge: 'MessageTooLarge',
  /** A resume the tree refused (stopped agent without allowStopped, still running, not a descendant, limits). */
  ResumeRefused: 'ResumeRefused',
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
} as const;
export type ErrorTypeName = (typeof ErrorType)[keyof typeof ErrorType];

/** The text of an error: its type name first, so a reader (model or person) and code can both tell the kind. */
export function errorText(type: ErrorTypeName, detail: string): string {
  return `${type}: ${detail}`;
}
