// npm run bench:budget — what the tree's ledger (docs/budgets.md) holds and costs at 10 and 50 background
// children: served tokens against the budget when the children cross it at the same moment, and the time a
// child's model call waits for its reservation (`budgetReserve` to the root, `budgetGrant` back), from the
// agents' histories, against the same tree without a budget.
import type { Turn } from '../src/model-server/server';
import type { BudgetSnapshot } from '../src/shared/budget/budget';
import { createBenchEnv, percentile } from './helpers/bench-env';
import { callTimings, rootSide, roundTripLegs, type CallTiming, type RoundTripLegs } from './helpers/reservation-times';
import { addTaskTimes, emptyTaskTimes, type TaskTimes } from './helpers/task-times';
import { ms, withTimeout } from './helpers/wait';

const fanouts = [10, 50];
/** Model calls of each child in the latency runs: tool turns, then a final answer. */
const childToolTurns = Number(process.env.BENCH_CHILD_TURNS ?? 5);
/** How long each child's model call takes at the model server in the latency runs (ms). */
const childCallMs = Number(process.env.BENCH_CALL_MS ?? 300);
const rootToolTurns = 5;
const model = 'claude-test-tiny';
const modes = ['none', 'budget'] as const;
type Mode = (typeof modes)[number];
/** A budget the latency runs never reach: every call reserves, none waits for room. */
const unreachedTokens = 100_000_000;

const background = (name: string, index: number) => ({
  name: 'Agent',
  input: {
    description: `worker ${index}`,
    prompt: `FAN-CHILD ${name} ${index}`,
    subagent_type: 'general-purpose',
    run_in_background: true,
  },
});

/** Crossing: each child's calls are slow and long, none ends on its own (the integration test's tree, test/integration/budget-ledger.test.ts). */
function crossingAgents(name: string, children: number) {
  return [
    {
      match: { agentName: name },
      turns: [
        { text: 'ROOT-FANS-OUT', toolUses: Array.from({ length: children }, (_, index) => background(name, index)) },
        ...Array.from({ length: 40 }, () => ({
          text: 'ROOT-WAITS',
          toolUses: [{ name: 'Bash', input: { command: 'sleep 0.5' } }],
        })),
      ],
    },
    {
      match: { userIncludes: `FAN-CHILD ${name} ` },
      turns: Array.from({ length: 30 }, (_, index) => ({
        text: `CHILD-WORKING-${index} ${'lorem ipsum dolor sit amet '.repeat(40)}`,
        toolUses: [{ name: 'Bash', input: { command: 'echo step' } }],
        delayMs: 400,
      })),
    },
  ];
}

/** Latency: the root works a few turns beside its children, each child makes a few short calls and ends; the root acknowledges their notices. */
function latencyAgents(name: string, children: number) {
  const acknowledgements: Turn[] = Array.from({ length: children + 2 }, () => ({ text: 'noted' }));
  return [
    {
      match: { agentName: name },
      turns: [
        { toolUses: Array.from({ length: children }, (_, index) => background(name, index)) },
        ...Array.from({ length: rootToolTurns }, () => ({
          toolUses: [{ name: 'Bash', input: { command: 'sleep 0.2' } }],
        })),
        ...acknowledgements,
      ],
    },
    {
      match: { userIncludes: `FAN-CHILD ${name} ` },
      turns: [
        ...Array.from({ length: childToolTurns }, () => ({
          toolUses: [{ name: 'Bash', input: { command: 'echo step' } }],
          delayMs: childCallMs,
        })),
        { text: 'child done', delayMs: childCallMs },
      ],
    },
  ];
}

const latencyName = (children: number, mode: Mode, warmup = false) =>
  `budget-latency-${warmup ? 'warmup-' : ''}${children}-${mode}`;
const crossingName = (children: number) => `budget-crossing-${children}`;
const crossingBudget = (children: number) => 20_000 + children * 1000;

const env = await createBenchEnv({
  kind: 'scripted',
  scenario: {
    agents: [
      ...modes.flatMap((mode) => latencyAgents(latencyName(3, mode, true), 3)),
      ...fanouts.flatMap((children) => [
        ...modes.flatMap((mode) => latencyAgents(latencyName(children, mode), children)),
        ...crossingAgents(crossingName(children), children),
      ]),
    ],
  },
});

const limitsFor = (children: number, tokens?: number) => ({
  maxAgentsPerTree: children + 5,
  maxChildrenPerAgent: children + 5,
  forking: false,
  ...(tokens !== undefined ? { budget: { caps: { tokens } } } : {}),
});

