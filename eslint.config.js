import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'fs',
  'fs/promises',
  'path',
  'os',
  'child_process',
  'crypto',
  'http',
  'https',
  'net',
  'stream',
  'url',
  'util',
  'worker_threads',
  'events',
  'process',
  'timers',
  'zlib',
  'dns',
  'tls',
];

const workflowsOnlyInBundle = {
  group: ['**/workflows', '**/workflows/*', '**/workflows/**'],
  message: 'Only the workflow bundle and tests import src/workflows/; move what you need to src/shared/.',
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.temporal/**',
      'test/fixtures/**',
      'bin/**',
      '.subagents/**',
      '.tmp/**',
      'test-results/**',
      'dist/**',
      'test/package/consumer/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    // No import circles: a newcomer reads each folder from the ground up (docs/architecture.md).
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.cjs', '.json'] })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O.
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins
            .flatMap((name) => [name, `node:${name}`])
            .map((name) => ({
              name,
              message: 'Workflow code is sandboxed: do I/O in an activity.',
            })),
          patterns: [
            { group: ['node:*'], message: 'Workflow code is sandboxed: do I/O in an activity.' },
            {
              group: ['**/activities/*', '**/activities/**', '**/model-server/**', '**/cli/**', '**/dev/**'],
              allowTypeImports: true,
              message: 'Workflows import activities as types only.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Use sleep() from @temporalio/workflow.' },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'Date',
          property: 'now',
          message: 'Use workflow time (Date.now is deterministic only inside the sandbox; prefer workflowInfo()).',
        },
        { object: 'Math', property: 'random', message: 'Use uuid4() or deterministic ids.' },
      ],
    },
  },
  {
    // Workflow code asks for patches with hasPatch(), which knows the patch baseline (docs/testing.md, "Patches in use").
    files: ['src/workflows/**/*.ts'],
    ignores: ['src/workflows/runtime/patches.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "ImportDeclaration[source.value='@temporalio/workflow'] > ImportSpecifier[imported.name='patched']",
          "CallExpression[callee.name='patched']",
          "CallExpression[callee.property.name='patched']",
        ].map((selector) => ({
          selector,
          message: 'Ask hasPatch() from src/workflows/runtime/patches.ts: only it calls the SDK patched().',
        })),
      ],
    },
  },
  {
    // Only the workflow bundle (built from src/workflows/index.ts by path) and tests load workflow
    // code: what the client, CLI, activities or transcript need lives in src/shared/.
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    ignores: ['src/workflows/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [workflowsOnlyInBundle],
        },
      ],
    },
  },
  {
    // The activities are the worker's (src/worker/ builds them): the client side and the libraries both sides use import
    // from src/project/, src/mcp/, src/worktree/, src/config/, src/sandbox/ (a later block replaces the options: both patterns).
    files: [
      'src/cli/**/*.ts',
      'src/client/**/*.ts',
      'src/transcript/**/*.ts',
      'src/api/**/*.ts',
      'src/mcp/**/*.ts',
      'src/project/**/*.ts',
      'src/worktree/**/*.ts',
      'src/config/**/*.ts',
      'src/sandbox/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            workflowsOnlyInBundle,
            {
              group: ['**/activities', '**/activities/*', '**/activities/**'],
              message:
                "src/activities/ is the worker's: move what others need to src/project/, src/mcp/, src/worktree/, src/config/ or src/sandbox/ and import it from there.",
            },
          ],
        },
      ],
    },
  },
);
