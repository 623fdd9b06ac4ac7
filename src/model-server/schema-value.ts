/** A value that satisfies a JSON Schema, built deterministically: how the demo model fills a StructuredOutput tool. */
import { isRecord } from './tokens';

type Schema = Record<string, unknown>;

/** Nested `$ref`s and schemas deeper than this give null: a recursive schema still yields a (small) value. */
const maxDepth = 24;

const formatSamples: Record<string, string> = {
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  time: '00:00:00Z',
  email: 'demo@example.com',
  hostname: 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
};

/**
 * A value valid against `schema` (types, const, enum, required, properties, items and tuples, lengths, bounds,
 * multipleOf, formats, $ref, allOf, anyOf, oneOf). `suggestion` (an object for an object schema, by property name,
 * nested likewise) is used wherever it fits; the rest is filled in: required properties only, one item per array.
 */
export function valueFromSchema(schema: unknown, suggestion?: unknown): unknown {
  return new SchemaFiller(schema).valueFor(schema, suggestion, 0, 0);
}

class SchemaFiller {
  constructor(private readonly root: unknown) {}

  valueFor(raw: unknown, suggestion: unknown, variant: number, depth: number): unknown {
    const schema = this.resolve(raw, depth);
    if (schema === undefined || depth > maxDepth) return null;
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length > 0)
      return schema.enum.some((option) => sameJson(option, suggestion))
        ? suggestion
        : schema.enum[variant % schema.enum.length];
    if (Array.isArray(schema.allOf)) return this.valueFor(this.mergeAll(schema, depth), suggestion, variant, depth + 1);
    const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : [];
    if (branches.length > 0) {
      const rest = Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'anyOf' && key !== 'oneOf'));
      return this.valueFor({ ...rest, ...this.resolve(branches[0], depth) }, suggestion, variant, depth + 1);
    }
    switch (typeOf(schema, suggestion)) {
      case 'object':
        return this.objectFor(schema, suggestion, depth);
      case 'array':
        return this.arrayFor(schema, suggestion, depth);
      case 'string':
        return stringFor(schema, suggestion, variant);
      case 'integer':
        return numberFor(schema, suggestion, variant, true);
      case 'number':
        return numberFor(schema, suggestion, variant, false);
      case 'boolean':
        return typeof suggestion === 'boolean' ? suggestion : variant % 2 === 1;
      default:
        return null;
    }
  }

  /** The schema itself, or what its local `$ref` (`#/...`) points at; undefined for `false` or a dangling ref. */
  private resolve(raw: unknown, depth: number): Schema | undefined {
    if (raw === true) return {};
    if (!isRecord(raw)) return undefined;
    if (typeof raw.$ref !== 'string') return raw;
    if (depth > maxDepth || !raw.$ref.startsWith('#')) return undefined;
    let target: unknown = this.root;
    for (const part of raw.$ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~');
      target = isRecord(target) ? target[key] : undefined;
    }
    const { $ref: _ref, ...siblings } = raw;
    const resolved = this.resolve(target, depth + 1);
    return resolved && { ...resolved, ...siblings };
  }

  /** allOf folded into one schema: properties and required lists joined, the other keywords of the last one win. */
  private mergeAll(schema: Schema, depth: number): Schema {
    const { allOf, ...rest } = schema;
    let merged: Schema = rest;
    for (const part of allOf as unknown[]) {
      const resolved = this.resolve(part, depth + 1) ?? {};
      merged = {
        ...merged,
        ...resolved,
        properties: { ...asRecord(merged.properties), ...asRecord(resolved.properties) },
        required: [...new Set([...asStrings(merged.required), ...asStrings(resolved.required)])],
      };
    }
    return merged;
  }

  private objectFor(schema: Schema, suggestion: unknown, depth: number): Record<string, unknown> {
    const properties = asRecord(schema.properties);
    const given = isRecord(suggestion) ? suggestion : {};
    const extra = schema.additionalProperties;
    const keys = [...asStrings(schema.required)];
    for (const key of Object.keys(given))
      if (!keys.includes(key) && (key in properties || (extra !== false && extra !== undefined))) keys.push(key);
    const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
    for (const key of Object.keys(properties)) if (keys.length < minProperties && !keys.includes(key)) keys.push(key);
    const value: Record<string, unknown> = {};
    for (const key of keys) {
      const propertySchema = key in properties ? properties[key] : isRecord(extra) ? extra : {};
      value[key] = this.valueFor(propertySchema, given[key], 0, depth + 1);
    }
    return value;
  }

  private arrayFor(schema: Schema, suggestion: unknown, depth: number): unknown[] {
    const tuple = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : [];
    const itemSchema = Array.isArray(schema.items) ? (schema.additionalItems ?? {}) : (schema.items ?? {});
    const given = Array.isArray(suggestion) ? suggestion : [];
    const minItems = Math.max(typeof schema.minItems === 'number' ? schema.minItems : 0, tuple.length);
    const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
    const count = Math.min(Math.max(minItems, given.length > 0 ? given.length : 1), maxItems);
    return Array.from({ length: count }, (_, index) =>
      this.valueFor(index < tuple.length ? tuple[index] : itemSchema, given[index], index, depth + 1),
    );
  }
}

