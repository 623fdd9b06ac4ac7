import { randomBytes, randomInt } from 'node:crypto';
import net from 'node:net';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { ClusterPaths } from './paths';

/** What `cluster up` started and where, so a later `cluster up`/`down`/`status` finds it (in .temporal/cluster/state.json). */
const portsSchema = z.strictObject({
  frontend: z.number().int(),
  frontendHttp: z.number().int(),
  frontendMembership: z.number().int(),
  history: z.number().int(),
  historyMembership: z.number().int(),
  matching: z.number().int(),
  matchingMembership: z.number().int(),
  worker: z.number().int(),
  workerMembership: z.number().int(),
});

const workerSchema = z.strictObject({
  id: z.string(),
  pid: z.number().int(),
  root: z.string(),
  modelUrl: z.string(),
  logFile: z.string(),
});

const stateSchema = z.strictObject({
  postgresPort: z.number().int(),
  password: z.string().min(16),
  ports: portsSchema,
  namespace: z.string(),
  taskQueue: z.string(),
  server: z.strictObject({ pid: z.number().int() }).optional(),
  modelServer: z.strictObject({ pid: z.number().int(), url: z.string() }).optional(),
  workers: z.array(workerSchema),
});

export type ClusterState = z.infer<typeof stateSchema>;
export type WorkerRecord = z.infer<typeof workerSchema>;

export function readState(paths: ClusterPaths): ClusterState | undefined {
  if (!existsSync(paths.state)) return undefined;
  const parsed = stateSchema.safeParse(JSON.parse(readFileSync(paths.state, 'utf8')));
  if (!parsed.success) {
    throw new Error(
      `${paths.state} is not a cluster state this version understands (${parsed.error.issues[0]?.message}). Stop what it lists by hand, then delete it.`,
    );
  }
  return parsed.data;
}

export function writeState(paths: ClusterPaths, state: ClusterState): void {
  mkdirSync(paths.dir, { recursive: true });
  const temporary = `${paths.state}.${process.pid}`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, paths.state);
}

/** Below Linux's ephemeral range (no outgoing connection takes them) and within Temporal's smallint port column. */
const portRange = { low: 20_000, high: 32_000 };

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A new cluster's settings: free ports on 127.0.0.1 and a random database password. */
export async function newState(namespace: string, taskQueue: string): Promise<ClusterState> {
  const taken = new Set<number>();
  const port = async (): Promise<number> => {
    for (let attempt = 0; attempt < 1000; attempt += 1) {
      const candidate = randomInt(portRange.low, portRange.high);
      if (!taken.has(candidate) && (await bindable(candidate))) {
        taken.add(candidate);
        return candidate;
      }
    }
    throw new Error(`no free port between ${portRange.low} and ${portRange.high} on 127.0.0.1`);
  };
  return {
    postgresPort: await port(),
    password: randomBytes(18).toString('base64url'),
    ports: {
      frontend: await port(),
      frontendHttp: await port(),
      frontendMembership: await port(),
      history: await port(),
      historyMembership: await port(),
      matching: await port(),
      matchingMembership: await port(),
      worker: await port(),
      workerMembership: await port(),
    },
    namespace,
    taskQueue,
    workers: [],
  };
}
