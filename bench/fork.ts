// npm run bench:fork — what N children cost when they share a parent's ~20k-token context:
// forks (byte-identical prefix, cache reads) versus named subagents given the same context in their prompt.
import { createBenchEnv } from './helpers/bench-env';

interface Usage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

const counts = [1, 5, 20];
const model = 'claude-sonnet-5';
const context = Array.from(
  { length: 1600 },
  (_, index) => `Line ${index}: module m${index % 37} calls helper h${index % 11} with options {retry: ${index % 5}}.`,
).join('\n');

const env = await createBenchEnv({ kind: 'echo' });

/** Runs a root that starts `count` children in one message; returns the children's first request bodies and usages. */
async function run(kind: 'fork' | 'named', count: number): Promise<{ bodies: string[]; usages: Usage[] }> {
  env.modelServer.clearCache();
  const name = `${kind}-${count}`;
  env.modelServer.setBehaviour({
    kind: 'scripted',
    scenario: {
      agents: [
        {
          match: { agentName: name },
          turns: [
            {
              text: 'Delegating.',
              toolUses: Array.from({ length: count }, (_, index) => ({
                name: 'Agent',
                input:
                  kind === 'fork'
                    ? { description: `part ${index}`, prompt: `Check part ${index}.`, run_in_background: false }
                    : {
                        description: `part ${index}`,
                        prompt: `${context}\n\nCheck part ${index}.`,
                        subagent_type: 'general-purpose',
                        run_in_background: false,
                      },
              })),
            },
            { text: 'All parts checked.' },
          ],
        },
        {
          match: { userIncludes: 'Check part' },
          turnOffset: kind === 'fork' ? 1 : 0,
          turns: [{ text: 'Scope: part checked.' }],
        },
      ],
    } as never,
  });
  const handle = await env.client.startAgent({
    prompt: kind === 'fork' ? `Review this code map.\n${context}` : 'Review the code map by delegating.',
    name,
    cwd: env.workspace,
    model,
    permissionMode: 'bypassPermissions',
    limits: { forking: true, maxChildrenPerAgent: 25, maxAgentsPerTree: 25 },
  });
  const result = await handle.result();
  if (result.status !== 'completed') throw new Error(`${name} ended ${result.status}: ${result.error ?? ''}`);
  const children = Array.from({ length: count }, (_, index) => `${handle.agentId}.${index + 1}`);
  const requests = env.modelServer.requests();
  const firsts = children.map((child) =>
    requests.find(
      (request) =>
        request.path === '/v1/messages' && request.status === 200 && request.headers['x-subagents-agent-id'] === child,
    ),
  );
  if (firsts.some((request) => !request)) throw new Error(`${name}: a child made no model request`);
  return {
    bodies: firsts.map((request) => request!.rawBody),
    usages: firsts.map((request) => request!.usage as unknown as Usage),
  };
}

const billed = (usage: Usage) =>
  usage.input_tokens + 1.25 * usage.cache_creation_input_tokens + 0.1 * usage.cache_read_input_tokens;
const prompt = (usage: Usage) => usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;

function ratio(usages: Usage[]): number {
  const prefix = Math.max(...usages.map(prompt));
  return Number((usages.reduce((sum, usage) => sum + billed(usage), 0) / (usages.length * prefix)).toFixed(3));
}

function identicalUpToDirective(bodies: string[]): boolean {
  const starts = bodies.map((body) => body.indexOf('{"type":"text","text":"<fork-boilerplate>'));
  if (starts.some((start) => start < 0) || new Set(starts).size !== 1) return false;
  return bodies.every((body) => body.slice(0, starts[0]) === bodies[0]!.slice(0, starts[0]));
}

try {
  const forkRatio: Record<string, number> = {};
  const namedRatio: Record<string, number> = {};
  let prefixIdentical = true;
  const rows: string[] = [];
  for (const count of counts) {
    const fork = await run('fork', count);
    const named = await run('named', count);
    forkRatio[count] = ratio(fork.usages);
    namedRatio[count] = ratio(named.usages);
    prefixIdentical &&= identicalUpToDirective(fork.bodies);
    const sum = (usages: Usage[], key: keyof Usage) => usages.reduce((total, usage) => total + usage[key], 0);
    rows.push(
      `${String(count).padStart(3)}  fork  ${String(forkRatio[count]).padEnd(6)} read ${sum(fork.usages, 'cache_read_input_tokens')}, write ${sum(fork.usages, 'cache_creation_input_tokens')}, input ${sum(fork.usages, 'input_tokens')}`,
      `${String(count).padStart(3)}  named ${String(namedRatio[count]).padEnd(6)} read ${sum(named.usages, 'cache_read_input_tokens')}, write ${sum(named.usages, 'cache_creation_input_tokens')}, input ${sum(named.usages, 'input_tokens')}`,
    );
  }
  console.log(`fork benchmark: model ${model}, shared context ≈ ${Math.round(context.length / 4)} tokens`);
  console.log('  N  path  billed/(N×prefix)  tokens over the children');
  for (const row of rows) console.log(row);
  console.log(JSON.stringify({ forkBilledRatio: forkRatio, namedBilledRatio: namedRatio, prefixIdentical }));
} finally {
  await env.close();
}