function typeOf(schema: Schema, suggestion: unknown): string {
  const declared = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  const types = declared.filter((type): type is string => typeof type === 'string');
  const suggested = suggestionType(suggestion);
  if (types.length > 0)
    return types.includes(suggested) ? suggested : (types.find((type) => type !== 'null') ?? types[0]!);
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema) return 'object';
  if ('items' in schema || 'prefixItems' in schema || 'minItems' in schema) return 'array';
  if ('minimum' in schema || 'maximum' in schema || 'multipleOf' in schema) return 'number';
  return suggestion === undefined ? 'string' : suggested;
}

function suggestionType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function stringFor(schema: Schema, suggestion: unknown, variant: number): string {
  const format = typeof schema.format === 'string' ? formatSamples[schema.format] : undefined;
  if (format !== undefined && !(typeof suggestion === 'string' && fitsString(schema, suggestion))) return format;
  const base = typeof suggestion === 'string' ? suggestion : variant > 0 ? `example ${variant + 1}` : 'example';
  const pattern = typeof schema.pattern === 'string' ? safeRegExp(schema.pattern) : undefined;
  if (pattern && !pattern.test(base)) {
    const candidate = [`${variant}`, 'a', 'A', '0', 'example', ''].find((text) => pattern.test(text));
    if (candidate !== undefined) return candidate;
  }
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const characters = [...base];
  while (characters.length < minLength) characters.push('x');
  return characters.slice(0, maxLength).join('');
}

function fitsString(schema: Schema, text: string): boolean {
  const pattern = typeof schema.pattern === 'string' ? safeRegExp(schema.pattern) : undefined;
  const length = [...text].length;
  return (
    (pattern === undefined || pattern.test(text)) &&
    (typeof schema.minLength !== 'number' || length >= schema.minLength) &&
    (typeof schema.maxLength !== 'number' || length <= schema.maxLength)
  );
}

function numberFor(schema: Schema, suggestion: unknown, variant: number, integer: boolean): number {
  const bound = (key: string): number | undefined => (typeof schema[key] === 'number' ? schema[key] : undefined);
  const multipleOf = bound('multipleOf');
  // Draft 4 spells exclusive bounds as booleans next to minimum/maximum.
  const exclusiveMinimum =
    bound('exclusiveMinimum') ?? (schema.exclusiveMinimum === true ? bound('minimum') : undefined);
  const exclusiveMaximum =
    bound('exclusiveMaximum') ?? (schema.exclusiveMaximum === true ? bound('maximum') : undefined);
  const minimum = schema.exclusiveMinimum === true ? undefined : bound('minimum');
  const maximum = schema.exclusiveMaximum === true ? undefined : bound('maximum');
  const fits = (value: number): boolean =>
    (!integer || Number.isInteger(value)) &&
    (minimum === undefined || value >= minimum) &&
    (maximum === undefined || value <= maximum) &&
    (exclusiveMinimum === undefined || value > exclusiveMinimum) &&
    (exclusiveMaximum === undefined || value < exclusiveMaximum) &&
    (multipleOf === undefined || Number.isInteger(value / multipleOf));
  if (typeof suggestion === 'number' && fits(suggestion)) return suggestion;
  const step = multipleOf ?? 1;
  const lower = minimum ?? exclusiveMinimum;
  const upper = maximum ?? exclusiveMaximum;
  const candidates = [
    variant * step,
    minimum,
    exclusiveMinimum === undefined ? undefined : exclusiveMinimum + step,
    lower === undefined || upper === undefined ? undefined : (lower + upper) / 2,
    maximum,
    exclusiveMaximum === undefined ? undefined : exclusiveMaximum - step,
  ].filter((value): value is number => value !== undefined);
  // Each candidate rounded both ways onto the grid (integers, multiples): the first that fits every bound wins.
  const grid = (value: number, round: (value: number) => number): number => {
    const onStep = multipleOf === undefined ? value : round(value / multipleOf) * multipleOf;
    return integer ? round(onStep) : onStep;
  };
  for (const candidate of candidates)
    for (const value of [grid(candidate, Math.ceil), grid(candidate, Math.floor)]) if (fits(value)) return value;
  return candidates[0] ?? 0;
}

function safeRegExp(source: string): RegExp | undefined {
  try {
    return new RegExp(source, 'u');
  } catch {
    return undefined;
  }
}

const sameJson = (left: unknown, right: unknown): boolean => JSON.stringify(left) === JSON.stringify(right);
const asRecord = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
const asStrings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
