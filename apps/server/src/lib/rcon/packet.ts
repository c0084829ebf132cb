// Source RCON packets (https://developer.valvesoftware.com/wiki/Source_RCON_Protocol), as Minecraft
// speaks them: little-endian int32 size, int32 id, int32 type, a NUL-terminated body and one more NUL.
// The size counts everything after itself, so an empty body gives size 10.

export const SERVERDATA_AUTH = 3;
export const SERVERDATA_AUTH_RESPONSE = 2;
export const SERVERDATA_EXECCOMMAND = 2;
export const SERVERDATA_RESPONSE_VALUE = 0;

/** Minecraft answers in bodies of 4096 characters (up to 3 bytes each); anything far larger is not RCON. */
export const MAX_PACKET_SIZE = 64 * 1024;
/**
 * Minecraft reads a request with one read into a 1460-byte buffer (PktUtils.MAX_PACKET_SIZE): the
 * body must fit with the 14 bytes around it.
 */
export const MAX_REQUEST_BODY = 1460 - 14;
/** Minecraft splits a long answer into parts of 4096 Java characters (UTF-16 code units, as JS strings count). */
export const ANSWER_PART_CHARS = 4096;
/** A Source server's packet size field is at most 4096, so its parts carry at most 4086 bytes. */
export const SOURCE_PART_BYTES = 4086;

export interface Packet {
  id: number;
  type: number;
  /** The body's bytes, without the terminating NULs: parts of one answer are joined before decoding. */
  body: Buffer;
}

export function encodePacket(id: number, type: number, body: string): Buffer {
  const payload = Buffer.from(body, 'utf8');
  const size = 4 + 4 + payload.length + 2;
  const buf = Buffer.alloc(4 + size);
  buf.writeInt32LE(size, 0);
  buf.writeInt32LE(id, 4);
  buf.writeInt32LE(type, 8);
  payload.copy(buf, 12);
  return buf;
}

export class RconProtocolError extends Error {}

/** Reassembles packets from a TCP stream, whatever the chunking. */
export class PacketReader {
  private buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Packet[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const packets: Packet[] = [];
    while (this.buffer.length >= 4) {
      const size = this.buffer.readInt32LE(0);
      if (size < 10 || size > MAX_PACKET_SIZE) throw new RconProtocolError(`некорректный размер пакета: ${size}`);
      if (this.buffer.length < 4 + size) break;
      const id = this.buffer.readInt32LE(4);
      const type = this.buffer.readInt32LE(8);
      let end = 4 + size - 2;
      // Some servers end the body with a single NUL; never let the terminators into the text.
      while (end > 12 && this.buffer[end - 1] === 0) end -= 1;
      packets.push({ id, type, body: Buffer.from(this.buffer.subarray(12, end)) });
      this.buffer = this.buffer.subarray(4 + size);
    }
    return packets;
  }
}
