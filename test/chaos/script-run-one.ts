// One chaos script run: start the 30-agent script, SIGKILL its slot's worker at each planned point of
// its progress, wait for its result, then check every agent() call ran exactly once (docs/chaos.md).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { SubagentsClient } from '../../src/client/client';
import type { ScriptRunHandle } from '../../src/client/script-runs';
import type { ScriptRunSnapshot } from '../../src/shared/scripts/script-run';
import { canonical, compareWithHistory, compareWithRequestLog, lostToolResults, toolResultTexts } from './checks';
import type { ChaosEnv } from './env';
import { readAgentHistory } from './history';
import type { AgentReport } from './run-one';
import {
  agentCallCount,
  callKeys,
  checkCount,
  chaosScriptSource,
  countMarkers,
  describeScriptKill,
  expectedResult,
  markerPrefix,
  readerCount,
  scriptArgs,
  scriptMarkersFile,
  scriptWorkspace,
  type ScriptKillTrigger,
  type ScriptRunPlan,
} from './script-plan';
import { awaitFinalResult, retrying, seconds, sleep } from './util';
import type { WorkerSlot } from './worker-slot';

/** One kill of a script run: its trigger, when it fired (from the run's start) and the run's progress then. */
export interface ScriptKill {
  trigger: ScriptKillTrigger;
  atMs: number;
  modelRequests: number;
  markers: number;
}

export interface ScriptRunOutcome {
  plan: ScriptRunPlan;
  slot: string;
  /** The run's result status (`completed`, `failed: …`, `stuck`, `error: …`). */
  status: string;
  /** Completed with the expected value, its snapshot showing 30 completed agents, every marker once, 30 children. */
  completed: boolean;
  /** Why it does not count as completed (empty when it does). */
  problems: string[];
  durationMs: number;
  kills: ScriptKill[];
  /** Call keys with no marker line (their Bash cut before its echo included: see bashCutBeforeEcho). */
  missingMarkers: string[];
  /** Call keys whose marker line is in the file more than once. */
  repeatedMarkers: string[];
  /** Marker lines beyond one per call key, plus lines naming no key of the run. */
  extraMarkers: number;
  /** Missing markers whose agent's Bash result says it may have partially run: Bash is at most once by design. */
  bashCutBeforeEcho: string[];
  /** Children the run's workflow started (all runs of its history): 30 when no call was started twice. */
  childrenStarted: number;
  /** Workflow task timeouts of the run's own workflow (its worker died holding one). */
  runWorkflowTaskTimeouts: number;
  agents: AgentReport[];
  notes: string[];
}

export interface ScriptRunContext {
  env: ChaosEnv;
  slot: WorkerSlot;
  log: (line: string) => void;
  runTimeoutMs: number;
}

const notFound = (error: unknown) => error instanceof WorkflowNotFoundError;
const agentIds = (runId: string) => Array.from({ length: agentCallCount }, (_, index) => `${runId}.${index + 1}`);

