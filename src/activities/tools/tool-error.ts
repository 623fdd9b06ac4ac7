/** Failures a tool reports to the model as an error tool_result instead of throwing. */
import { errorText, type ErrorTypeName } from '../../shared/protocol/errors';

/** Kinds of refusal: the error types a tool reports to the model (the first word of its message). */
export type ToolRefusalKind = Extract<
  ErrorTypeName,
  | 'PathOutsideWorkspace'
  | 'InvalidToolInput'
  | 'FileNotRead'
  | 'FileChangedSinceRead'
  | 'FileNotFound'
  | 'NotAFile'
  | 'NotADirectory'
  | 'BinaryFile'
  | 'FileTooLarge'
  | 'HardLinkedFile'
  | 'StringNotFound'
  | 'StringNotUnique'
  | 'InvalidPattern'
  | 'SearchTimedOut'
  | 'SandboxUnavailable'
>;

/** A refusal the model can act on: its message says what to do instead. */
export class ToolRefusal extends Error {
  override readonly name = 'ToolRefusal';

  constructor(
    readonly kind: ToolRefusalKind,
    detail: string,
  ) {
    super(errorText(kind, detail));
  }
}

/** The call was cancelled through its AbortSignal. */
export class ToolCancelled extends Error {
  override readonly name = 'ToolCancelled';

  constructor() {
    super('cancelled');
  }
}

/** True for Node system errors (ENOENT, EACCES, ...), which are reported to the model, not retried. */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}
