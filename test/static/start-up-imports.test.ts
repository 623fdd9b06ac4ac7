import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.join(import.meta.dirname, '..', '..');

/** The packages a fresh process has loaded after importing `module`: ESM imports (seen by a resolve hook) and CommonJS requires. */
function packagesLoadedBy(module: string): string[] {
  const hook = [
    'let port;',
    'export function initialize(data) { port = data.port; }',
    'export async function resolve(specifier, context, next) { const resolved = await next(specifier, context); port.postMessage(resolved.url); return resolved; }',
  ].join('\n');
  const script = `
    import { createRequire, register } from 'node:module';
    import { MessageChannel } from 'node:worker_threads';
    const files = [];
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (url) => files.push(url));
    register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)}, { data: { port: port2 }, transferList: [port2] });
    await import(${JSON.stringify(path.join(root, module))});
    await new Promise((resolve) => setTimeout(resolve, 200));
    port1.close();
    files.push(...Object.keys(createRequire(import.meta.url).cache));
    const loaded = new Set();
    for (const file of files) {
      const tail = file.split('node_modules/').at(-1);
      if (tail !== file) loaded.add(tail.startsWith('@') ? tail.split('/').slice(0, 2).join('/') : tail.split('/')[0]);
    }
    process.stdout.write(JSON.stringify([...loaded]));`;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  return JSON.parse(output) as string[];
}

// docs/operations.md, "Worker start-up": what only some agents use loads on first use.
describe('start-up imports', () => {
  const lazy = ['@modelcontextprotocol/sdk', 'linkedom', '@mozilla/readability', 'turndown', '@opentelemetry/sdk-trace-base'];

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
