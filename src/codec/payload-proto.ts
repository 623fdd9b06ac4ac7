import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The whole payload (metadata included) as protobuf bytes, so a codec can wrap it and restore it exactly. */
export function payloadToBytes(payload: Payload): Uint8Array {
  return proto.temporal.api.common.v1.Payload.encode(payload).finish();
}

export function payloadFromBytes(bytes: Uint8Array): Payload {
  return proto.temporal.api.common.v1.Payload.decode(bytes);
}

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** A metadata value as text ('' when absent). */
export function metadataText(payload: Payload, key: string): string {
  const value = payload.metadata?.[key];
  return value ? decoder.decode(value) : '';
}
