import type { WorkflowHandle } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { parseLiveDetails, type LiveDetails } from '../shared/protocol/live-activity';

/** One running activity of an agent, as `describe` shows it, with its decoded live details. */
export interface LiveActivity {
  activityId: string;
  activityType: string;
  attempt: number;
  /** Epoch ms of the last heartbeat that reached the server, if any. */
  lastHeartbeatMs?: number;
  details?: LiveDetails;
}

const asNumber = (value: { toNumber(): number } | number | null | undefined): number =>
  typeof value === 'number' ? value : (value?.toNumber() ?? 0);

/** The agent's pending activities with their last heartbeat details, decoded with the client's codecs. */
export async function readLiveActivities(workflow: WorkflowHandle): Promise<LiveActivity[]> {
  const description = await workflow.describe();
  const { payloadCodecs, payloadConverter } = workflow.client.options.loadedDataConverter;
  const decode = async (payloads: Payload[] | null | undefined): Promise<unknown> => {
    const first = payloads?.[0];
    if (!first) return undefined;
    let decoded = [first];
    for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
    return payloadConverter.fromPayload(decoded[0]!);
  };
  const activities: LiveActivity[] = [];
  for (const pending of description.raw.pendingActivities ?? []) {
    const details = parseLiveDetails(
      await decode(pending.heartbeatDetails?.payloads as Payload[] | undefined).catch(() => undefined),
    );
    const heartbeat = pending.lastHeartbeatTime;
    activities.push({
      activityId: pending.activityId ?? '',
      activityType: pending.activityType?.name ?? '',
      attempt: pending.attempt ?? 1,
      ...(heartbeat
        ? { lastHeartbeatMs: asNumber(heartbeat.seconds) * 1000 + Math.floor((heartbeat.nanos ?? 0) / 1e6) }
        : {}),
      ...(details ? { details } : {}),
    });
  }
  return activities;
}
