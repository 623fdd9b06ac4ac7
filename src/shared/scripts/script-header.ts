// The `export const meta = {...}` header of a script: finding it and reading its pure literal (docs/workflows.md).
import type { ModuleDeclaration, Node, Statement } from 'acorn';

/** Thrown while reading the header literal; carries the node it is about. */
export class LiteralProblem extends Error {
  constructor(
    readonly node: Node,
    message: string,
  ) {
    super(message);
  }
}

/** The object literal of `export const meta = {...}`, or undefined when the statement is something else. */
export function headerObject(statement: Statement | ModuleDeclaration): Node | undefined {
  if (statement.type !== 'ExportNamedDeclaration' || !statement.declaration) return undefined;
  const declaration = statement.declaration;
  if (declaration.type !== 'VariableDeclaration' || declaration.kind !== 'const') return undefined;
  if (declaration.declarations.length !== 1) return undefined;
  const declarator = declaration.declarations[0]!;
  if (declarator.id.type !== 'Identifier' || declarator.id.name !== 'meta') return undefined;
  if (!declarator.init || declarator.init.type !== 'ObjectExpression') return undefined;
  return declarator.init;
}

/** The value of a pure literal (objects, arrays, strings, numbers, booleans, null); anything else is refused. */
export function literalValue(node: Node): unknown {
  const any = node as Node & Record<string, unknown>;
  switch (node.type) {
    case 'ObjectExpression': {
      const result: Record<string, unknown> = {};
      for (const property of any.properties as (Node & Record<string, unknown>)[]) {
        if (property.type !== 'Property') throw new LiteralProblem(property, 'may not use spread (...)');
        if (property.kind !== 'init' || property.method) throw new LiteralProblem(property, 'may not have methods');
        if (property.computed) throw new LiteralProblem(property, 'may not have computed keys ([key])');
        if (property.shorthand) throw new LiteralProblem(property, 'may not refer to variables ({ name } shorthand)');
        const key = property.key as Node & Record<string, unknown>;
        const name =
          key.type === 'Identifier'
            ? (key.name as string)
            : key.type === 'Literal' && (typeof key.value === 'string' || typeof key.value === 'number')
              ? String(key.value)
              : undefined;
        if (name === undefined) throw new LiteralProblem(key, 'has a key that is not a name or string');
        if (name === '__proto__') throw new LiteralProblem(key, 'may not have a __proto__ key');
        if (Object.hasOwn(result, name)) throw new LiteralProblem(key, `has the key "${name}" twice`);
        result[name] = literalValue(property.value as Node);
      }
      return result;
    }
    case 'ArrayExpression':
      return (any.elements as (Node | null)[]).map((element) => {
        if (element === null) throw new LiteralProblem(node, 'may not have holes in arrays');
        if (element.type === 'SpreadElement') throw new LiteralProblem(element, 'may not use spread (...)');
        return literalValue(element);
      });
    case 'Literal': {
      const value = any.value;
      if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value;
      throw new LiteralProblem(
        node,
        'may hold only strings, numbers, booleans and null (no regular expressions or BigInt)',
      );
    }
    case 'TemplateLiteral': {
      if ((any.expressions as Node[]).length > 0)
        throw new LiteralProblem(node, 'may not use template interpolation (${...})');
      const quasi = (any.quasis as { value: { cooked: string | null } }[])[0];
      if (quasi?.value.cooked == null) throw new LiteralProblem(node, 'has an invalid template string');
      return quasi.value.cooked;
    }
    case 'UnaryExpression': {
      const argument = any.argument as Node & Record<string, unknown>;
      if (any.operator === '-' && argument.type === 'Literal' && typeof argument.value === 'number')
        return -argument.value;
      throw new LiteralProblem(node, 'may not compute values (only a minus sign before a number)');
    }
    default:
      throw new LiteralProblem(
        node,
        `may not contain ${describeNode(node)} (no variables, calls, operators or functions)`,
      );
  }
}

function describeNode(node: Node): string {
  switch (node.type) {
    case 'Identifier':
      return `a variable (${String((node as Node & { name?: unknown }).name)})`;
    case 'CallExpression':
    case 'NewExpression':
      return 'a call';
    case 'TaggedTemplateExpression':
      return 'a tagged template';
    default:
      return `an expression (${node.type})`;
  }
}

/** The header's node at a field path (the deepest one found), for the error's line:column. */
export function nodeAt(header: Node, fieldPath: readonly PropertyKey[]): Node {
  let node = header;
  for (const step of fieldPath) {
    const fields = node as Node & Record<string, unknown>;
    let next: Node | undefined;
    if (node.type === 'ObjectExpression')
      next = (fields.properties as (Node & { key: Node & Record<string, unknown>; value: Node })[]).find(
        (property) => String(property.key.name ?? property.key.value) === String(step),
      )?.value;
    else if (node.type === 'ArrayExpression' && typeof step === 'number')
      next = (fields.elements as (Node | null)[])[step] ?? undefined;
    if (!next) break;
    node = next;
  }
  return node;
}
