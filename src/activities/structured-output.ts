import Ajv from 'ajv';
import { setRecent } from '../project/recent-map';
import { utf8Length } from '../shared/model/context-estimate';
import { scriptLimits } from '../shared/scripts/script-run';
import { schemaPreflight } from '../shared/scripts/schema-preflight';
import { ErrorType, errorText, messageOf } from '../shared/protocol/errors';
import type {
  CheckOutputSchemaInput,
  OutputSchemaCheck,
  StructuredOutputVerdict,
  ValidateStructuredOutputInput,
} from '../shared/tools/structured-output';
import { patternCheckTimeLimitMs, schemaRunsRegexes, validateInThread } from './structured-output-patterns';

// ajv compiles a schema into code, so it runs here and never in the workflow sandbox (docs/tools.md, "Structured output").

/** Compiled schemas a worker keeps (the least recently used go first). */
const defaultCacheSize = 64;
/** Validation errors listed in one tool result; the rest are counted. */
const maxListedErrors = 10;
/** Characters of one verdict's error text. */
const maxErrorChars = 2000;
/** JSON bytes of an output that is validated: an agent's answer goes back to its script, whose result has this limit. */
export const maxOutputBytes = scriptLimits.maxResultBytes;

// Draft-07 (ajv 6); all errors, so one retry can fix every field; no coercion or defaults: the answer is checked as sent.
const ajvOptions: Ajv.Options = { allErrors: true };

type Compiled = { validate: Ajv.ValidateFunction; ajv: Ajv.Ajv; runsRegexes: boolean } | { refusal: string };

/**
 * `checkOutputSchema` and `validateStructuredOutput`, sharing one bounded cache of compiled schemas keyed by their JSON.
 * A schema with model-written regexes is checked in a worker thread stopped after `patternTimeLimitMs`.
 */
export function createStructuredOutputActivities(options: { cacheSize?: number; patternTimeLimitMs?: number } = {}) {
  const cacheSize = options.cacheSize ?? defaultCacheSize;
  const patternTimeLimitMs = options.patternTimeLimitMs ?? patternCheckTimeLimitMs;
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
      const bytes = utf8Length(JSON.stringify(value) ?? '');
      if (bytes > maxOutputBytes) {
        return {
          ok: false,
          errors: `the output is ${bytes} bytes of JSON, more than the limit of ${maxOutputBytes}; send a smaller object`,
        };
      }
      // A model's regex can backtrack for minutes ((a+)+$): off this event loop, with a time limit.
      if (!result.runsRegexes) {
        if (result.validate(value)) return { ok: true };
        return { ok: false, errors: errorsOf(result.ajv, result.validate.errors) };
      }
      const verdict = await validateInThread(schema, value, ajvOptions, patternTimeLimitMs);
      if ('timedOut' in verdict) return { ok: false, errors: tooSlow(patternTimeLimitMs) };
      return verdict.valid ? { ok: true } : { ok: false, errors: errorsOf(result.ajv, verdict.errors) };
    },
  };
}

/** A fresh ajv per schema: schemas of different agents may reuse an `$id`, which one ajv refuses. */
function compileFresh(schema: Record<string, unknown>): Compiled {
  // Compiling only builds the RegExps; none is run here.
  const ajv = new Ajv(ajvOptions);
  try {
    if (!ajv.validateSchema(schema)) {
      return { refusal: invalid(ajv.errorsText(ajv.errors, { dataVar: 'schema' })) };
    }
    return { validate: ajv.compile(schema), ajv, runsRegexes: schemaRunsRegexes(schema) };
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

function tooSlow(limitMs: number): string {
  return (
    `the schema's pattern took longer than ${limitMs / 1000} s to check against this output and was stopped ` +
    '(a pattern such as (a+)+$ can take exponential time on some strings); send strings that plainly match it, ' +
    'or, if you wrote the schema, simplify the pattern'
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