export async function executeScriptRun(plan: ScriptRunPlan, context: ScriptRunContext): Promise<ScriptRunOutcome> {
  const { env, slot, log } = context;
  const runDir = path.join(env.dir, plan.label);
  const workspace = scriptWorkspace(env.dir, plan);
  mkdirSync(workspace, { recursive: true });
  writeFileSync(path.join(workspace, 'README.txt'), 'The workspace of a chaos script run.\n');
  const markersFile = scriptMarkersFile(env.dir, plan);
  const client = new SubagentsClient(env.temporal, slot.options.taskQueue);
  const notes: string[] = [];
  const startedAt = Date.now();
  log(
    `${plan.label} start script run ${plan.runId} on ${slot.options.name} — kills ${plan.kills.map(describeScriptKill).join(', ')}`,
  );

  const handle = await retrying(`${plan.label} start`, async (): Promise<ScriptRunHandle> => {
    try {
      return await client.runWorkflow(chaosScriptSource, scriptArgs(plan), {
        workflowId: plan.runId,
        cwd: workspace,
        homeDir: runDir,
        model: 'claude-test-tiny',
        permissionMode: 'bypassPermissions',
        limits: { forking: false },
      });
    } catch (error) {
      // A retried start whose first attempt got through.
      if (error instanceof WorkflowExecutionAlreadyStartedError) return client.getWorkflowRun(plan.runId);
      throw error;
    }
  });

  const progress = () => ({
    modelRequests: agentIds(plan.runId).reduce((total, agentId) => total + env.requestLog.of(agentId).length, 0),
    markers: existsSync(markersFile)
      ? readFileSync(markersFile, 'utf8')
          .split('\n')
          .filter((line) => line.startsWith(markerPrefix(plan.runId))).length
      : 0,
  });
  const state = { finished: false };
  const kills: ScriptKill[] = [];
  const disruptor = (async () => {
    for (const trigger of plan.kills) {
      for (;;) {
        if (state.finished) {
          notes.push(`kill point never came (${describeScriptKill(trigger)})`);
          return;
        }
        const now = progress();
        if ((trigger.on === 'model-requests' ? now.modelRequests : now.markers) >= trigger.count) {
          const atMs = Date.now() - startedAt;
          log(`${plan.label} SIGKILL ${slot.options.name} worker at ${seconds(atMs)} (${describeScriptKill(trigger)})`);
          const began = Date.now();
          await env.killWorker(slot);
          kills.push({ trigger, atMs, ...now });
          log(`${plan.label} disruption over after ${seconds(Date.now() - began)}: a new worker runs`);
          break;
        }
        await sleep(40);
      }
    }
  })().catch((error: unknown) => {
    notes.push(`disruption failed: ${error instanceof Error ? error.message : String(error)}`);
  });

  const final = await awaitFinalResult(() => handle.result(), context.runTimeoutMs, plan.label, log, 'the run result');
  const result = { status: final.status, structured: final.result?.structured };
  state.finished = true;
  await disruptor;
  const durationMs = Date.now() - startedAt;
  const base = {
    plan,
    slot: slot.options.name,
    durationMs,
    kills,
    missingMarkers: [] as string[],
    repeatedMarkers: [] as string[],
    extraMarkers: 0,
    bashCutBeforeEcho: [] as string[],
    childrenStarted: 0,
    runWorkflowTaskTimeouts: 0,
    agents: [] as AgentReport[],
    notes,
  };
  const problems: string[] = [];
  if (result.status !== 'completed') {
    problems.push(
      result.status === 'stuck' ? `the run did not finish within ${seconds(context.runTimeoutMs)}` : result.status,
    );
    return { ...base, status: result.status, completed: false, problems };
  }
  if (canonical(result.structured) !== canonical(expectedResult()))
    problems.push(`unexpected return value: ${JSON.stringify(result.structured).slice(0, 160)}`);

  const snapshot = await retrying(`${plan.label} snapshot`, () => handle.snapshot(), 90_000);
  problems.push(...snapshotProblems(plan, snapshot));
  const runHistory = await retrying(`history of ${plan.runId}`, () => readAgentHistory(env.temporal, plan.runId));
  const expectedIds = agentIds(plan.runId);
  const strayChildren = runHistory.childIds.filter((id) => !expectedIds.includes(id));
  if (runHistory.childIds.length !== agentCallCount || strayChildren.length > 0)
    problems.push(
      `the run started ${runHistory.childIds.length} children, expected ${agentCallCount}${strayChildren.length ? ` (unexpected: ${strayChildren.join(', ')})` : ''}`,
    );

  const agents = await checkAgents(expectedIds, env, slot, problems);
  const markers = countMarkers(plan.runId, existsSync(markersFile) ? readFileSync(markersFile, 'utf8') : '');
  const byLabel = new Map(snapshot.agents.map((agent) => [agent.label, agent.agentId]));
  const missingMarkers = callKeys.filter((key) => (markers.counts.get(key) ?? 0) === 0);
  const partial = (agentId: string | undefined) =>
    (agents.find((agent) => agent.agentId === agentId)?.partialBash ?? 0) > 0;
  const bashCutBeforeEcho = missingMarkers.filter((key) => partial(byLabel.get(key)));
  const extraMarkers =
    [...markers.counts.values()].reduce((total, count) => total + Math.max(0, count - 1), 0) + markers.strays.length;
  for (const key of callKeys) {
    const count = markers.counts.get(key) ?? 0;
    if (count > 1) problems.push(`${key}: its marker is in the file ${count} times`);
    const written = markers.agentIds.get(key) ?? [];
    if (written.some((agentId) => agentId !== byLabel.get(key)))
      problems.push(
        `${key}: marker written by ${written.join(', ')}, the snapshot says ${byLabel.get(key) ?? 'nobody'}`,
      );
  }
  if (markers.strays.length > 0) problems.push(`marker lines naming no call: ${markers.strays.join(' | ')}`);
  const unexplained = missingMarkers.filter((key) => !bashCutBeforeEcho.includes(key));
  if (unexplained.length > 0) problems.push(`no marker for ${unexplained.join(', ')}`);
  // Bash is at most once by design: one cut before its echo is not run again, and its result says so.
  if (bashCutBeforeEcho.length > 0)
    notes.push(
      `Bash cut before its echo (the model was told it may have partially run): ${bashCutBeforeEcho.join(', ')}`,
    );
  for (const agent of agents) {
    if (agent.workflowStatus !== 'COMPLETED' || agent.resultStatus !== 'completed')
      problems.push(`${agent.agentId}: ${agent.workflowStatus}/${agent.resultStatus ?? '?'}`);
    if ((agent.requestsPerTurn[0] ?? 0) === 0)
      problems.push(`${agent.agentId}: the model server never saw its first request`);
  }
  return {
    ...base,
    status: result.status,
    completed: problems.length === 0,
    problems,
    missingMarkers,
    repeatedMarkers: callKeys.filter((key) => (markers.counts.get(key) ?? 0) > 1),
    extraMarkers,
    bashCutBeforeEcho,
    childrenStarted: runHistory.childIds.length,
    runWorkflowTaskTimeouts: runHistory.workflowTaskTimeouts,
    agents,
  };
}