const startTree = (name: string, children: number, tokens?: number) =>
  env.client.startAgent({
    prompt: `budget benchmark (${name})`,
    name,
    cwd: env.workspace,
    model,
    maxTurns: children + 20,
    permissionMode: 'bypassPermissions',
    limits: limitsFor(children, tokens),
  });

const historyOf = async (workflowId: string) =>
  (await env.temporalClient.workflow.getHandle(workflowId).fetchHistory()).events ?? [];

/** Tokens the model server served to one tree's agents (its log of every messages request). */
function servedTo(rootId: string): number {
  return Object.entries(env.modelServer.usage().byAgent)
    .filter(([agentId]) => agentId === rootId || agentId.startsWith(`${rootId}.`))
    .reduce((sum, [, served]) => sum + served.totalTokens, 0);
}

const rootAccount = (snapshot: BudgetSnapshot) =>
  snapshot.accounts.find((account) => account.agentId === snapshot.rootAgentId)!;

interface LatencyRun {
  children: CallTiming[];
  root: CallTiming[];
  legs: RoundTripLegs;
  /** Workflow tasks of the children and of the root: how long each waited for the worker and ran on it. */
  childTasks: TaskTimes;
  rootTasks: TaskTimes;
  wallMs: number;
}

/** One tree of `children` children with or without a budget, and the timings of its model calls from its histories. */
async function runLatency(children: number, mode: Mode, warmup = false): Promise<LatencyRun> {
  const name = latencyName(children, mode, warmup);
  const started = performance.now();
  const handle = await startTree(name, children, mode === 'budget' ? unreachedTokens : undefined);
  const result = await withTimeout(handle.result(), 300_000, `${name} to finish`);
  const wallMs = performance.now() - started;
  if (result.status !== 'completed')
    throw new Error(`${name} ended ${result.status}: ${result.error ?? result.finalText}`);
  const childIds = Array.from({ length: children }, (_, index) => `${handle.agentId}.${index + 1}`);
  const childTasks = emptyTaskTimes();
  const childCalls = (
    await Promise.all(
      childIds.map(async (agentId) => {
        const events = await historyOf(agentId);
        addTaskTimes(events, childTasks);
        return callTimings(agentId, events);
      }),
    )
  ).flat();
  const rootEvents = await historyOf(handle.agentId);
  const rootTasks = emptyTaskTimes();
  addTaskTimes(rootEvents, rootTasks);
  const expected = children * (childToolTurns + 1);
  if (childCalls.length !== expected)
    throw new Error(`${name}: ${childCalls.length} model calls of children in their histories, expected ${expected}`);
  const reserved = childCalls.filter((call) => call.reservedAtRoot || call.leased).length;
  if (reserved !== (mode === 'budget' ? expected : 0))
    throw new Error(`${name}: ${reserved} of ${expected} child calls reserved at the root or spent from a lease`);
  return {
    children: childCalls,
    root: callTimings(handle.agentId, rootEvents),
    legs: roundTripLegs(childCalls, rootSide(rootEvents)),
    childTasks,
    rootTasks,
    wallMs,
  };
}

interface CrossingRun {
  budget: number;
  served: number;
  counted: number;
  reservedLeft: number;
  overspendTokens: number;
  refusals: number;
  status: string;
  wallMs: number;
}

/** The children cross the tree's token budget at the same moment; what the model server served against it. */
async function runCrossing(children: number): Promise<CrossingRun> {
  const name = crossingName(children);
  const budget = crossingBudget(children);
  const started = performance.now();
  const handle = await startTree(name, children, budget);
  const result = await withTimeout(handle.result(), 300_000, `${name} to stop at its budget`);
  const wallMs = performance.now() - started;
  if (!result.error?.includes('stopped by budget'))
    throw new Error(`${name} ended ${result.status} without the budget's stop: ${result.error ?? result.finalText}`);
  const snapshot = await handle.budget();
  const account = rootAccount(snapshot);
  return {
    budget,
    served: servedTo(handle.agentId),
    counted: account.subtree.tokens,
    reservedLeft: account.reservedTokens,
    overspendTokens: snapshot.overspendTokens,
    refusals: snapshot.refusals,
    status: result.status,
    wallMs,
  };
}

const p = (values: number[], at: number) => ms(percentile(values, at));
const stats = (values: number[]) => ({ p50: p(values, 50), p95: p(values, 95) });
const pad = (cells: (number | string)[], width: number) => cells.map((value) => String(value).padStart(width)).join('');

