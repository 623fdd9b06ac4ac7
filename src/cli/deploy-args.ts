import { parseArgs } from 'node:util';
import { z } from 'zod';
import { deployUsage } from './command-usage';
import { CliError } from './exit-codes';

/** One `subagents deploy` request, parsed and checked before anything connects. */
export type DeployRequest =
  | { action: 'status'; deploymentName: string; json: boolean }
  | { action: 'ramp'; deploymentName: string; buildId: string; percent: number; json: boolean }
  | { action: 'ramp-stop'; deploymentName: string; json: boolean }
  | { action: 'promote'; deploymentName: string; buildId: string; force: boolean; json: boolean }
  | { action: 'drain'; deploymentName: string; buildId: string; wait: boolean; timeoutSeconds: number; json: boolean };

const percentSchema = z.coerce
  .number({ error: 'must be a whole number from 1 to 99' })
  .int('must be a whole number from 1 to 99')
  .min(1, 'must be at least 1 (to stop the ramp: subagents deploy ramp --stop)')
  .max(99, 'must be at most 99 (to send every new agent to the build: subagents deploy promote BUILD)');

const timeoutSchema = z.coerce
  .number({ error: 'must be a number of seconds' })
  .positive('must be a positive number of seconds');

/** The default wait of `deploy drain --wait`, in seconds. */
export const defaultDrainTimeoutSeconds = 600;

function checked<T>(schema: z.ZodType<T>, flag: string, value: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new CliError(
    `${flag} ${value}: ${result.error.issues[0]?.message ?? 'not valid'}. usage: subagents ${deployUsage}`,
  );
}

/** The deployment from --deployment, else SUBAGENTS_DEPLOYMENT; a usage error that says how to give it. */
export function deploymentNameOf(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const name = flag ?? env.SUBAGENTS_DEPLOYMENT;
  if (name?.trim()) return name.trim();
  throw new CliError(
    'Which worker deployment? Pass --deployment NAME or set SUBAGENTS_DEPLOYMENT (the name the workers run with: subagents worker --deployment NAME).',
  );
}

/** Parses `deploy status|ramp|promote|drain ...` (argv after `deploy`); throws CliError (exit 2) saying what to fix. */
export function parseDeployArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): DeployRequest {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      deployment: { type: 'string' },
      json: { type: 'boolean', default: false },
      percent: { type: 'string' },
      stop: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      wait: { type: 'boolean', default: false },
      timeout: { type: 'string' },
    },
  });
  const [action, buildId, ...extra] = positionals;
  const refuse = (message: string): never => {
    throw new CliError(`${message} usage: subagents ${deployUsage}`);
  };
  if (extra.length) refuse(`deploy ${action} takes one build id, not "${extra.join(' ')}".`);
  type FormFlag = 'percent' | 'stop' | 'force' | 'wait' | 'timeout';
  const misplaced = (...flags: FormFlag[]) => {
    const given = flags.find((flag) => values[flag] !== undefined && values[flag] !== false);
    if (given) refuse(`--${given} does not go with deploy ${action}.`);
  };
  const withName = () => ({ deploymentName: deploymentNameOf(values.deployment, env), json: values.json });
  const needBuild = (what: string): string =>
    buildId ?? refuse(`Give the build id to ${what} (see: subagents deploy status).`);
  switch (action) {
    case 'status':
      if (buildId) refuse('deploy status takes no build id.');
      misplaced('percent', 'stop', 'force', 'wait', 'timeout');
      return { action, ...withName() };
    case 'ramp':
      misplaced('force', 'wait', 'timeout');
      if (values.stop) {
        if (buildId || values.percent !== undefined) refuse('deploy ramp --stop takes no build id or --percent.');
        return { action: 'ramp-stop', ...withName() };
      }
      needBuild('ramp');
      if (values.percent === undefined) refuse('deploy ramp BUILD needs --percent N (1..99), or --stop to end a ramp.');
      return {
        action,
        ...withName(),
        buildId: needBuild('ramp'),
        percent: checked(percentSchema, '--percent', values.percent ?? ''),
      };
    case 'promote':
      misplaced('percent', 'stop', 'wait', 'timeout');
      return { action, ...withName(), buildId: needBuild('promote'), force: values.force };
    case 'drain':
      misplaced('percent', 'stop', 'force');
      if (values.timeout !== undefined && !values.wait) refuse('--timeout is how long --wait waits: give --wait too.');
      return {
        action,
        ...withName(),
        buildId: needBuild('drain'),
        wait: values.wait,
        timeoutSeconds:
          values.timeout === undefined
            ? defaultDrainTimeoutSeconds
            : checked(timeoutSchema, '--timeout', values.timeout),
      };
    default:
      return refuse(action ? `Unknown deploy command "${action}".` : 'Say what to do.');
  }
}
