import { PayloadKeyConfigError } from './errors';

/** An AES-256 key and the id recorded next to every payload it encrypts. */
export interface PayloadKey {
  id: string;
  key: Buffer;
}

/** The key new payloads are encrypted with (if any) and every key payloads may be decrypted with. */
export interface PayloadKeyRing {
  current?: PayloadKey;
  /** By id; includes the current key. */
  all: ReadonlyMap<string, Buffer>;
}

/** Environment variables of the payload codec. */
export const payloadKeyVariables = {
  key: 'SUBAGENTS_PAYLOAD_KEY',
  keyId: 'SUBAGENTS_PAYLOAD_KEY_ID',
  oldKeys: 'SUBAGENTS_PAYLOAD_OLD_KEYS',
} as const;

export const defaultPayloadKeyId = 'default';

const base64Pattern = /^[A-Za-z0-9+/]+={0,2}$/;
const keyIdPattern = /^[A-Za-z0-9._-]+$/;

/** Decodes a base64 AES-256 key, or throws an error naming where it came from. */
export function parsePayloadKey(base64: string, source: string): Buffer {
  const text = base64.trim();
  const key = base64Pattern.test(text) ? Buffer.from(text, 'base64') : undefined;
  if (key?.byteLength !== 32) {
    const problem = key ? `it decodes to ${key.byteLength} bytes` : 'it is not valid base64';
    throw new PayloadKeyConfigError(
      `${source} must be the base64 encoding of exactly 32 bytes (an AES-256 key); ${problem}. Generate one with: openssl rand -base64 32`,
    );
  }
  return key;
}

function checkKeyId(id: string, source: string): string {
  if (!keyIdPattern.test(id)) {
    throw new PayloadKeyConfigError(
      `${source}: key id "${id}" must be non-empty and use only letters, digits, ".", "_" and "-".`,
    );
  }
  return id;
}

/** Reads the SUBAGENTS_PAYLOAD_KEY* variables (docs/codec.md); throws PayloadKeyConfigError on bad values. */
export function payloadKeyRingFromEnv(env: NodeJS.ProcessEnv = process.env): PayloadKeyRing {
  const all = new Map<string, Buffer>();
  for (const entry of (env[payloadKeyVariables.oldKeys] ?? '').split(',')) {
    if (!entry.trim()) continue;
    const separator = entry.indexOf(':');
    if (separator < 0) {
      throw new PayloadKeyConfigError(
        `${payloadKeyVariables.oldKeys} entries must look like "id:base64key"; got "${entry.trim().slice(0, 20)}…".`,
      );
    }
    const id = checkKeyId(entry.slice(0, separator).trim(), payloadKeyVariables.oldKeys);
    all.set(id, parsePayloadKey(entry.slice(separator + 1), `${payloadKeyVariables.oldKeys} (key "${id}")`));
  }
  const base64 = env[payloadKeyVariables.key];
  if (!base64?.trim()) return { all };
  const id = checkKeyId(
    (env[payloadKeyVariables.keyId] ?? '').trim() || defaultPayloadKeyId,
    payloadKeyVariables.keyId,
  );
  const key = parsePayloadKey(base64, payloadKeyVariables.key);
  all.set(id, key);
  return { current: { id, key }, all };
}
