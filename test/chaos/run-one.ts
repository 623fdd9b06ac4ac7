// One chaos run: start the tree, approve what it asks, disrupt it at its kill point, wait for the
// root's result, then check every agent of the tree.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { SubagentsClient } from '../../src/client/client';
import type { MessageParam } from '../../src/shared/model/messages';
import type { WorktreeOutcome } from '../../src/shared/workspace/worktree';
import { bashStartCounts, compareWithHistory, compareWithRequestLog, lostToolResults, toolResultTexts } from './checks';
import type { ChaosEnv } from './env';
import { readAgentHistory, type TaskStart } from './history';
import {
  agentIdOf,
  bashMarker,
  bashRoles,
  describeKill,
  rootFinalPrefix,
  roles,
  type Role,
  type RunPlan,
  type Trigger,
} from './plan';
import { createRepo } from './repo';
import { awaitFinalResult, retrying, seconds, sleep, withTimeout } from './util';
import type { WorkerSlot } from './worker-slot';

/** What the checks found for one agent of a run. */
export interface AgentReport {
  agentId: string;
  role?: Role;
  workflowStatus: string;
  resultStatus?: string;
  /** Runs of its continue-as-new chain. */
  runs: number;
  /** The conversation as the `conversation` query returned it right after the run (first read). */
  messages: MessageParam[];
  lost: string[];
  mismatches: string[];
  markedRetries: number;
  bashDuplicates: number;
  partialBash: number;
  /** Model requests per turn index (above 1: a retried call). */
  requestsPerTurn: number[];
  workflowTaskTimeouts: number;
  maxAttempts: Record<string, number>;
  /** Activities Temporal retried although no disruption hit this run's worker between their scheduling and the retry. */
  unexplainedRetries: string[];
  /** The agent's worktree outcome (the worktree child only). */
  worktree?: WorktreeOutcome;
  /** Its workflow and activity tasks as workers took them up, in order. */
  taskStarts: TaskStart[];
}

export interface RunOutcome {
  plan: RunPlan;
  slot: string;
  rootStatus: string;
  finalText?: string;
  completed: boolean;
  durationMs: number;
  /** When the disruption started, from the run's start; undefined when its kill point never came. */
  disruptedAtMs?: number;
  /** When the killed worker's process was gone (ms since epoch). */
  killedAtEpochMs?: number;
  agents: AgentReport[];
  notes: string[];
}

export interface RunContext {
  env: ChaosEnv;
  slot: WorkerSlot;
  log: (line: string) => void;
  runTimeoutMs: number;
}

const notFound = (error: unknown) => error instanceof WorkflowNotFoundError;

