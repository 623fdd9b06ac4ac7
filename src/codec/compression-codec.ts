import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { metadataText, payloadFromBytes, payloadToBytes, utf8 } from './payload-proto';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** Encoding of a gzip-compressed payload; its data is the gzip of the original payload's protobuf bytes. */
export const gzipEncoding = 'binary/gzip';

/** Payloads whose data is larger than this many bytes are compressed by default (16 KiB). */
export const defaultCompressionThreshold = 16 * 1024;

/** Options of {@link CompressionCodec}. */
export interface CompressionCodecOptions {
  /** Compress payloads whose data is larger than this; `Infinity` never compresses (decoding still works). */
  thresholdBytes?: number;
}

/** Gzips large payloads whole (metadata too, so decoding restores them exactly) when that makes them smaller. */
export class CompressionCodec implements PayloadCodec {
  readonly thresholdBytes: number;

  constructor(options: CompressionCodecOptions = {}) {
    this.thresholdBytes = options.thresholdBytes ?? defaultCompressionThreshold;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => this.encodeOne(payload)));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(
      payloads.map(async (payload) => {
        if (metadataText(payload, METADATA_ENCODING_KEY) !== gzipEncoding) return payload;
        return payloadFromBytes(await gunzipAsync(payload.data ?? new Uint8Array()));
      }),
    );
  }

  private async encodeOne(payload: Payload): Promise<Payload> {
    if ((payload.data?.byteLength ?? 0) <= this.thresholdBytes) return payload;
    const original = payloadToBytes(payload);
    const compressed = await gzipAsync(original);
    if (compressed.byteLength >= original.byteLength) return payload;
    return { metadata: { [METADATA_ENCODING_KEY]: utf8(gzipEncoding) }, data: compressed };
  }
}
