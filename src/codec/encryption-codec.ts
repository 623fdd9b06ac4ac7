import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { PayloadDecryptionError, UnknownPayloadKeyError } from './errors';
import type { PayloadKeyRing } from './payload-keys';
import { metadataText, payloadFromBytes, payloadToBytes, utf8 } from './payload-proto';

/** Encoding of an encrypted payload; its data is `iv (12) ‖ ciphertext ‖ GCM tag (16)` of the original payload's protobuf bytes. */
export const encryptedEncoding = 'binary/encrypted';
/** Metadata key holding the id of the key a payload was encrypted with. */
export const encryptionKeyIdMetadata = 'encryption-key-id';

const ivBytes = 12;
const tagBytes = 16;

/** AES-256-GCM over whole payloads, fresh IV each; without a current key it only decrypts. */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keys: PayloadKeyRing) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const current = this.keys.current;
    if (!current) return payloads;
    return payloads.map((payload) => {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      const ciphertext = Buffer.concat([cipher.update(payloadToBytes(payload)), cipher.final()]);
      return {
        metadata: { [METADATA_ENCODING_KEY]: utf8(encryptedEncoding), [encryptionKeyIdMetadata]: utf8(current.id) },
        data: Buffer.concat([iv, ciphertext, cipher.getAuthTag()]),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) =>
      metadataText(payload, METADATA_ENCODING_KEY) === encryptedEncoding ? this.decrypt(payload) : payload,
    );
  }

  private decrypt(payload: Payload): Payload {
    const keyId = metadataText(payload, encryptionKeyIdMetadata);
    if (!keyId)
      throw new PayloadDecryptionError(
        `Encrypted payload has no "${encryptionKeyIdMetadata}" metadata; it cannot be decrypted.`,
      );
    const key = this.keys.all.get(keyId);
    if (!key) throw new UnknownPayloadKeyError(keyId);
    const data = payload.data ?? new Uint8Array();
    if (data.byteLength < ivBytes + tagBytes) {
      throw new PayloadDecryptionError(
        `Encrypted payload (key id "${keyId}") is ${data.byteLength} bytes, too short to be AES-GCM output.`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, ivBytes));
    decipher.setAuthTag(data.subarray(data.byteLength - tagBytes));
    try {
      return payloadFromBytes(
        Buffer.concat([decipher.update(data.subarray(ivBytes, data.byteLength - tagBytes)), decipher.final()]),
      );
    } catch {
      throw new PayloadDecryptionError(
        `Encrypted payload failed authentication with key id "${keyId}": the key is wrong or the payload was altered.`,
      );
    }
  }
}
