// npm run bench:hooks — what a hook costs an agent (docs/hooks.md): a command hook in the sandbox and
// without it, the same hook answering a PreToolUse decision, an http hook on loopback, and the settings
// look every turn of a root pays. Each measured on the activity side, alternating, so all see the same
// minute of the machine; the workflow's share (one activity round trip) is in bench:overhead.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runHookProcess } from '../src/activities/hooks/run-hook';
import { defaultHttpHookPolicy, postHookEvent } from '../src/activities/hooks/http-hook';
import { createSettingsLook, createSettingsReloadActivities } from '../src/activities/settings-reload';
import { sandboxProblem, type SandboxOptions } from '../src/config/sandbox-options';
import { parsePrivateAllowance } from '../src/shared/policy/address-policy';

const runs = Number(process.env.BENCH_HOOKS_RUNS ?? 30);
const sandboxOn: SandboxOptions = { mode: 'on', bwrap: 'bwrap', hiddenFiles: [] };
const sandboxOff: SandboxOptions = { mode: 'off', bwrap: 'bwrap', hiddenFiles: [] };
const problem = await sandboxProblem(sandboxOn);

const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'bench-hooks-')));
// A project six levels deep with no settings: the look stats every directory up to the root.
const project = path.join(scratch, 'a', 'b', 'c', 'd', 'e', 'project');
mkdirSync(project, { recursive: true });
const home = path.join(scratch, 'home');
mkdirSync(home);

const payload = { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' };
const decision = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } });

function hook(command: string, sandbox: SandboxOptions) {
  return async () => {
    const result = await runHookProcess(
      { event: 'PreToolUse', command, timeoutMs: 30_000, cwd: project, projectDir: project, payload },
      { shell: { sandbox } },
    );
    if (result.exitCode !== 0) throw new Error(`the hook failed: ${result.spawnError ?? result.stderr}`);
  };
}

let server: Server | undefined;
async function httpHook(): Promise<() => Promise<void>> {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(decision));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const policy = defaultHttpHookPolicy(parsePrivateAllowance('127.0.0.1'));
  return async () => {
    const outcome = await postHookEvent({ type: 'http', url }, payload, { policy, timeoutMs: 30_000 });
    if (outcome.type !== 'response') throw new Error(`the http hook failed: ${JSON.stringify(outcome)}`);
  };
}

const look = createSettingsLook(home);
const { reloadSettings } = createSettingsReloadActivities(home);
const first = await reloadSettings({ cwd: project });
const known = (await look({ cwd: project }))?.hash;

const cases: Array<{ name: string; run: () => Promise<unknown> }> = [
  ...(problem ? [] : [{ name: 'command hook `true`, sandboxed', run: hook('true', sandboxOn) }]),
  { name: 'command hook `true`, unconfined', run: hook('true', sandboxOff) },
  ...(problem
    ? []
    : [
        {
          name: 'command hook reading stdin, answering allow (sandboxed)',
          run: hook(`cat >/dev/null; echo '${decision}'`, sandboxOn),
        },
      ]),
  { name: 'http hook on loopback, answering allow', run: await httpHook() },
  {
    name: 'settings look in the model call, nothing changed',
    run: () => look({ cwd: project, ...(known ? { knownHash: known } : {}) }),
  },
  {
    name: 'reloadSettings activity body, nothing changed',
    run: () => reloadSettings({ cwd: project, known: first.stamps }),
  },
];

const samples = new Map<string, number[]>(cases.map((entry) => [entry.name, []]));
for (const entry of cases) await entry.run(); // warm-up
for (let round = 0; round < runs; round += 1)
  for (const entry of cases) {
    const started = process.hrtime.bigint();
    await entry.run();
    samples.get(entry.name)!.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
server?.close();
rmSync(scratch, { recursive: true, force: true });

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 100) / 100;
};
if (problem) console.log(`(no sandbox here: ${problem}; sandboxed rows left out)`);
console.log(`hooks benchmark: median and p95 of ${runs} runs each (ms)`);
console.log(`${'case'.padEnd(60)}${'p50'.padStart(9)}${'p95'.padStart(9)}`);
const rows = cases.map(({ name }) => ({
  name,
  p50: quantile(samples.get(name)!, 0.5),
  p95: quantile(samples.get(name)!, 0.95),
}));
for (const row of rows)
  console.log(`${row.name.padEnd(60)}${String(row.p50).padStart(9)}${String(row.p95).padStart(9)}`);
const p50 = (prefix: string) => rows.find((row) => row.name.startsWith(prefix))?.p50 ?? null;
console.log(
  JSON.stringify({
    commandHookSandboxedMsP50: p50('command hook `true`, sandboxed'),
    commandHookUnconfinedMsP50: p50('command hook `true`, unconfined'),
    decidingHookSandboxedMsP50: p50('command hook reading stdin'),
    httpHookMsP50: p50('http hook'),
    settingsLookMsP50: p50('settings look'),
    settingsReloadBodyMsP50: p50('reloadSettings'),
    runs,
    loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
  }),
);
