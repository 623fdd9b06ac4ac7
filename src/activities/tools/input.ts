/** zod helpers for tool inputs written by the model (untrusted, sometimes sloppy about types). */
import { z } from 'zod';
import { ErrorType, errorText } from '../../shared/protocol/errors';

/** An integer; also accepts a string of digits, which models sometimes send. */
export function integerInput(minimum: number, maximum?: number) {
  let schema = z.int().min(minimum);
  if (maximum !== undefined) schema = schema.max(maximum);
  return z.preprocess(
    (value) => (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value),
    schema,
  );
}

/** A boolean; also accepts "true" / "false". */
export function booleanInput() {
  return z.preprocess((value) => (value === 'true' ? true : value === 'false' ? false : value), z.boolean());
}

/** One message naming every bad field, telling the model to fix the call. */
export function formatInputError(toolName: string, error: z.ZodError, allowedFields: readonly string[]): string {
  const problems = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((key) => `"${key}"`).join(', ');
      return `unknown field ${keys} (allowed fields: ${allowedFields.join(', ')})`;
    }
    const field = issue.path.length > 0 ? `"${issue.path.join('.')}"` : 'input';
    if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
      return `${field} is required (expected ${issue.expected})`;
    }
    return `${field}: ${issue.message}`;
  });
  return errorText(
    ErrorType.InvalidToolInput,
    `${toolName} was called with invalid input: ${problems.join('; ')}. Fix the input and call ${toolName} again.`,
  );
}