export async function executeRun(plan: RunPlan, context: RunContext): Promise<RunOutcome> {
  const { env, slot, log } = context;
  const label = `r${String(plan.index).padStart(2, '0')}`;
  const runDir = path.join(env.dir, label);
  mkdirSync(runDir, { recursive: true });
  const markersFile = path.join(runDir, 'bash-markers.log');
  const hookLog = path.join(runDir, 'worktree-hook.log');
  const repo = createRepo(runDir, plan.kill.trigger.on === 'worktree-hook' ? hookLog : undefined);
  const client = new SubagentsClient(env.temporal, slot.options.taskQueue);
  const notes: string[] = [];
  const startedAt = Date.now();
  log(
    `${label} start ${plan.rootId} on ${slot.options.name} — ${describeKill(plan.kill)}${plan.continueAsNewAfterEvents ? `, continue-as-new after ${plan.continueAsNewAfterEvents} events` : ''}`,
  );

  const handle = await retrying(`${label} start`, async () => {
    try {
      return await client.startAgent({
        agentId: plan.rootId,
        prompt: `CHAOS root ${plan.rootId}: look around, run a command, delegate to two subagents`,
        cwd: repo,
        homeDir: runDir,
        model: 'claude-test-tiny',
        permissionMode: 'default',
        limits: {
          forking: false,
          backgroundApprovals: 'approve',
          autoBackgroundMs: 600_000,
          ...(plan.continueAsNewAfterEvents ? { continueAsNewAfterEvents: plan.continueAsNewAfterEvents } : {}),
        },
      });
    } catch (error) {
      // A retried start whose first attempt got through.
      if (error instanceof WorkflowExecutionAlreadyStartedError) return client.getAgent(plan.rootId);
      throw error;
    }
  });

  const state = {
    finished: false,
    disruptionDone: false,
    rootBashAskedAt: undefined as number | undefined,
    disruptedAtMs: undefined as number | undefined,
    killedAtEpochMs: undefined as number | undefined,
  };
  const holdRootBash = plan.kill.trigger.on === 'approval-pending';

  const approver = (async () => {
    const answered = new Set<string>();
    while (!state.finished) {
      const pending = await withTimeout(handle.approvals(), 10_000, 'approvals').catch(() => []);
      for (const request of pending) {
        if (answered.has(request.requestId) || state.finished) continue;
        if (request.agentId === plan.rootId && request.tool === 'Bash') {
          state.rootBashAskedAt ??= Date.now();
          if (holdRootBash && !state.disruptionDone) continue;
        }
        try {
          const began = Date.now();
          await withTimeout(
            handle.answerApproval(request.requestId, { approve: true, by: 'chaos suite' }),
            60_000,
            'an approval answer',
          );
          answered.add(request.requestId);
          if (Date.now() - began > 5000)
            log(`${label} approving ${request.requestId} took ${seconds(Date.now() - began)}`);
        } catch (error) {
          log(
            `${label} approval ${request.requestId} not answered yet: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      await sleep(400);
    }
  })();

  const disruptor = (async () => {
    const trigger = plan.kill.trigger;
    const interval = trigger.on === 'child-started' || trigger.on === 'continued-as-new' ? 100 : 40;
    while (!state.finished) {
      if (await triggered(trigger, { plan, env, markersFile, hookLog, rootBashAskedAt: state.rootBashAskedAt })) {
        state.disruptedAtMs = Date.now() - startedAt;
        const what = plan.kill.restartServer
          ? `SIGKILL ${slot.options.name} worker + restart the dev server`
          : `SIGKILL ${slot.options.name} worker`;
        log(`${label} ${what} at ${seconds(state.disruptedAtMs)} (${describeKill(plan.kill)})`);
        const began = Date.now();
        if (plan.kill.restartServer) await env.restartDevServer(slot);
        else await env.killWorker(slot);
        state.killedAtEpochMs = slot.lastExitMs;
        state.disruptionDone = true;
        log(`${label} disruption over after ${seconds(Date.now() - began)}: a new worker runs`);
        return;
      }
      await sleep(interval);
    }
    notes.push(`kill point never came (${describeKill(plan.kill)})`);
  })().catch((error: unknown) => {
    // No new worker: the run cannot go on, and the root's result wait runs into its deadline.
    state.disruptionDone = true;
    notes.push(`disruption failed: ${error instanceof Error ? error.message : String(error)}`);
  });

  const final = await awaitFinalResult(() => handle.result(), context.runTimeoutMs, label, log, 'the root result');
  const root = { status: final.status, finalText: final.result?.finalText };
  state.finished = true;
  await Promise.all([approver, disruptor]);
  const durationMs = Date.now() - startedAt;
  if (root.status === 'stuck') {
    notes.push(`root did not finish within ${seconds(context.runTimeoutMs)}`);
    return {
      plan,
      slot: slot.options.name,
      rootStatus: 'stuck',
      completed: false,
      durationMs,
      disruptedAtMs: state.disruptedAtMs,
      agents: [],
      notes,
    };
  }
  if (root.finalText !== undefined && !root.finalText.startsWith(rootFinalPrefix))
    notes.push(`unexpected root answer: ${root.finalText.slice(0, 80)}`);

  const agents = await checkTree(plan, client, env, slot, markersFile, notes);
  const rootCompleted = root.status === 'completed' && (root.finalText ?? '').startsWith(rootFinalPrefix);
  const allCompleted = agents.every(
    (agent) => agent.workflowStatus === 'COMPLETED' && agent.resultStatus === 'completed',
  );
  const worktreeProblems = checkWorktree(
    repo,
    agents.find((agent) => agent.role === 'fg'),
  );
  notes.push(...worktreeProblems);
  const missing = roles.filter((role) => !agents.some((agent) => agent.role === role));
  if (missing.length > 0) notes.push(`agents that never ran: ${missing.join(', ')}`);
  for (const agent of agents) {
    if (agent.workflowStatus !== 'COMPLETED' || agent.resultStatus !== 'completed')
      notes.push(`${agent.agentId}: ${agent.workflowStatus}/${agent.resultStatus ?? '?'}`);
  }
  return {
    plan,
    slot: slot.options.name,
    rootStatus: root.status,
    finalText: root.finalText,
    completed: rootCompleted && allCompleted && missing.length === 0 && worktreeProblems.length === 0,
    durationMs,
    disruptedAtMs: state.disruptedAtMs,
    ...(state.killedAtEpochMs !== undefined ? { killedAtEpochMs: state.killedAtEpochMs } : {}),
    agents,
    notes,
  };
}

/** The agent the kill point aimed at. */
function targetAgent(outcome: RunOutcome): AgentReport | undefined {
  const trigger = outcome.plan.kill.trigger;
  return outcome.agents.find(
    (candidate) =>
      candidate.role === ('role' in trigger ? trigger.role : trigger.on === 'worktree-hook' ? 'fg' : 'root'),
  );
}

/**
 * How long the target agent waited after the kill until a worker took up one of its tasks again (a
 * timed-out workflow task or a retried activity), and which task that was: what the crash cost it, and
 * what was in flight when it came (a `callModel attempt 2` means its model call had begun). Undefined
 * without a kill, or when nothing of it ran after the kill.
 */
export function recovery(outcome: RunOutcome): { ms: number; task: string } | undefined {
  const killedAt = outcome.killedAtEpochMs;
  if (killedAt === undefined) return undefined;
  const next = targetAgent(outcome)?.taskStarts.find((start) => start.atMs > killedAt);
  return next === undefined ? undefined : { ms: next.atMs - killedAt, task: next.task };
}

/** What the target agent's records show of the disruption (so a reader can tell the kill landed where planned). */
export function evidence(outcome: RunOutcome): string {
  const trigger = outcome.plan.kill.trigger;
  if (outcome.disruptedAtMs === undefined) return '-';
  const agent = targetAgent(outcome);
  if (!agent) return 'target agent missing';
  const retried = Object.entries(agent.maxAttempts)
    .filter(([, attempt]) => attempt > 1)
    .map(([name, attempt]) => `${name} attempt ${attempt}`);
  const generic = [
    `${agent.workflowTaskTimeouts} WFT timeouts`,
    ...(retried.length > 0 ? retried : ['no activity retried']),
  ].join(', ');
  switch (trigger.on) {
    case 'model-request':
      return `turn ${trigger.turn} requested ${agent.requestsPerTurn[trigger.turn] ?? 0}x`;
    case 'bash-running':
      return agent.partialBash > 0 ? 'Bash result: may have partially run' : 'Bash result: finished';
    case 'continued-as-new':
      return `${agent.runs} runs, ${generic}`;
    default:
      return generic;
  }
}

/**
 * The worktree child's Write is on its kept worktree, not in the main checkout, which stays clean,
 * and crash retries left no second worktree behind.
 */
function checkWorktree(repo: string, fg: AgentReport | undefined): string[] {
  const outcome = fg?.worktree;
  if (!outcome) return [`worktree: ${fg?.agentId ?? 'the worktree child'} reported no worktree outcome`];
  const problems: string[] = [];
  const file = path.join(outcome.path, 'chaos-notes.txt');
  if (!outcome.kept || !outcome.changedFiles.includes('chaos-notes.txt'))
    problems.push(`worktree: not kept with chaos-notes.txt (${JSON.stringify(outcome)})`);
  if (!existsSync(file) || !readFileSync(file, 'utf8').startsWith('written in the worktree'))
    problems.push(`worktree: ${file} missing or wrong`);
  if (existsSync(path.join(repo, 'chaos-notes.txt'))) problems.push('worktree: the Write reached the main checkout');
  const status = execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' }).trim();
  if (status !== '') problems.push(`worktree: the main checkout is not clean: ${status.replace(/\n/g, ', ')}`);
  const worktrees = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.startsWith('worktree '));
  if (worktrees.length !== 2)
    problems.push(
      `worktree: ${worktrees.length - 1} worktrees registered, expected the one kept (${worktrees.join(', ')})`,
    );
  return problems;
}

interface TriggerContext {
  plan: RunPlan;
  env: ChaosEnv;
  markersFile: string;
  hookLog: string;
  rootBashAskedAt?: number;
}

async function triggered(trigger: Trigger, context: TriggerContext): Promise<boolean> {
  const { plan, env } = context;
  switch (trigger.on) {
    case 'model-request':
      return env.requestLog
        .of(agentIdOf(plan.rootId, trigger.role))
        .some((request) => request.turnIndex === trigger.turn);
    case 'bash-running': {
      if (!existsSync(context.markersFile)) return false;
      const marker = bashMarker(plan.rootId, trigger.role);
      const text = readFileSync(context.markersFile, 'utf8');
      return text.includes(`${marker} start`) && !text.includes(`${marker} end`);
    }
    case 'approval-pending':
      return context.rootBashAskedAt !== undefined;
    case 'worktree-hook':
      return existsSync(context.hookLog);
    case 'child-started':
    case 'continued-as-new': {
      const description = await withTimeout(
        env.temporal.workflow.getHandle(agentIdOf(plan.rootId, trigger.role)).describe(),
        5000,
        'describe',
      ).catch(() => undefined);
      if (!description || description.status.name !== 'RUNNING') return false;
      if (trigger.on === 'child-started') return true;
      const firstRunId = description.raw.workflowExecutionInfo?.firstRunId;
      return !!firstRunId && firstRunId !== description.runId;
    }
  }
}

/** Every agent of the tree (found from the histories), each checked once it has closed. */
/** Disruptions that hit this slot (its own kills, dev server restarts, its worker dying on its own). */
function disruptionTimes(env: ChaosEnv, slot: WorkerSlot): number[] {
  return [
    ...env.disruptions
      .filter((entry) => entry.slot === undefined || entry.slot === slot.options.name)
      .map((entry) => entry.atMs),
    ...slot.unexpectedExitTimes,
  ];
}

async function checkTree(
  plan: RunPlan,
  client: SubagentsClient,
  env: ChaosEnv,
  slot: WorkerSlot,
  markersFile: string,
  notes: string[],
): Promise<AgentReport[]> {
  const reports: AgentReport[] = [];
  const markers = bashStartCounts(existsSync(markersFile) ? readFileSync(markersFile, 'utf8') : '');
  const queue = [plan.rootId];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const agentId = queue.shift()!;
    if (seen.has(agentId)) continue;
    seen.add(agentId);
    const role = roles.find((candidate) => agentIdOf(plan.rootId, candidate) === agentId);
    const agent = client.getAgent(agentId);
    let description;
    try {
      description = await retrying(`describe ${agentId}`, () => agent.describe(), 60_000, notFound);
    } catch (error) {
      notes.push(`${agentId}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const closeDeadline = Date.now() + 60_000;
    while (description.status.name === 'RUNNING' && Date.now() < closeDeadline) {
      await sleep(500);
      description = await retrying(`describe ${agentId}`, () => agent.describe(), 60_000);
    }
    const history = await retrying(`history of ${agentId}`, () => readAgentHistory(env.temporal, agentId), 60_000);
    queue.push(...history.childIds);
    const messages = await retrying(`conversation of ${agentId}`, () => agent.messages(), 90_000);
    const status = await retrying(`status of ${agentId}`, () => agent.status(), 60_000).catch(() => undefined);
    const requests = env.requestLog.of(agentId);
    const log = compareWithRequestLog(messages, requests);
    const requestsPerTurn: number[] = [];
    for (const request of requests) requestsPerTurn[request.turnIndex] = (requestsPerTurn[request.turnIndex] ?? 0) + 1;
    const mismatches = [
      ...log.mismatches.map((text) => `log: ${text}`),
      ...compareWithHistory(messages, history.modelResults).map((text) => `history: ${text}`),
    ];
    const scheduledExtra = [...history.bashScheduled.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
    const markerExtra =
      role && bashRoles.includes(role) ? Math.max(0, (markers.get(bashMarker(plan.rootId, role)) ?? 0) - 1) : 0;
    reports.push({
      agentId,
      role,
      workflowStatus: description.status.name,
      resultStatus: status?.result?.status,
      runs: history.runIds.length,
      messages,
      lost: lostToolResults(messages),
      mismatches,
      markedRetries: log.markedRetries,
      bashDuplicates: Math.max(scheduledExtra, markerExtra, history.bashRetries),
      partialBash: toolResultTexts(messages).filter((text) => text.includes('may have partially run')).length,
      requestsPerTurn: Array.from(requestsPerTurn, (count) => count ?? 0),
      workflowTaskTimeouts: history.workflowTaskTimeouts,
      maxAttempts: history.maxAttempts,
      ...(status?.result?.worktree ? { worktree: status.result.worktree } : {}),
      taskStarts: history.taskStarts,
      unexplainedRetries: history.retriedActivities
        .filter(
          (retry) =>
            !disruptionTimes(env, slot).some((at) => at >= retry.scheduledAtMs - 2000 && at <= retry.startedAtMs),
        )
        .map(
          (retry) =>
            `${agentId} ${retry.name} attempt ${retry.attempt} started ${seconds(retry.startedAtMs - retry.scheduledAtMs)} after it was scheduled, with no disruption in between`,
        ),
    });
  }
  return reports;
}
