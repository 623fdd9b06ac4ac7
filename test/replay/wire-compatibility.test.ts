// Signals agents of one tree send each other cross versions (a parent and its children may run different
// builds, docs/operations.md "Upgrades"): every payload recorded in the corpus must still parse.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  agentMessageSchema,
  agentResultSchema,
  approvalDecisionSchema,
  approvalRequestSchema,
  boardNoticeSchema,
  budgetChargeSchema,
  budgetGrantSchema,
  budgetReserveSchema,
  interruptInputSchema,
  pauseSpawningSchema,
  settingsPushSchema,
  steerInputSchema,
  stopNoticeSchema,
  treeAgentEventSchema,
  treeAgentStartedSchema,
  treeSpawnReplySchema,
  treeSpawnRequestSchema,
  upgradeNoticeSchema,
} from '../../src/shared/protocol/input-schemas';
import { historiesDir } from '../helpers/histories';

type Schema = { safeParse(value: unknown): { success: boolean; error?: unknown } };

/** Each signal an agent takes with a payload, by its name on the wire, and the schema its handler checks it with. */
const signalSchemas: Record<string, Schema> = {
  approvalDecision: approvalDecisionSchema,
  approvalRequest: approvalRequestSchema,
  boardNotice: boardNoticeSchema,
  budgetCharge: budgetChargeSchema,
  budgetGrant: budgetGrantSchema,
  budgetReserve: budgetReserveSchema,
  childFinal: agentResultSchema,
  interrupt: interruptInputSchema,
  message: agentMessageSchema,
  pauseSpawning: pauseSpawningSchema,
  settingsChanged: settingsPushSchema,
  steerSignal: steerInputSchema,
  stopNotice: stopNoticeSchema,
  treeAgentEvent: treeAgentEventSchema,
  treeAgentStarted: treeAgentStartedSchema,
  treeSpawnReply: treeSpawnReplySchema,
  treeSpawnRequest: treeSpawnRequestSchema,
  upgrade: upgradeNoticeSchema,
};

/** Signals without a payload, and the board's heartbeats (its handler reads one field and ignores the rest). */
const unchecked = new Set(['close', 'backgrounded', 'boardHeartbeat', 'boardOwnerEnded']);

const files = readdirSync(historiesDir)
  .filter((file) => file.endsWith('.json'))
  .sort();

function signalsOf(file: string): { name: string; payload: unknown }[] {
  const history = proto.temporal.api.history.v1.History.fromObject(
    JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8')),
  );
  return (history.events ?? []).flatMap((event) => {
    const signaled = event.workflowExecutionSignaledEventAttributes;
    if (!signaled?.signalName) return [];
    const payloads = signaled.input?.payloads ?? [];
    return [
      {
        name: signaled.signalName,
        payload: payloads[0] ? defaultPayloadConverter.fromPayload(payloads[0]) : undefined,
      },
    ];
  });
}

describe('signals recorded in the corpus, read by the current schemas', () => {
  it('covers every signal an agent handles', () => {
    const seen = new Set(files.flatMap((file) => signalsOf(file).map((signal) => signal.name)));
    expect([...seen].filter((name) => !(name in signalSchemas) && !unchecked.has(name))).toEqual([]);
    expect(seen.size).toBeGreaterThan(10);
  });

  it.each(files)('parses every signal of %s', (file) => {
    const refused = signalsOf(file)
      .filter(({ name }) => name in signalSchemas)
      .filter(({ name, payload }) => !signalSchemas[name]!.safeParse(payload).success)
      .map(({ name, payload }) => `${name}: ${JSON.stringify(payload).slice(0, 200)}`);
    // A refused payload means agents of the old build and the new one cannot talk: add fields as optional instead.
    expect(refused).toEqual([]);
  });
});
