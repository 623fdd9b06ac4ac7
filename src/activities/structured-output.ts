import Ajv from 'ajv';
import { setRecent } from '../project/recent-map';
import { schemaPreflight } from '../shared/scripts/schema-preflight';
import { ErrorType, errorText, messageOf } from '../shared/protocol/errors';
import type {
  CheckOutputSchemaInput,
  OutputSchemaCheck,
  StructuredOutputVerdict,
  ValidateStructuredOutputInput,
} from '../shared/tools/structured-output';

// ajv compiles a schema into code, so it runs here and never in the workflow sandbox (docs/tools.md, "Structured output").

/** Compiled schemas a worker keeps (the least recently used go first). */
const defaultCacheSize = 64;
/** Validation errors listed in one tool result; the rest are counted. */
const maxListedErrors = 10;
/** Characters of one verdict's error text. */
const maxErrorChars = 2000;

type Compiled = { validate: Ajv.ValidateFunction; ajv: Ajv.Ajv } | { refusal: string };

/** `checkOutputSchema` and `validateStructuredOutput`, sharing one bounded cache of compiled schemas keyed by their JSON. */
export function createStructuredOutputActivities(options: { cacheSize?: number } = {}) {
  const cacheSize = options.cacheSize ?? defaultCacheSize;
  const compiled = new Map<string, Compiled>();

  function compile(schema: unknown): Compiled {
    const refused = schemaPreflight(schema);
    if (refused) return { refusal: refused };
    const key = JSON.stringify(schema);
    const cached = compiled.get(key);
    if (cached) return setRecent(compiled, key, cached, cacheSize);
    return setRecent(compiled, key, compileFresh(schema as Record<string, unknown>), cacheSize);
  }

  return {
    /** Whether a schema can be used (before its agent's first model call): schemaPreflight, then ajv's meta-schema. */
    checkOutputSchema: async ({ schema }: CheckOutputSchemaInput): Promise<OutputSchemaCheck> => {
      const result = compile(schema);
      return 'refusal' in result ? { ok: false, refusal: result.refusal } : { ok: true };
    },
    /** A StructuredOutput call's input against its agent's schema. */
    validateStructuredOutput: async ({
      schema,
      value,
    }: ValidateStructuredOutputInput): Promise<StructuredOutputVerdict> => {
      const result = compile(schema);
      if ('refusal' in result) return { ok: false, errors: result.refusal };
      if (result.validate(value)) return { ok: true };
      return { ok: false, errors: errorsOf(result.ajv, result.validate.errors) };
    },
  };
}

/** A fresh ajv per schema: schemas of different agents may reuse an `$id`, which one ajv refuses. */
function compileFresh(schema: Record<string, unknown>): Compiled {
  // Draft-07 (ajv 6); all errors, so one retry can fix every field; no coercion or defaults: the answer is checked as sent.
  const ajv = new Ajv({ allErrors: true });
  try {
    if (!ajv.validateSchema(schema)) {
      return { refusal: invalid(ajv.errorsText(ajv.errors, { dataVar: 'schema' })) };
    }
    return { validate: ajv.compile(schema), ajv };
  } catch (error) {
    // Unknown `$schema` drafts, unresolvable `$ref`s and unknown formats throw at compile time.
    return { refusal: invalid(messageOf(error)) };
  }
}

function invalid(detail: string): string {
  return errorText(
    ErrorType.InvalidOutputSchema,
    `the output schema is not a valid JSON Schema (draft-07): ${clip(detail)}. Fix the schema and start again.`,
  );
}

function errorsOf(ajv: Ajv.Ajv, errors: Ajv.ErrorObject[] | null | undefined): string {
  const list = errors ?? [];
  const text = ajv.errorsText(list.slice(0, maxListedErrors), { dataVar: 'output' });
  const more = list.length > maxListedErrors ? ` (and ${list.length - maxListedErrors} more)` : '';
  return clip(text + more);
}

function clip(text: string): string {
  return text.length > maxErrorChars ? `${text.slice(0, maxErrorChars)}…` : text;
}
