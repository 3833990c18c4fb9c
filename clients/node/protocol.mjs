// Packets and messages of docs/PROTOCOL.md §2 and §3, with the message types
// loaded at run time from the .proto by protobufjs.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

export const PROTOCOL_VERSION = 4;
export const MUX_GAME = 1;
export const Command = Object.freeze({ Connect: 1, ConnectAck: 2, Disconnect: 3, ConnectWithData: 4, Data: 5 });
export const HEADER_SIZE = 6;

// The message table of §3: id → [name, direction].
export const MESSAGES = new Map([
  [1, 'NetMessageLogin'], [2, 'NetMessageMoveTo'], [3, 'NetMessageStop'], [4, 'NetMessageFire'],
  [5, 'NetMessagePing'], [6, 'NetMessageXDumpRequest'], [7, 'NetMessageLiveEditRequest'],
  [8, 'NetMessageDebugCommand'], [9, 'NetMessageResyncRequest'],
  [64, 'NetMessageLoginResult'], [65, 'NetMessageRegionChange'], [66, 'NetMessageServerFrame'],
  [67, 'NetMessageEntityCreate'], [68, 'NetMessageEntityDestroy'], [69, 'NetMessageLocomotionStateUpdate'],
  [70, 'NetMessagePowerResult'], [71, 'NetMessagePong'], [72, 'NetMessageXDumpResponse'],
  [73, 'NetMessageLiveEditResponse'], [74, 'NetMessageDebugDraw'], [75, 'NetMessageError'],
  [76, 'NetMessageServerFrameStats'], [77, 'NetMessageRegionList'],
]);
const ID_OF = new Map([...MESSAGES].map(([id, name]) => [name, id]));

const here = path.dirname(fileURLToPath(import.meta.url));
export const PROTO_FILE = path.resolve(here, '../../shared/protocol/pb/twinframe.proto');

// loadTypes loads the .proto with the field names as written (lower_snake_case).
export async function loadTypes(file = PROTO_FILE) {
  const root = new protobuf.Root();
  await root.load(file, { keepCase: true });
  const types = new Map();
  for (const [id, name] of MESSAGES) types.set(id, root.lookupType(`twinframe.v1.${name}`));
  return { root, types, enums: { ErrorCode: root.lookupEnum('twinframe.v1.ErrorCode'), Role: root.lookupEnum('twinframe.v1.Role') } };
}

// JSON form of a message as the vectors give it (§13): proto names, 64-bit
// integers as strings, bytes as base64, enums by name, defaults omitted.
export const OBJECT_OPTIONS = { longs: String, enums: String, bytes: String, defaults: false, arrays: false };

function uvarint(b, pos, what) {
  let x = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= b.length) throw new Error(`packet: ${what} runs past the end`);
    const c = b[pos++];
    x += (c & 0x7f) * mul;
    mul *= 128;
    if (c < 0x80) {
      if (x > 0xffffffff) throw new Error(`packet: ${what} ${x} too large`);
      return [x, pos];
    }
  }
  throw new Error(`packet: ${what} longer than 10 bytes`);
}

function appendVarint(out, v) {
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

// encodePacket frames [name, object] messages in one packet with command c.
export function encodePacket(types, msgs, c = Command.Data) {
  const body = [];
  for (const [name, obj] of msgs) {
    const id = ID_OF.get(name);
    const T = types.get(id);
    const m = T.fromObject(obj); // enums by name or number
    const err = T.verify(m);
    if (err) throw new Error(`${name}: ${err}`);
    const payload = T.encode(m).finish();
    appendVarint(body, id);
    appendVarint(body, payload.length);
    for (const x of payload) body.push(x);
  }
  const n = body.length;
  return Uint8Array.from([MUX_GAME & 0xff, MUX_GAME >> 8, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, c, ...body]);
}

// decodePacket checks the header (§2) and returns it and the messages, each
// {id, name, payload, message} with the payload decoded by its type.
export function decodePacket(types, bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (b.length < HEADER_SIZE) throw new Error(`packet: ${b.length} bytes, shorter than a header`);
  const mux = b[0] | b[1] << 8;
  const size = b[2] | b[3] << 8 | b[4] << 16;
  const command = b[5];
  if (mux !== MUX_GAME) throw new Error(`packet: mux id ${mux}`);
  if (command < 1 || command > 5) throw new Error(`packet: command ${command}`);
  if (size !== b.length - HEADER_SIZE) throw new Error(`packet: header says ${size} body bytes, got ${b.length - HEADER_SIZE}`);
  if (size !== 0 && command !== Command.Data && command !== Command.ConnectWithData) {
    throw new Error(`packet: command ${command} with a body`);
  }
  const messages = [];
  let pos = HEADER_SIZE;
  while (pos < b.length) {
    let id;
    let len;
    [id, pos] = uvarint(b, pos, 'message id');
    [len, pos] = uvarint(b, pos, 'message length');
    if (len > b.length - pos) throw new Error(`packet: message ${id} length ${len} > remaining ${b.length - pos}`);
    const name = MESSAGES.get(id);
    if (!name) throw new Error(`packet: unknown message id ${id}`);
    const payload = b.subarray(pos, pos + len);
    pos += len;
    messages.push({ id, name, payload, message: types.get(id).decode(payload) });
  }
  return { mux, size, command, messages };
}