/** What the run's `scriptRun` snapshot says against the plan: completed, 30 agents in call order, all completed. */
function snapshotProblems(plan: ScriptRunPlan, snapshot: ScriptRunSnapshot): string[] {
  const problems: string[] = [];
  if (snapshot.status !== 'completed') problems.push(`snapshot status ${snapshot.status}`);
  const completedAgents = snapshot.agents.filter((agent) => agent.status === 'completed');
  if (snapshot.agents.length !== agentCallCount || completedAgents.length !== agentCallCount)
    problems.push(
      `snapshot shows ${snapshot.agents.length} agents, ${completedAgents.length} completed (expected ${agentCallCount})`,
    );
  const ids = snapshot.agents.map((agent) => agent.agentId);
  if (canonical(ids) !== canonical(agentIds(plan.runId)))
    problems.push(`snapshot agent ids are not ${plan.runId}.1…${agentCallCount} in order`);
  const labels = new Set(snapshot.agents.map((agent) => agent.label));
  const unlabelled = callKeys.filter((key) => !labels.has(key));
  if (unlabelled.length > 0) problems.push(`no agent in the snapshot for ${unlabelled.join(', ')}`);
  const phases = snapshot.phases.map((phase) => `${phase.title}:${phase.counts.completed}`).join(' ');
  if (phases !== `Read:${readerCount} Check:${checkCount}`) problems.push(`snapshot phases ${phases}`);
  return problems;
}

/** Each agent of the run checked as the tree runs' agents are (run-one.ts), five at a time. */
async function checkAgents(ids: string[], env: ChaosEnv, slot: WorkerSlot, notes: string[]): Promise<AgentReport[]> {
  const reports: AgentReport[] = [];
  const queue = [...ids];
  const worker = async () => {
    for (let agentId = queue.shift(); agentId !== undefined; agentId = queue.shift()) {
      try {
        reports.push(await checkAgent(agentId, env, slot));
      } catch (error) {
        notes.push(`${agentId}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 5 }, worker));
  const order = (agentId: string) => Number(agentId.slice(agentId.lastIndexOf('.') + 1));
  return reports.sort((left, right) => order(left.agentId) - order(right.agentId));
}

async function checkAgent(agentId: string, env: ChaosEnv, slot: WorkerSlot): Promise<AgentReport> {
  const client = new SubagentsClient(env.temporal, slot.options.taskQueue);
  const agent = client.getAgent(agentId);
  let description = await retrying(`describe ${agentId}`, () => agent.describe(), 60_000, notFound);
  const closeDeadline = Date.now() + 60_000;
  while (description.status.name === 'RUNNING' && Date.now() < closeDeadline) {
    await sleep(500);
    description = await retrying(`describe ${agentId}`, () => agent.describe(), 60_000);
  }
  const history = await retrying(`history of ${agentId}`, () => readAgentHistory(env.temporal, agentId), 60_000);
  const messages = await retrying(`conversation of ${agentId}`, () => agent.messages(), 90_000);
  const status = await retrying(`status of ${agentId}`, () => agent.status(), 60_000).catch(() => undefined);
  const requests = env.requestLog.of(agentId);
  const log = compareWithRequestLog(messages, requests);
  const requestsPerTurn: number[] = [];
  for (const request of requests) requestsPerTurn[request.turnIndex] = (requestsPerTurn[request.turnIndex] ?? 0) + 1;
  const scheduledExtra = [...history.bashScheduled.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
  const disruptions = [
    ...env.disruptions.filter((entry) => entry.slot === undefined || entry.slot === slot.options.name),
  ].map((entry) => entry.atMs);
  return {
    agentId,
    workflowStatus: description.status.name,
    resultStatus: status?.result?.status,
    runs: history.runIds.length,
    messages,
    lost: lostToolResults(messages),
    mismatches: [
      ...log.mismatches.map((text) => `log: ${text}`),
      ...compareWithHistory(messages, history.modelResults).map((text) => `history: ${text}`),
    ],
    markedRetries: log.markedRetries,
    bashDuplicates: Math.max(scheduledExtra, history.bashRetries),
    partialBash: toolResultTexts(messages).filter((text) => text.includes('may have partially run')).length,
    requestsPerTurn: Array.from(requestsPerTurn, (count) => count ?? 0),
    workflowTaskTimeouts: history.workflowTaskTimeouts,
    maxAttempts: history.maxAttempts,
    taskStarts: history.taskStarts,
    unexplainedRetries: history.retriedActivities
      .filter(
        (retry) =>
          ![...disruptions, ...slot.unexpectedExitTimes].some(
            (at) => at >= retry.scheduledAtMs - 2000 && at <= retry.startedAtMs,
          ),
      )
      .map(
        (retry) =>
          `${agentId} ${retry.name} attempt ${retry.attempt} started ${seconds(retry.startedAtMs - retry.scheduledAtMs)} after it was scheduled, with no disruption in between`,
      ),
  };
}
