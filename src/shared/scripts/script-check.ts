// A script's checks before its run: size, syntax, the `meta` header, no import/require (docs/workflows.md). Pure, Node only.
import { parse, type Node, type Options, type Program, type Statement, type ModuleDeclaration } from 'acorn';
import { headerObject, LiteralProblem, literalValue, nodeAt } from './script-header';
import { z } from 'zod';
import { ErrorType, errorText } from '../protocol/errors';
import { scriptLimits, type CheckedScript, type ScriptMeta, type ScriptOrigin } from './script-run';

/** Bounds of the header's fields. */
export const scriptMetaLimits = {
  maxNameChars: 100,
  maxDescriptionChars: 2000,
  maxWhenToUseChars: 2000,
  maxPhases: 50,
  maxPhaseTitleChars: 200,
  maxPhaseDetailChars: 2000,
  maxModelChars: 200,
} as const;

/** A script's name: letters, digits, `-` and `_` (it names the file `<name>.js` of a saved script). */
export const scriptNamePattern = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

const parseOptions: Options = {
  ecmaVersion: 'latest',
  sourceType: 'module',
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: true,
  locations: true,
};

const metaSchema = z.object({
  name: z
    .string()
    .min(1)
    .max(scriptMetaLimits.maxNameChars)
    .regex(scriptNamePattern, 'use letters, digits, - and _ only (it is the saved file name <name>.js)'),
  description: z.string().trim().min(1).max(scriptMetaLimits.maxDescriptionChars),
  whenToUse: z.string().max(scriptMetaLimits.maxWhenToUseChars).optional(),
  phases: z
    .array(
      z.object({
        title: z.string().trim().min(1).max(scriptMetaLimits.maxPhaseTitleChars),
        detail: z.string().max(scriptMetaLimits.maxPhaseDetailChars).optional(),
        model: z.string().min(1).max(scriptMetaLimits.maxModelChars).optional(),
      }),
    )
    .max(scriptMetaLimits.maxPhases)
    .optional(),
});

const headerExample = "export const meta = { name: 'my-script', description: 'What it does' };";

/** `line:column` of a node (1-based column, as editors show it). */
function where(node: Node): string {
  const start = node.loc?.start;
  return start ? `${start.line}:${start.column + 1}` : `offset ${node.start}`;
}

function refused(detail: string): { ok: false; error: string } {
  return { ok: false, error: errorText(ErrorType.InvalidScript, detail) };
}

/** Checks a script's source and splits off its header; the error says line:column and what to change. */
export function checkScript(
  source: string,
  origin: ScriptOrigin,
  path?: string,
): { ok: true; script: CheckedScript } | { ok: false; error: string } {
  const bytes = new TextEncoder().encode(source).length;
  if (bytes > scriptLimits.maxScriptBytes)
    return refused(
      `the script is ${bytes} bytes; scripts are at most ${scriptLimits.maxScriptBytes} bytes. ` +
        'Move data into `args` or split the work into smaller scripts.',
    );
  let program: Program;
  try {
    program = parse(source, parseOptions);
  } catch (error) {
    return refused(syntaxErrorText(error));
  }
  const first = program.body[0];
  const header = first ? headerObject(first) : undefined;
  if (!first || !header)
    return refused(
      `${first ? where(first) : '1:1'}: a script must start with its header, a plain object literal: ${headerExample}`,
    );
  let literal: unknown;
  try {
    literal = literalValue(header);
  } catch (error) {
    if (error instanceof LiteralProblem)
      return refused(`${where(error.node)}: the meta header ${error.message}; write it as a plain literal.`);
    throw error;
  }
  const parsed = metaSchema.safeParse(literal);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? `meta.${issue.path.join('.')}` : 'meta';
    const at = where(nodeAt(header, issue.path));
    return refused(`${at}: ${field}: ${issue.message}. Fix the header (${headerExample}).`);
  }
  for (const statement of program.body.slice(1)) {
    const problem = moduleProblem(statement);
    if (problem) return refused(problem);
  }
  const forbidden = findForbidden(program);
  if (forbidden) return refused(forbidden);
  const script: CheckedScript = {
    meta: metaOf(parsed.data),
    source,
    body: blankedOut(source, first.start, first.end),
    origin,
  };
  if (path !== undefined) script.path = path;
  return { ok: true, script };
}

