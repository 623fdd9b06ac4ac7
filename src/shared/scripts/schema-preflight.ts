import { utf8Length } from '../model/context-estimate';
import { ErrorType, errorText } from '../protocol/errors';
import { scriptLimits } from './script-run';

// The checks of an `outputSchema` that need no JSON Schema engine (workflow-safe); the activity
// `checkOutputSchema` (src/activities/structured-output.ts) adds ajv's meta-schema check.

type SchemaObject = Record<string, unknown>;

function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The refusal of a schema no agent could answer (size, root not an object, a required key ruled out); undefined if none. */
export function schemaPreflight(schema: unknown): string | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(schema);
  } catch (error) {
    return refusal(`it is not JSON (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (json === undefined) return refusal('it is missing: give a JSON Schema object such as {type: "object", ...}.');
  const bytes = utf8Length(json);
  if (bytes > scriptLimits.maxAgentOptionsBytes) {
    return refusal(
      `it is ${bytes} bytes of JSON, more than the limit of ${scriptLimits.maxAgentOptionsBytes}; make it smaller.`,
    );
  }
  if (!isSchemaObject(schema) || schema.type !== 'object') {
    return refusal(
      'its root must be {type: "object", ...}: the agent answers with an object. ' +
        'Wrap another value in a property, e.g. {type: "object", properties: {items: {type: "array"}}, required: ["items"]}.',
    );
  }
  return unmatchableRequired(schema, 'the schema');
}

function refusal(detail: string): string {
  return errorText(ErrorType.InvalidOutputSchema, `the output schema was refused: ${detail}`);
}

/**
 * A `required` key that no object can have, in a schema every valid answer must be an object of: the root, its
 * `allOf` members, and required properties typed `object`. Only provable conflicts count (no `$ref` resolution).
 */
export function unmatchableRequired(schema: SchemaObject, where: string): string | undefined {
  const properties = isSchemaObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((key): key is string => typeof key === 'string')
    : [];
  for (const key of required) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (property === false) {
      return refusal(`${where} requires "${key}" but its schema for "${key}" is false, so no object can match.`);
    }
    if (property === undefined && schema.additionalProperties === false && !matchesPattern(schema)) {
      return refusal(
        `${where} requires "${key}" but has additionalProperties: false and no "${key}" in properties, ` +
          `so no object can match. Add "${key}" to properties or remove it from required.`,
      );
    }
    if (isSchemaObject(property) && property.type === 'object') {
      const inner = unmatchableRequired(property, `${where}'s property "${key}"`);
      if (inner) return inner;
    }
  }
  const members = Array.isArray(schema.allOf) ? schema.allOf : [];
  for (const [index, member] of members.entries()) {
    if (!isSchemaObject(member)) continue;
    const inner = unmatchableRequired(member, `${where}'s allOf[${index}]`);
    if (inner) return inner;
  }
  return undefined;
}

/**
 * A key `patternProperties` may admit: any, when it has a pattern. Running a model's regex here could stall the
 * workflow ((a+)+$ on a long key backtracks for minutes), so a pattern proves nothing; ajv checks the answer later.
 */
function matchesPattern(schema: SchemaObject): boolean {
  return isSchemaObject(schema.patternProperties) && Object.keys(schema.patternProperties).length > 0;
}
