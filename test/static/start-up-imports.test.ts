import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modulesLoadedWhile } from '../helpers/unit-loaded-modules';

const root = path.join(import.meta.dirname, '..', '..');

/** The packages a fresh process has loaded after importing `module`: ESM imports (seen by a resolve hook) and CommonJS requires. */
function packagesLoadedBy(module: string): string[] {
  const files = modulesLoadedWhile(`await import(${JSON.stringify(path.join(root, module))});`, {
    cwd: root,
    requires: true,
  });
  const loaded = new Set<string>();
  for (const file of files) {
    const tail = file.split('node_modules/').at(-1)!;
    if (tail !== file) loaded.add(tail.startsWith('@') ? tail.split('/').slice(0, 2).join('/') : tail.split('/')[0]!);
  }
  return [...loaded];
}

// docs/operations.md, "Worker start-up": what only some agents use loads on first use.
describe('start-up imports', () => {
  const lazy = [
    '@modelcontextprotocol/sdk',
    'linkedom',
    '@mozilla/readability',
    'turndown',
    '@opentelemetry/sdk-trace-base',
  ];

  it('a worker does not load the MCP SDK, the HTML libraries or the tracing SDK until an agent needs them', () => {
    const loaded = packagesLoadedBy('src/worker/worker.ts');
    expect(loaded).toContain('@temporalio/worker');
    expect(loaded.filter((name) => lazy.includes(name))).toEqual([]);
  });

  it('neither does the CLI', () => {
    const loaded = packagesLoadedBy('src/cli/main.ts');
    expect(loaded.filter((name) => lazy.includes(name))).toEqual([]);
  });
});