/** The meta fields as the contract's type, optional ones only when given. */
function metaOf(data: z.infer<typeof metaSchema>): ScriptMeta {
  const meta: ScriptMeta = { name: data.name, description: data.description };
  if (data.whenToUse !== undefined) meta.whenToUse = data.whenToUse;
  if (data.phases !== undefined)
    meta.phases = data.phases.map((phase) => {
      const entry: { title: string; detail?: string; model?: string } = { title: phase.title };
      if (phase.detail !== undefined) entry.detail = phase.detail;
      if (phase.model !== undefined) entry.model = phase.model;
      return entry;
    });
  return meta;
}

function syntaxErrorText(error: unknown): string {
  if (error instanceof RangeError)
    return '1:1: the script nests too deeply to parse; flatten it (fewer nested brackets or calls) and run it again.';
  const location = (error as { loc?: { line: number; column: number } }).loc;
  const message = (error instanceof Error ? error.message : String(error)).replace(/ \(\d+:\d+\)$/, '');
  const at = location ? `${location.line}:${location.column + 1}: ` : '';
  return (
    `${at}syntax error: ${message}. Scripts are plain JavaScript (no TypeScript types or annotations) ` +
    'with top-level await and return; fix the script and run it again.'
  );
}

/** Import and export statements after the header: refused (scripts have no modules). */
function moduleProblem(statement: Statement | ModuleDeclaration): string | undefined {
  switch (statement.type) {
    case 'ImportDeclaration':
      return (
        `${where(statement)}: scripts cannot import modules; use the script API ` +
        '(agent, parallel, pipeline, phase, log, budget, workflow, args) and have agents do file and shell work.'
      );
    case 'ExportNamedDeclaration':
    case 'ExportDefaultDeclaration':
    case 'ExportAllDeclaration':
      return `${where(statement)}: only the meta header may be exported; remove this export and return the result instead.`;
    default:
      return undefined;
  }
}

/** The first `import()`, `import.meta` or `require(...)` anywhere in the program, as an error text. */
function findForbidden(program: Program): string | undefined {
  const pending: unknown[] = [program];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) pending.push(value[index]);
      continue;
    }
    if (!isNode(value)) continue;
    const problem = forbiddenNode(value);
    if (problem) return problem;
    for (const [key, child] of Object.entries(value))
      if (key !== 'loc' && typeof child === 'object') pending.push(child);
  }
  return undefined;
}

function isNode(value: unknown): value is Node & Record<string, unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function forbiddenNode(node: Node & Record<string, unknown>): string | undefined {
  if (node.type === 'ImportExpression')
    return `${where(node)}: scripts cannot load modules with import(); use the script API and have agents do file and shell work.`;
  if (node.type === 'MetaProperty') {
    const meta = (node.meta as { name: string }).name;
    if (meta === 'import') return `${where(node)}: scripts have no import.meta; pass what you need in \`args\`.`;
  }
  if (node.type === 'CallExpression') {
    const callee = node.callee as Node & Record<string, unknown>;
    if (callee.type === 'Identifier' && callee.name === 'require')
      return `${where(node)}: scripts cannot require() modules; use the script API and have agents do file and shell work.`;
  }
  return undefined;
}

/** The source with [start, end) replaced by spaces, newlines kept, so line and column numbers stay. */
function blankedOut(source: string, start: number, end: number): string {
  return source.slice(0, start) + source.slice(start, end).replace(/[^\r\n\u2028\u2029]/g, ' ') + source.slice(end);
}
