import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { CompressionCodec, defaultCompressionThreshold } from './compression-codec';
import { EncryptionCodec } from './encryption-codec';
import { PayloadKeyConfigError } from './errors';
import { payloadKeyRingFromEnv, type PayloadKeyRing } from './payload-keys';
import { withSecretFiles } from '../config/secrets';

/** Compression threshold in bytes; "off" never compresses (decoding still works). */
export const compressionThresholdVariable = 'SUBAGENTS_PAYLOAD_COMPRESSION_THRESHOLD';

/** What the codec chain of this process does, for startup logs. */
export interface PayloadCodecSettings {
  compressionThresholdBytes: number;
  /** Id of the key new payloads are encrypted with; undefined = not encrypted. */
  encryptionKeyId?: string;
  /** Ids of every key payloads can be decrypted with. */
  decryptionKeyIds: string[];
}

function compressionThresholdFromEnv(env: NodeJS.ProcessEnv): number {
  const text = env[compressionThresholdVariable]?.trim();
  if (!text) return defaultCompressionThreshold;
  if (text === 'off') return Number.POSITIVE_INFINITY;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) {
    throw new PayloadKeyConfigError(
      `${compressionThresholdVariable} must be a byte count (e.g. 16384) or "off"; got "${text}".`,
    );
  }
  return value;
}

/** Compression then encryption, always present so any process decodes; they change new payloads only when configured. */
export function createPayloadCodecs(env: NodeJS.ProcessEnv = withSecretFiles(process.env)): {
  codecs: PayloadCodec[];
  settings: PayloadCodecSettings;
} {
  const thresholdBytes = compressionThresholdFromEnv(env);
  const keys: PayloadKeyRing = payloadKeyRingFromEnv(env);
  return {
    codecs: [new CompressionCodec({ thresholdBytes }), new EncryptionCodec(keys)],
    settings: {
      compressionThresholdBytes: thresholdBytes,
      encryptionKeyId: keys.current?.id,
      decryptionKeyIds: [...keys.all.keys()],
    },
  };
}

/** The DataConverter for `Worker.create({ dataConverter })` and `new Client({ dataConverter })`, from the environment. */
export function createDataConverter(
  env: NodeJS.ProcessEnv = withSecretFiles(process.env),
): DataConverter & { payloadCodecs: PayloadCodec[] } {
  return { payloadCodecs: createPayloadCodecs(env).codecs };
}

/** One line for startup logs, e.g. `payloads: gzip > 16384 bytes, AES-256-GCM key "default"`. */
export function describePayloadCodecs(settings: PayloadCodecSettings): string {
  const compression = Number.isFinite(settings.compressionThresholdBytes)
    ? `gzip > ${settings.compressionThresholdBytes} bytes`
    : 'no compression';
  const encryption = settings.encryptionKeyId ? `AES-256-GCM key "${settings.encryptionKeyId}"` : 'not encrypted';
  return `payloads: ${compression}, ${encryption}`;
}
