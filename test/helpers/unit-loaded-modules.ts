// What a fresh process loads: the probe the start-up and command-table tests share.
import { execFileSync } from 'node:child_process';

/** A resolve hook that posts the URL of every module it resolves to the port it is given. */
const hook = [
  'let port;',
  'export function initialize(data) { port = data.port; }',
  'export async function resolve(specifier, context, next) { const resolved = await next(specifier, context); port.postMessage(resolved.url); return resolved; }',
].join('\n');

/** The modules a fresh tsx process in `cwd` has loaded once `body` (module code) ran: every ESM import a resolve hook sees, and with `requires` the CommonJS modules in require's cache too. */
export function modulesLoadedWhile(body: string, options: { cwd: string; requires?: boolean }): string[] {
  const script = `
    import { createRequire, register } from 'node:module';
    import { MessageChannel } from 'node:worker_threads';
    const files = [];
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (url) => files.push(url));
    register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)}, { data: { port: port2 }, transferList: [port2] });
    ${body}
    await new Promise((resolve) => setTimeout(resolve, 200));
    port1.close();
    ${options.requires ? 'files.push(...Object.keys(createRequire(import.meta.url).cache));' : ''}
    process.stdout.write(JSON.stringify(files));`;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: options.cwd,
    encoding: 'utf8',
  });
  return JSON.parse(output) as string[];
}
