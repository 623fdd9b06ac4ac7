import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { CompressionCodec, gzipEncoding } from '../../src/codec/compression-codec';
import { createDataConverter, createPayloadCodecs, describePayloadCodecs } from '../../src/codec/data-converter';
import { EncryptionCodec, encryptedEncoding, encryptionKeyIdMetadata } from '../../src/codec/encryption-codec';
import { PayloadDecryptionError, PayloadKeyConfigError, UnknownPayloadKeyError } from '../../src/codec/errors';
import { payloadKeyRingFromEnv } from '../../src/codec/payload-keys';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');
const payloadOf = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);

async function encode(codecs: PayloadCodec[], payloads: Payload[]): Promise<Payload[]> {
  let result = payloads;
  for (const codec of codecs) result = await codec.encode(result);
  return result;
}

async function decode(codecs: PayloadCodec[], payloads: Payload[]): Promise<Payload[]> {
  let result = payloads;
  for (const codec of [...codecs].reverse()) result = await codec.decode(result);
  return result;
}

/** A compressible value whose JSON is larger than 16 KiB. */
const largeValue = {
  messages: Array.from({ length: 400 }, (_, index) => ({
    role: 'user',
    content: `line ${index}: the quick brown fox jumps`,
  })),
};
const smallValue = { prompt: 'SMALL-PROMPT-TEXT' };

