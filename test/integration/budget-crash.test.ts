// @slow
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/child-worker';
import { startUnattended, useCrashHarness } from '../helpers/crash-harness';
import { scenario } from '../helpers/agent-env';
import { agentPrompted, spawnInBackground } from '../helpers/scripted-agents';

const crash = useCrashHarness();

describe('the tree ledger across a worker SIGKILL', () => {
  it('loses no reservation and counts no attempt twice when the worker dies with calls in flight', async () => {
    const { workspace, taskQueue, client } = crash.prepare('budget-crash');
    const children = 4;
    crash.modelServer.setBehaviour(
      scenario([
        agentPrompted('budget crash root', [
          {
            toolUses: Array.from({ length: children }, (_, index) =>
              spawnInBackground(`slow ${index}`, `BUDGET-CRASH-CHILD ${index}`),
            ),
          },
          ...Array.from({ length: children + 2 }, () => ({ text: 'ROOT-HEARD {{last_user_text}}' })),
        ]),
        agentPrompted('BUDGET-CRASH-CHILD', [
          // Slow streams: the worker dies while they are being read.
          {
            text: `CHILD-SLOW ${'x '.repeat(300)}`,
            toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }],
            eventDelayMs: 700,
          },
          { text: 'CHILD-DONE' },
        ]),
      ]),
    );
    await crash.startWorker(taskQueue);
    const handle = await startUnattended(client, workspace, {
      prompt: 'budget crash root',
      limits: { budget: { caps: { tokens: 5_000_000 } }, forking: false },
    });
    const childCalls = () =>
      crash.modelServer
        .requests()
        .filter(
          (request) =>
            request.path === '/v1/messages' &&
            request.headers['x-subagents-agent-id']?.startsWith(`${handle.agentId}.`),
        );
    // Every child's slow first call is streaming (message_start out, billed): kill the worker now.
    await waitFor(
      () =>
        childCalls().filter(
          (request) =>
            (request.served?.inputTokens ?? 0) +
              (request.served?.cacheCreationInputTokens ?? 0) +
              (request.served?.cacheReadInputTokens ?? 0) >
            0,
        ).length >= children,
      60_000,
      'the children to be streaming',
    );
    // Their heartbeat at message_start leaves the worker at once; give it a moment to reach the server.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await crash.workers[0]!.kill('SIGKILL');
    await crash.startWorker(taskQueue);

    const result = await handle.result();
    expect(result.status).toBe('completed');
    for (let index = 1; index <= children; index++) {
      const child = (await client.getAgent(`${handle.agentId}.${index}`).status()).result!;
      expect(child.finalText).toBe('CHILD-DONE');
    }
    const snapshot = await handle.budget();
    const root = snapshot.accounts.find((account) => account.agentId === handle.agentId)!;
    // No reservation is left held, none was refused, and each attempt counted once: never more than was served.
    expect(root.reservedTokens).toBe(0);
    expect(snapshot.refusals).toBe(0);
    // The children spent leases (docs/budgets.md, Leases), and every lease was given back.
    expect(snapshot.leases).toEqual({ held: 0, tokens: 0 });
    const childInputs = await Promise.all(
      Array.from({ length: children }, async (_, index) => {
        const history = await crash.temporal.client.workflow.getHandle(`${handle.agentId}.${index + 1}`).fetchHistory();
        return (history.events ?? []).flatMap((event) => {
          const payload =
            event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel'
              ? event.activityTaskScheduledEventAttributes.input?.payloads?.[0]?.data
              : undefined;
          return payload ? [JSON.parse(Buffer.from(payload).toString()) as { budget?: { leaseId?: string } }] : [];
        });
      }),
    );
    expect(
      childInputs.every((calls) => calls.length >= 2 && calls.every((call) => call.budget?.leaseId !== undefined)),
    ).toBe(true);
    expect(snapshot.accounts.every((account) => !account.running)).toBe(true);
    const served = crash.modelServer.usage().byAgent;
    const servedTotal = Object.entries(served)
      .filter(([agentId]) => agentId.startsWith(handle.agentId))
      .reduce((sum, [, totals]) => sum + totals.totalTokens, 0);
    expect(root.subtree.tokens).toBeLessThanOrEqual(servedTotal);
    // The attempts the dead worker was streaming, billed but never finished.
    const lost = childCalls().filter((request) => request.served && !request.served.complete);
    const lostTokens = lost.reduce(
      (sum, request) =>
        sum +
        request.served!.inputTokens +
        request.served!.cacheCreationInputTokens +
        request.served!.cacheReadInputTokens +
        request.served!.outputTokens,
      0,
    );
    expect(lost.length).toBeGreaterThanOrEqual(children);
    expect(lostTokens).toBeGreaterThan(0);
    // The dead worker's attempts had heartbeat their billing at message_start: the next attempts charged it.
    expect(root.subtree.tokens).toBe(servedTotal);
  }, 240_000);
});
