// Base64 to bytes without atob or Buffer: neither exists in the workflow sandbox.

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The bytes a standard (padded or unpadded) base64 string encodes; throws on any other character. */
export function decodeBase64(text: string): Uint8Array {
  const values = new Uint8Array(128).fill(255);
  for (let index = 0; index < alphabet.length; index++) values[alphabet.charCodeAt(index)] = index;
  let length = text.length;
  while (length > 0 && text[length - 1] === '=') length--;
  if (length % 4 === 1) throw new Error(`not base64: ${text.length} characters cannot encode whole bytes`);
  const bytes = new Uint8Array((length * 3) >> 2);
  const sextet = (index: number): number => {
    const code = text.charCodeAt(index);
    const value = code < 128 ? values[code]! : 255;
    if (value === 255) throw new Error(`not base64: character ${JSON.stringify(text[index])} at ${index}`);
    return value;
  };
  let out = 0;
  for (let index = 0; index < length; index += 4) {
    const a = sextet(index);
    const b = sextet(index + 1);
    const c = index + 2 < length ? sextet(index + 2) : 0;
    const d = index + 3 < length ? sextet(index + 3) : 0;
    bytes[out++] = (a << 2) | (b >> 4);
    if (out < bytes.length) bytes[out++] = ((b & 15) << 4) | (c >> 2);
    if (out < bytes.length) bytes[out++] = ((c & 3) << 6) | d;
  }
  return bytes;
}