try {
  // Warm-up (bundle, JIT, connections): not measured.
  for (const mode of modes) await runLatency(3, mode, true);
  const latency: Record<string, Record<Mode, LatencyRun>> = {};
  for (const children of fanouts) {
    latency[children] = { none: await runLatency(children, 'none'), budget: await runLatency(children, 'budget') };
  }
  const crossing: Record<string, CrossingRun> = {};
  for (const children of fanouts) crossing[children] = await runCrossing(children);

  console.log(
    `budget benchmark: background children of one root; latency runs: ${childToolTurns} tool turns + a final answer a child, ${childCallMs} ms a model call`,
  );
  console.log('');
  console.log(
    'crossing the tree token budget at the same moment (each child: 400 ms calls of ~1,000 tokens, never ending on its own)',
  );
  console.log(
    `${'children'.padStart(9)}${pad(['budget', 'served', 'counted', 'served/budget', 'counted/served', 'left reserved', 'overspend', 'refusals', 'wall s'], 15)}`,
  );
  for (const children of fanouts) {
    const run = crossing[children]!;
    const cells = [
      run.budget,
      run.served,
      run.counted,
      (run.served / run.budget).toFixed(3),
      (run.counted / run.served).toFixed(3),
      run.reservedLeft,
      run.overspendTokens,
      run.refusals,
      (run.wallMs / 1000).toFixed(1),
    ];
    console.log(`${String(children).padStart(9)}${pad(cells, 15)}`);
  }
  console.log(
    "served: the model server's log; counted: the root's ledger; overspend: tokens charged beyond the calls' reservations (estimate error)",
  );
  console.log('');
  console.log(
    "children's model calls, from their histories (ms): the deciding workflow task's start → callModel scheduled, and its completion → scheduled (with a budget the deciding task is the one that asked ahead, while the last turn's tools ran: its time includes theirs)",
  );
  console.log(
    `${'children'.padStart(9)}${'budget'.padStart(8)}${pad(['calls', 'decide→sched p50', 'p95', 'round trip p50', 'p95', 'decide task p50', 'tree wall s'], 17)}`,
  );
  for (const children of fanouts) {
    for (const mode of modes) {
      const run = latency[children]![mode];
      const decide = stats(run.children.map((call) => call.decideToScheduledMs));
      const trip = stats(run.children.map((call) => call.roundTripMs));
      const cells = [
        run.children.length,
        decide.p50,
        decide.p95,
        trip.p50,
        trip.p95,
        p(
          run.children.map((call) => call.decideTaskMs),
          50,
        ),
        (run.wallMs / 1000).toFixed(1),
      ];
      console.log(`${String(children).padStart(9)}${(mode === 'budget' ? 'yes' : 'no').padStart(8)}${pad(cells, 17)}`);
    }
    const ready = (mode: (typeof modes)[number]) =>
      latency[children]![mode].children.map((call) => call.readyToScheduledMs);
    const added = p(ready('budget'), 50) - p(ready('none'), 50);
    console.log(
      `${''.padStart(17)}ready → scheduled p50 / p95: no budget ${p(ready('none'), 50)} / ${p(ready('none'), 95)}, budget ${p(ready('budget'), 50)} / ${p(ready('budget'), 95)}`,
    );
    console.log(
      `${''.padStart(17)}added by the reservation on the critical path, p50: ${ms(added)} ms a call (difference of two runs' p50s: noise included)`,
    );
    const budgeted = latency[children]!.budget.children;
    console.log(
      `${''.padStart(17)}calls spent from a lease (no round trip): ${budgeted.filter((call) => call.leased).length} of ${budgeted.length}; waiting for the root, p50: ${p(
        budgeted.map((call) => call.roundTripMs),
        50,
      )} ms a call`,
    );
  }
  console.log('');
  console.log(
    "the reservation's round trip in legs (ms, p50 / p95): reserve sent → the root's history has it → the grant sent → the child's history has it → callModel scheduled",
  );
  console.log(
    `${'children'.padStart(9)}${pad(['reserve delivery', 'root answer', 'grant delivery', 'child task'], 18)}`,
  );
  for (const children of fanouts) {
    const legs = latency[children]!.budget.legs;
    const cells = [legs.reserveDelivery, legs.rootAnswer, legs.grantDelivery, legs.childTask].map(
      (values) => `${p(values, 50)} / ${p(values, 95)}`,
    );
    console.log(`${String(children).padStart(9)}${pad(cells, 18)}`);
  }
  console.log('');
  console.log(
    "the root's own calls (reserved in its own workflow task), the deciding task's start → callModel scheduled (ms)",
  );
  console.log(`${'children'.padStart(9)}${'budget'.padStart(8)}${pad(['calls', 'p50', 'p95', 'round trip p50'], 15)}`);
  for (const children of fanouts) {
    for (const mode of modes) {
      const calls = latency[children]![mode].root;
      const decide = stats(calls.map((call) => call.decideToScheduledMs));
      console.log(
        `${String(children).padStart(9)}${(mode === 'budget' ? 'yes' : 'no').padStart(8)}${pad(
          [
            calls.length,
            decide.p50,
            decide.p95,
            p(
              calls.map((call) => call.roundTripMs),
              50,
            ),
          ],
          15,
        )}`,
      );
    }
  }
  console.log('');
  console.log(
    "workflow tasks (ms, p50): each signal a workflow receives, and each delivery of one it sends, is a task of its own; the root's are one at a time",
  );
  console.log(
    `${'children'.padStart(9)}${'budget'.padStart(8)}${pad(['child tasks/call', 'child wait', 'child run', 'root tasks', 'root wait', 'root run'], 17)}`,
  );
  for (const children of fanouts) {
    for (const mode of modes) {
      const run = latency[children]![mode];
      const cells = [
        (run.childTasks.run.workflowTask.length / run.children.length).toFixed(1),
        p(run.childTasks.wait.workflowTask, 50),
        p(run.childTasks.run.workflowTask, 50),
        run.rootTasks.run.workflowTask.length,
        p(run.rootTasks.wait.workflowTask, 50),
        p(run.rootTasks.run.workflowTask, 50),
      ];
      console.log(`${String(children).padStart(9)}${(mode === 'budget' ? 'yes' : 'no').padStart(8)}${pad(cells, 17)}`);
    }
  }
  const byFanout = <T>(pick: (children: number) => T) =>
    Object.fromEntries(fanouts.map((children) => [String(children), pick(children)]));
  const callStats = (pickCalls: (run: LatencyRun) => CallTiming[], pick: (call: CallTiming) => number) =>
    Object.fromEntries(
      modes.map((mode) => [mode, byFanout((children) => stats(pickCalls(latency[children]![mode]).map(pick)))]),
    );
  console.log(
    JSON.stringify({
      servedOverBudget: byFanout((children) =>
        Number((crossing[children]!.served / crossing[children]!.budget).toFixed(3)),
      ),
      countedOverServed: byFanout((children) =>
        Number((crossing[children]!.counted / crossing[children]!.served).toFixed(3)),
      ),
      crossing: byFanout((children) => crossing[children]),
      childAddedMsP50: byFanout((children) =>
        ms(
          p(
            latency[children]!.budget.children.map((call) => call.readyToScheduledMs),
            50,
          ) -
            p(
              latency[children]!.none.children.map((call) => call.readyToScheduledMs),
              50,
            ),
        ),
      ),
      childReadyToScheduledMs: callStats(
        (run) => run.children,
        (call) => call.readyToScheduledMs,
      ),
      childDecideToScheduledMs: callStats(
        (run) => run.children,
        (call) => call.decideToScheduledMs,
      ),
      childRoundTripMs: callStats(
        (run) => run.children,
        (call) => call.roundTripMs,
      ),
      childLeasedShare: byFanout((children) =>
        Number(
          (
            latency[children]!.budget.children.filter((call) => call.leased).length /
            latency[children]!.budget.children.length
          ).toFixed(3),
        ),
      ),
      childDecideTaskMs: callStats(
        (run) => run.children,
        (call) => call.decideTaskMs,
      ),
      roundTripLegsMs: byFanout((children) => {
        const legs = latency[children]!.budget.legs;
        return {
          reserveDelivery: stats(legs.reserveDelivery),
          rootAnswer: stats(legs.rootAnswer),
          grantDelivery: stats(legs.grantDelivery),
          childTask: stats(legs.childTask),
        };
      }),
      rootDecideToScheduledMs: callStats(
        (run) => run.root,
        (call) => call.decideToScheduledMs,
      ),
      workflowTasks: Object.fromEntries(
        modes.map((mode) => [
          mode,
          byFanout((children) => {
            const run = latency[children]![mode];
            return {
              childPerCall: Number((run.childTasks.run.workflowTask.length / run.children.length).toFixed(2)),
              childWaitMsP50: p(run.childTasks.wait.workflowTask, 50),
              childRunMsP50: p(run.childTasks.run.workflowTask, 50),
              root: run.rootTasks.run.workflowTask.length,
              rootWaitMsP50: p(run.rootTasks.wait.workflowTask, 50),
              rootRunMsP50: p(run.rootTasks.run.workflowTask, 50),
            };
          }),
        ]),
      ),
      latencyTreeWallMs: Object.fromEntries(
        modes.map((mode) => [mode, byFanout((children) => ms(latency[children]![mode].wallMs))]),
      ),
      childCallsPerChild: childToolTurns + 1,
      childCallMs,
    }),
  );
} catch (error) {
  console.error(`bench:budget did not complete: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await env.close();
}