describe('payload codecs from the environment', () => {
  it('round-trips small and large payloads without a key, compressing only the large one', async () => {
    const { codecs } = createPayloadCodecs({});
    const [small, large] = await encode(codecs, [payloadOf(smallValue), payloadOf(largeValue)]);
    expect(text(small!.metadata![METADATA_ENCODING_KEY])).toBe('json/plain');
    expect(text(small!.data)).toContain('SMALL-PROMPT-TEXT');
    expect(text(large!.metadata![METADATA_ENCODING_KEY])).toBe(gzipEncoding);
    expect(large!.data!.byteLength).toBeLessThan(payloadOf(largeValue).data!.byteLength / 4);
    expect(text(large!.data)).not.toContain('quick brown fox');
    const decoded = await decode(codecs, [small!, large!]);
    expect(decoded.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual([smallValue, largeValue]);
  });

  it('round-trips small and large payloads with a key, restoring the original metadata', async () => {
    const { codecs } = createPayloadCodecs({ SUBAGENTS_PAYLOAD_KEY: keyA, SUBAGENTS_PAYLOAD_KEY_ID: 'k2026' });
    const originals = [
      payloadOf(smallValue),
      payloadOf(largeValue),
      payloadOf(undefined),
      payloadOf(new Uint8Array([1, 2, 3])),
    ];
    const encoded = await encode(codecs, originals);
    for (const payload of encoded) {
      expect(text(payload.metadata![METADATA_ENCODING_KEY])).toBe(encryptedEncoding);
      expect(text(payload.metadata![encryptionKeyIdMetadata])).toBe('k2026');
      expect(Object.keys(payload.metadata!).sort()).toEqual([METADATA_ENCODING_KEY, encryptionKeyIdMetadata].sort());
    }
    expect(text(encoded[0]!.data)).not.toContain('SMALL-PROMPT-TEXT');
    // The large one was compressed before being encrypted: its ciphertext is much smaller than the JSON.
    expect(encoded[1]!.data!.byteLength).toBeLessThan(originals[1]!.data!.byteLength / 4);
    const decoded = await decode(codecs, encoded);
    for (const [index, payload] of decoded.entries()) {
      expect(
        Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, text(value)])),
      ).toEqual(
        Object.fromEntries(Object.entries(originals[index]!.metadata ?? {}).map(([key, value]) => [key, text(value)])),
      );
      expect(
        Buffer.from(payload.data ?? new Uint8Array()).equals(Buffer.from(originals[index]!.data ?? new Uint8Array())),
      ).toBe(true);
    }
  });

  it('uses a fresh IV for every payload', async () => {
    const { codecs } = createPayloadCodecs({ SUBAGENTS_PAYLOAD_KEY: keyA });
    const [first, second] = await encode(codecs, [payloadOf(smallValue), payloadOf(smallValue)]);
    expect(text(first!.metadata![encryptionKeyIdMetadata])).toBe('default');
    expect(Buffer.from(first!.data!).subarray(0, 12).equals(Buffer.from(second!.data!).subarray(0, 12))).toBe(false);
    expect(Buffer.from(first!.data!).equals(Buffer.from(second!.data!))).toBe(false);
  });

  it('detects a tampered ciphertext, IV or tag with a clear error', async () => {
    const codec = new EncryptionCodec(payloadKeyRingFromEnv({ SUBAGENTS_PAYLOAD_KEY: keyA }));
    const [encrypted] = await codec.encode([payloadOf(smallValue)]);
    for (const position of [0, 20, encrypted!.data!.byteLength - 1]) {
      const data = Buffer.from(encrypted!.data!);
      data[position] = data[position]! ^ 0x01;
      await expect(codec.decode([{ ...encrypted!, data }])).rejects.toThrow(PayloadDecryptionError);
      await expect(codec.decode([{ ...encrypted!, data }])).rejects.toThrow(
        /failed authentication with key id "default".*altered/,
      );
    }
    await expect(
      codec.decode([{ ...encrypted!, data: Buffer.from(encrypted!.data!).subarray(0, 10) }]),
    ).rejects.toThrow(/too short/);
  });

  it('fails with the key id and what to set when the key id is unknown', async () => {
    const [encrypted] = await new EncryptionCodec(
      payloadKeyRingFromEnv({ SUBAGENTS_PAYLOAD_KEY: keyA, SUBAGENTS_PAYLOAD_KEY_ID: 'old-2025' }),
    ).encode([payloadOf(smallValue)]);
    const otherKey = new EncryptionCodec(
      payloadKeyRingFromEnv({ SUBAGENTS_PAYLOAD_KEY: keyB, SUBAGENTS_PAYLOAD_KEY_ID: 'new-2026' }),
    );
    const error = await otherKey.decode([encrypted!]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnknownPayloadKeyError);
    expect((error as Error).message).toContain('key id "old-2025"');
    expect((error as Error).message).toContain('SUBAGENTS_PAYLOAD_OLD_KEYS');
    // A process without any key reports the same instead of handing ciphertext to the payload converter.
    await expect(new EncryptionCodec(payloadKeyRingFromEnv({})).decode([encrypted!])).rejects.toThrow(
      UnknownPayloadKeyError,
    );
  });

  it('decodes payloads written with an old key listed in SUBAGENTS_PAYLOAD_OLD_KEYS, encoding new ones with the current key', async () => {
    const old = createPayloadCodecs({ SUBAGENTS_PAYLOAD_KEY: keyA, SUBAGENTS_PAYLOAD_KEY_ID: 'old-2025' }).codecs;
    const written = await encode(old, [payloadOf(smallValue), payloadOf(largeValue)]);
    const rotated = createPayloadCodecs({
      SUBAGENTS_PAYLOAD_KEY: keyB,
      SUBAGENTS_PAYLOAD_KEY_ID: 'new-2026',
      SUBAGENTS_PAYLOAD_OLD_KEYS: ` old-2025:${keyA} , other:${keyB}`,
    });
    expect(rotated.settings).toMatchObject({ encryptionKeyId: 'new-2026' });
    expect(rotated.settings.decryptionKeyIds.sort()).toEqual(['new-2026', 'old-2025', 'other']);
    expect(
      (await decode(rotated.codecs, written)).map((payload) => defaultPayloadConverter.fromPayload(payload)),
    ).toEqual([smallValue, largeValue]);
    const [fresh] = await encode(rotated.codecs, [payloadOf(smallValue)]);
    expect(text(fresh!.metadata![encryptionKeyIdMetadata])).toBe('new-2026');
    // Old keys alone decrypt but do not encrypt (turning encryption off).
    const decryptOnly = createPayloadCodecs({ SUBAGENTS_PAYLOAD_OLD_KEYS: `old-2025:${keyA}` }).codecs;
    expect(defaultPayloadConverter.fromPayload((await decode(decryptOnly, [written[0]!]))[0]!)).toEqual(smallValue);
    expect(text((await encode(decryptOnly, [payloadOf(smallValue)]))[0]!.metadata![METADATA_ENCODING_KEY])).toBe(
      'json/plain',
    );
  });

  it.each([
    [
      { SUBAGENTS_PAYLOAD_KEY: randomBytes(16).toString('base64') },
      /SUBAGENTS_PAYLOAD_KEY must be the base64 encoding of exactly 32 bytes.*decodes to 16 bytes.*openssl rand -base64 32/,
    ],
    [{ SUBAGENTS_PAYLOAD_KEY: 'not base64 at all!' }, /SUBAGENTS_PAYLOAD_KEY must be.*it is not valid base64/],
    [
      { SUBAGENTS_PAYLOAD_KEY: keyA, SUBAGENTS_PAYLOAD_KEY_ID: 'bad id,' },
      /SUBAGENTS_PAYLOAD_KEY_ID: key id "bad id,"/,
    ],
    [{ SUBAGENTS_PAYLOAD_OLD_KEYS: keyA }, /SUBAGENTS_PAYLOAD_OLD_KEYS entries must look like "id:base64key"/],
    [
      { SUBAGENTS_PAYLOAD_OLD_KEYS: `old:${randomBytes(31).toString('base64')}` },
      /SUBAGENTS_PAYLOAD_OLD_KEYS \(key "old"\) must be.*31 bytes/,
    ],
    [
      { SUBAGENTS_PAYLOAD_COMPRESSION_THRESHOLD: 'lots' },
      /SUBAGENTS_PAYLOAD_COMPRESSION_THRESHOLD must be a byte count/,
    ],
  ])('rejects bad settings at startup, naming the variable: %j', (env, message) => {
    expect(() => createDataConverter(env)).toThrow(PayloadKeyConfigError);
    expect(() => createDataConverter(env)).toThrow(message);
  });

  it('honours the compression threshold setting and describes itself', async () => {
    const off = createPayloadCodecs({ SUBAGENTS_PAYLOAD_COMPRESSION_THRESHOLD: 'off' });
    expect(text((await encode(off.codecs, [payloadOf(largeValue)]))[0]!.metadata![METADATA_ENCODING_KEY])).toBe(
      'json/plain',
    );
    expect(describePayloadCodecs(off.settings)).toBe('payloads: no compression, not encrypted');
    const low = createPayloadCodecs({ SUBAGENTS_PAYLOAD_COMPRESSION_THRESHOLD: '100', SUBAGENTS_PAYLOAD_KEY: keyA });
    expect(describePayloadCodecs(low.settings)).toBe('payloads: gzip > 100 bytes, AES-256-GCM key "default"');
    // Just over the threshold and compressible: compressed.
    const compressed = await new CompressionCodec({ thresholdBytes: 100 }).encode([payloadOf('a'.repeat(200))]);
    expect(text(compressed[0]!.metadata![METADATA_ENCODING_KEY])).toBe(gzipEncoding);
  });

  it('leaves a large payload that does not shrink uncompressed', async () => {
    const random = payloadOf(randomBytes(40 * 1024));
    const [encoded] = await new CompressionCodec().encode([random]);
    expect(encoded).toBe(random);
  });
});
