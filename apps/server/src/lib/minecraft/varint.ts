/** VarInt as the Minecraft protocol uses it: 7 bits per byte, low groups first, at most 5 bytes. */
export function encodeVarInt(value: number): Buffer {
  const bytes: number[] = [];
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (v !== 0);
  return Buffer.from(bytes);
}

/** The value and its length in bytes; null while the buffer does not hold the whole VarInt yet. */
export function decodeVarInt(buf: Buffer, offset = 0): { value: number; size: number } | null {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    if (offset + i >= buf.length) return null;
    const byte = buf[offset + i]!;
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { value: value | 0, size: i + 1 };
  }
  throw new ProtocolError('VarInt длиннее 5 байт');
}

export function encodeString(s: string): Buffer {
  const body = Buffer.from(s, 'utf8');
  return Buffer.concat([encodeVarInt(body.length), body]);
}

/** A length-prefixed packet: VarInt(length of id + payload), VarInt(id), payload. */
export function packet(id: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat([encodeVarInt(id), ...parts]);
  return Buffer.concat([encodeVarInt(body.length), body]);
}

/** The peer spoke something that is not the protocol. */
export class ProtocolError extends Error {}
