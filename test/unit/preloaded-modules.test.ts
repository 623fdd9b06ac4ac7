// The modules a worker evaluates once and shares between workflow runs (src/workflows/runtime/preloaded-modules.ts)
// must hold no state of one run: checked on their source, with everything they import.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');
const preloadEntry = path.join(root, 'src', 'workflows', 'runtime', 'preloaded-modules.ts');
const bundleEntries = [
  path.join(root, 'src', 'workflows', 'index.ts'),
  path.join(root, 'src', 'workflows', 'runtime', 'cancel-notice.ts'),
];

/** Packages a preloaded module may import: evaluated once with no workflow running, they read nothing of one (no random, no time). */
const shareablePackages = new Set(['@temporalio/workflow', '@temporalio/common', 'ignore']);

/** Each file parsed once: the closures below visit most modules many times. */
const parsed = new Map<string, ts.SourceFile>();
function parse(file: string): ts.SourceFile {
  let source = parsed.get(file);
  if (!source)
    parsed.set(file, (source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)));
  return source;
}

/** What a module imports at run time (type-only imports and re-exports left out): relative files resolved, packages by name. */
function runtimeImports(file: string): string[] {
  const found: string[] = [];
  for (const statement of parse(file).statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) specifier = statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) specifier = statement.moduleSpecifier;
    if (specifier && ts.isStringLiteral(specifier)) found.push(resolve(file, specifier.text));
  }
  return found;
}

function resolve(from: string, specifier: string): string {
  if (!specifier.startsWith('.'))
    return specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
  const base = path.resolve(path.dirname(from), specifier);
  const candidate = [base, `${base}.ts`, base.replace(/\.js$/, '.ts'), path.join(base, 'index.ts')].find(
    (file) => fs.existsSync(file) && fs.statSync(file).isFile(),
  );
  if (!candidate) throw new Error(`${path.relative(root, from)}: cannot resolve ${specifier}`);
  return candidate;
}

function closure(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (module: string) => {
    if (seen.has(module)) return;
    seen.add(module);
    if (path.isAbsolute(module) && module.endsWith('.ts')) runtimeImports(module).forEach(visit);
  };
  entries.forEach(visit);
  return seen;
}

const readonlyCollection = /^Readonly(Map|Set)</;

/**
 * Top-level statements that would carry one run's state into the next when evaluated once: `let`/`var`,
 * a mutable Map/Set/WeakMap/WeakSet, a class's static field that is not readonly, any statement run for
 * its effect. Each a line `file:line: what`.
 */
function stateOf(file: string): string[] {
  const source = parse(file);
  const at = (node: ts.Node, what: string) =>
    `${path.relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`;
  const problems: string[] = [];
  for (const statement of source.statements) {
    if (
      ts.isImportDeclaration(statement) ||
      ts.isExportDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) ||
      ts.isFunctionDeclaration(statement)
    )
      continue;
    if (ts.isClassDeclaration(statement)) {
      for (const member of statement.members) {
        const modifiers = ts.isPropertyDeclaration(member) ? (ts.getModifiers(member) ?? []) : [];
        if (
          modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.StaticKeyword) &&
          !modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.ReadonlyKeyword)
        ) {
          problems.push(at(member, 'a static field that is not readonly'));
        }
      }
      continue;
    }
    if (ts.isVariableStatement(statement)) {
      if (!(statement.declarationList.flags & ts.NodeFlags.Const)) {
        problems.push(at(statement, 'a module-level let/var'));
        continue;
      }
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (
          init &&
          ts.isNewExpression(init) &&
          /^(Weak)?(Map|Set)$/.test(init.expression.getText(source)) &&
          !readonlyCollection.test(declaration.type?.getText(source) ?? '')
        ) {
          problems.push(at(declaration, `a module-level ${init.expression.getText(source)} not typed Readonly`));
        }
      }
      continue;
    }
    // setWorkflowOptions only attaches a getter to the workflow function; the getter runs once per run.
    if (
      ts.isExpressionStatement(statement) &&
      ts.isCallExpression(statement.expression) &&
      statement.expression.expression.getText(source) === 'setWorkflowOptions'
    )
      continue;
    problems.push(at(statement, `a module-level statement (${ts.SyntaxKind[statement.kind]})`));
  }
  return problems;
}

describe('preloaded workflow modules', () => {
  const preloaded = closure([preloadEntry]);
  preloaded.delete(preloadEntry);
  const files = [...preloaded].filter((module) => path.isAbsolute(module));
  const packages = [...preloaded].filter((module) => !path.isAbsolute(module));

  it('import only packages that read nothing of a run at evaluation (not zod, not shell-quote: it draws Math.random)', () => {
    expect(packages.filter((name) => !shareablePackages.has(name))).toEqual([]);
    expect(files.length).toBeGreaterThan(20);
  });

  it('hold no state of a run at module level', () => {
    expect(files.flatMap(stateOf)).toEqual([]);
  });

  it('are all in the workflow bundle already (preloading adds nothing to it)', () => {
    const bundle = closure(bundleEntries);
    expect(files.filter((file) => !bundle.has(file)).map((file) => path.relative(root, file))).toEqual([]);
  });

  it('list every module of the bundle that could be shared (a new stateless module is preloaded too)', () => {
    const bundle = [...closure(bundleEntries)].filter(
      (module) => path.isAbsolute(module) && !bundleEntries.includes(module),
    );
    const shareable = bundle.filter((file) => {
      const reached = [...closure([file])];
      return reached.every((module) =>
        path.isAbsolute(module) ? stateOf(module).length === 0 : shareablePackages.has(module),
      );
    });
    expect(shareable.filter((file) => !preloaded.has(file)).map((file) => path.relative(root, file))).toEqual([]);
  });

  it('the check finds the state of the modules left out', () => {
    // Each of these keeps one run's state at module level, which is why it is evaluated per run.
    for (const name of ['tools/read-batch', 'runtime/local-abort', 'runtime/cancel-notice']) {
      expect(stateOf(path.join(root, 'src', 'workflows', `${name}.ts`)), name).not.toEqual([]);
    }
  });
});
