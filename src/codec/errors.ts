/** A payload codec setting in the environment is malformed; the message names the variable and the fix. */
export class PayloadKeyConfigError extends Error {
  override readonly name = 'PayloadKeyConfigError';
}

/** A payload was encrypted with a key id this process has no key for. */
export class UnknownPayloadKeyError extends Error {
  override readonly name = 'UnknownPayloadKeyError';

  constructor(readonly keyId: string) {
    super(
      `Payload was encrypted with key id "${keyId}", which this process does not have. ` +
        `Set SUBAGENTS_PAYLOAD_KEY (with SUBAGENTS_PAYLOAD_KEY_ID=${keyId}) or add "${keyId}:<base64 key>" to SUBAGENTS_PAYLOAD_OLD_KEYS.`,
    );
  }
}

/** An encrypted payload failed authentication (wrong key, or the bytes were altered) or is malformed. */
export class PayloadDecryptionError extends Error {
  override readonly name = 'PayloadDecryptionError';
}
