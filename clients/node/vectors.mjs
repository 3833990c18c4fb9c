// Checks the test vectors of docs/PROTOCOL.md §13 with this client's decoders.

import fs from 'node:fs';
import path from 'node:path';
import {
  Fields, Reader, replication, readEntityCreate, readLocomotionUpdate, readPowerResult, readSavedAvatar,
} from './archive.mjs';
import { decodePacket, OBJECT_OPTIONS } from './protocol.mjs';
import { Walker } from './walk.mjs';

// same compares a decoded value with its expected JSON. Numbers compare after
// rounding to float32 (raw floats are written as their shortest decimal);
// integers and fixed-point values are exact either way.
export function same(got, want, at = '$') {
  if (typeof want === 'number' || typeof got === 'number') {
    if (typeof got === 'bigint' || typeof want === 'bigint') return String(got) === String(want) ? null : `${at}: ${got} != ${want}`;
    return (got === want || Math.fround(got) === Math.fround(want)) ? null : `${at}: ${got} != ${want}`;
  }
  if (want === null || typeof want !== 'object') {
    return got === want ? null : `${at}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`;
  }
  if (got === null || typeof got !== 'object') return `${at}: ${JSON.stringify(got)} != an object`;
  if (Array.isArray(want) !== Array.isArray(got)) return `${at}: array and non-array`;
  const keys = new Set([...Object.keys(want), ...Object.keys(got)]);
  for (const k of keys) {
    const d = same(got[k], want[k], `${at}.${k}`);
    if (d) return d;
  }
  return null;
}

function hexBytes(text) {
  return Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
}

// primitive reads one value of the archive_primitives vector.
function primitive(r, op) {
  switch (op.op) {
    case 'uint16': return r.uint16();
    case 'uint32': return r.uint32();
    case 'uint64': return r.uint64();
    case 'count': return r.count();
    case 'int32': return r.int32();
    case 'int64': return r.int64();
    case 'float32': return r.float32();
    case 'fixed': return r.fixed(op.precision);
    case 'string': return r.string();
    case 'bool': return r.bool();
    case 'byte': return r.byte();
    default: throw new Error(`unknown op ${op.op}`);
  }
}

function checkPrimitives(bytes, want) {
  const { r, policy } = replication(bytes);
  if (policy !== want.policy) return `policy ${policy} != ${want.policy}`;
  for (const [i, op] of want.values.entries()) {
    const got = primitive(r, op);
    const exp = op.op === 'fixed' ? op.decoded : op.value;
    const d = same(got, exp, `values[${i}] (${op.op})`);
    if (d) return d;
  }
  r.done();
  return null;
}

export function decodeArchive(name, payload) {
  switch (name) {
    case 'NetMessageEntityCreate': return readEntityCreate(payload);
    case 'NetMessageLocomotionStateUpdate': return readLocomotionUpdate(payload);
    case 'NetMessagePowerResult': return readPowerResult(payload);
    default: return undefined;
  }
}

function checkPacket(types, bytes, want) {
  const p = decodePacket(types, bytes);
  for (const k of ['mux', 'size', 'command']) {
    if (p[k] !== want[k]) return `${k} ${p[k]} != ${want[k]}`;
  }
  if (p.messages.length !== want.messages.length) return `${p.messages.length} messages != ${want.messages.length}`;
  for (const [i, m] of p.messages.entries()) {
    const w = want.messages[i];
    if (m.id !== w.id || m.name !== w.name) return `messages[${i}]: ${m.id} ${m.name} != ${w.id} ${w.name}`;
    const obj = types.get(m.id).toObject(m.message, OBJECT_OPTIONS);
    let d = same(obj, w.message, `messages[${i}].message`);
    if (d) return d;
    const arch = decodeArchive(m.name, m.message.archive_data);
    d = same(arch, w.archive, `messages[${i}].archive`);
    if (d) return d;
  }
  return null;
}

const f32view = new DataView(new ArrayBuffer(4));

// bits is the float32 v's bit pattern as the vectors write it (0x and 8 hex digits).
function bits(v) {
  f32view.setFloat32(0, v);
  return `0x${f32view.getUint32(0).toString(16).padStart(8, '0')}`;
}

// checkWalk checks a walking vector (§6.1): the archive decodes to the JSON's,
// and walking its state one frame packet after another gives every listed
// frame's position, yaw, goal and flags, the floats bit for bit.
function checkWalk(bytes, want) {
  let state;
  let d;
  if (want.message === 'NetMessageEntityCreate') {
    const e = readEntityCreate(bytes);
    d = same(e, want.archive, 'archive');
    state = e.locomotion;
  } else if (want.message === 'NetMessageLocomotionStateUpdate') {
    state = readLocomotionUpdate(bytes);
    d = same(state, want.archive, 'archive');
  } else {
    return `message ${want.message} carries no locomotion state`;
  }
  if (d) return d;
  if (state.fields & Fields.Relative) return 'a relative update: a walk starts from an absolute state';
  if (!want.frames?.length) return 'no frames';
  const w = new Walker(state);
  for (const [i, fr] of want.frames.entries()) {
    w.advanceTo(fr.frame);
    const at = `frames[${i}] (frame ${fr.frame})`;
    for (const [k, got] of [['x', w.pos[0]], ['y', w.pos[1]], ['yaw', w.yaw]]) {
      const exp = fr[k];
      if (bits(exp.value) !== exp.bits) return `${at}.${k}: the vector's value ${exp.value} is not its bits ${exp.bits}`;
      if (bits(got) !== exp.bits) return `${at}.${k}: walked ${got} (${bits(got)}), want ${exp.value} (${exp.bits})`;
    }
    const flags = { goal: w.next, moving: w.moving, walking: w.moving && w.walking() };
    for (const [k, got] of Object.entries(flags)) {
      if (got !== fr[k]) return `${at}.${k}: walked ${got}, want ${fr[k]}`;
    }
  }
  return null;
}

// checkVectors checks every vector in dir; it returns [checked, failures].
export function checkVectors(types, dir) {
  const names = fs.readdirSync(dir).filter((f) => f.endsWith('.hex')).map((f) => f.slice(0, -4)).sort();
  const failures = [];
  for (const name of names) {
    const bytes = hexBytes(fs.readFileSync(path.join(dir, `${name}.hex`), 'utf8'));
    const want = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8'));
    let d;
    try {
      if (name === 'archive_primitives') d = checkPrimitives(bytes, want);
      else if (name.startsWith('entity_create_')) d = same(readEntityCreate(bytes), want);
      else if (name.startsWith('locomotion_update_')) d = same(readLocomotionUpdate(bytes), want);
      else if (name === 'power_result') d = same(readPowerResult(bytes), want);
      else if (name === 'saved_avatar') d = same(readSavedAvatar(bytes), want);
      else if (name.startsWith('packet_')) d = checkPacket(types, bytes, want);
      else if (name.startsWith('walk_')) d = checkWalk(bytes, want);
      else d = 'a vector this client does not know (docs/PROTOCOL.md §13 lists them)';
    } catch (e) {
      d = e.message;
    }
    if (d) failures.push(`${name}: ${d}`);
  }
  return [names.length, failures];
}

export { Reader };
