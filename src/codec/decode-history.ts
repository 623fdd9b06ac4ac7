import type { Payload, PayloadCodec } from '@temporalio/common';

function isPayload(value: object): value is Payload {
  const candidate = value as { metadata?: unknown; data?: unknown };
  return candidate.data instanceof Uint8Array && typeof candidate.metadata === 'object' && candidate.metadata !== null;
}

async function decodeOne(payload: Payload, codecs: readonly PayloadCodec[]): Promise<Payload> {
  let payloads = [payload];
  for (let index = codecs.length - 1; index >= 0; index--) payloads = await codecs[index]!.decode(payloads);
  return payloads[0]!;
}

/** Decodes every payload of a fetched history in place (codecs in reverse), for inspection and codec-less replay. */
export async function decodeHistoryPayloads<T extends object>(history: T, codecs: readonly PayloadCodec[]): Promise<T> {
  const visit = async (value: unknown): Promise<unknown> => {
    if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return value;
    if (isPayload(value)) return decodeOne(value, codecs);
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      const decoded = await visit(child);
      if (decoded !== child) record[key] = decoded;
    }
    return value;
  };
  await visit(history);
  return history;
}
