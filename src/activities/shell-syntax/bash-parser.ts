// tree-sitter-bash's WebAssembly grammar in web-tree-sitter, loaded once per process on first use.
import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';

const require = createRequire(import.meta.url);

let loading: Promise<Parser> | undefined;

async function load(): Promise<Parser> {
  await Parser.init();
  const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(bash);
  return parser;
}

/** The process's bash parser (a failed load is tried again on the next call). */
export function bashParser(): Promise<Parser> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
