// The archive format of docs/PROTOCOL.md §4, read from the document alone:
// headers, primitives, phantom bools, and the payload layouts (§4.3 to §4.6).

export const Policy = Object.freeze({
  Proximity: 0x01, Party: 0x02, Owner: 0x04, Trader: 0x08,
  Discovery: 0x20, ClientOnly: 0x40, ClientIndependent: 0x80,
});

export const Fields = Object.freeze({
  HasPosition: 1, HasYaw: 2, HasSpeed: 4, HasPath: 8, Relative: 16, Moving: 32,
});

export const PROTO_PROJECTILE = -2;
const MAX_PATH_NODES = 256;

export class ArchiveError extends Error {
  constructor(offset, what, detail) {
    super(`archive: ${what} at offset ${offset}: ${detail}`);
    this.offset = offset;
  }
}

// num turns a BigInt into a Number when it is exact, so JSON comparisons work.
function num(b) {
  if (b > BigInt(Number.MAX_SAFE_INTEGER) || b < -BigInt(Number.MAX_SAFE_INTEGER)) {
    return b;
  }
  return Number(b);
}

// Reader reads one archive; every read checks bounds and throws ArchiveError.
export class Reader {
  constructor(bytes) {
    this.b = bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes);
    this.pos = 0;
    this.end = this.b.length;
    this.boolByte = 0;
    this.boolCount = 0;
    this.boolIndex = 0;
  }

  fail(what, detail, at = this.pos) { throw new ArchiveError(at, what, detail); }

  // uvarintBig reads a protobuf varint of at most 10 bytes as a BigInt.
  uvarintBig(what) {
    const start = this.pos;
    let x = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail(what, 'varint runs past the end', start);
      const c = this.b[this.pos++];
      if (i === 9 && c > 1) this.fail(what, 'varint exceeds 64 bits', start);
      x |= BigInt(c & 0x7f) << BigInt(7 * i);
      if (c < 0x80) return x;
    }
    return this.fail(what, 'varint longer than 10 bytes', start);
  }

  uvarintMax(what, max) {
    const start = this.pos;
    const v = this.uvarintBig(what);
    if (v > max) this.fail(what, `value ${v} exceeds ${max}`, start);
    return v;
  }

  uint16() { return Number(this.uvarintMax('uint16', 0xffffn)); }
  uint32() { return Number(this.uvarintMax('uint32', 0xffffffffn)); }
  uint64() { return num(this.uvarintBig('uint64')); }
  count() { return Number(this.uvarintMax('count', 0xffffffffn)); }

  int32() {
    const u = Number(this.uvarintMax('int32', 0xffffffffn));
    return (u >>> 1) ^ -(u & 1);
  }

  int64() {
    const u = this.uvarintBig('int64');
    return num((u >> 1n) ^ -(u & 1n));
  }

  float32() {
    const bits = Number(this.uvarintMax('float32', 0xffffffffn));
    const dv = new DataView(new ArrayBuffer(4));
    dv.setUint32(0, bits, true);
    return dv.getFloat32(0, true);
  }

  // fixed reads a fixed-point value of precision p: zig-zag int32 / 2^p.
  fixed(p) { return this.fixedInt() / (p < 0 ? 1 : 2 ** p); }

  fixedInt() { return this.int32(); }

  byte() {
    if (this.pos >= this.end) this.fail('byte', 'past the end');
    return this.b[this.pos++];
  }

  uint32le(what) {
    if (this.end - this.pos < 4) this.fail(what, 'fewer than 4 bytes left');
    const v = this.b[this.pos] | this.b[this.pos + 1] << 8 | this.b[this.pos + 2] << 16 | this.b[this.pos + 3] << 24;
    this.pos += 4;
    return v >>> 0;
  }

  string() {
    const start = this.pos;
    const n = this.count();
    if (n > this.end - this.pos) this.fail('string', `length ${n} > remaining ${this.end - this.pos}`, start);
    const bytes = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return this.fail('string', 'invalid UTF-8', start);
    }
  }

  // bool reads a phantom bool (§4.2): a new group byte when none is open, else
  // the next bit of the cached byte, consuming nothing.
  bool() {
    if (this.boolIndex === this.boolCount) {
      if (this.pos >= this.end) this.fail('bool', 'past the end');
      const c = this.b[this.pos];
      const n = c & 7;
      if (n === 0 || n > 5) this.fail('bool', `byte 0x${c.toString(16)} counts ${n} bools`);
      const used = (0xf8 << (5 - n)) & 0xf8;
      if (c & 0xf8 & ~used) this.fail('bool', `byte 0x${c.toString(16)} has value bits beyond its count`);
      this.pos++;
      this.boolByte = c;
      this.boolCount = n;
      this.boolIndex = 0;
    }
    const v = (this.boolByte & (0x80 >> this.boolIndex)) !== 0;
    this.boolIndex++;
    return v;
  }

  endBoolGroup() { this.boolCount = 0; this.boolIndex = 0; }

  done() {
    if (this.pos !== this.end) this.fail('end of archive', `${this.end - this.pos} bytes not read`);
  }
}

// replication opens a Replication archive: its policy header.
export function replication(bytes) {
  const r = new Reader(bytes);
  const policy = Number(r.uvarintMax('replication policy', 0xffffffffn));
  return { r, policy };
}

// readLocomotion reads a locomotion state (§4.4) at r's position.
export function readLocomotion(r) {
  const s = { entity: r.uint64(), frame: r.uint64(), fields: r.uint32() };
  let prev = [0, 0, 0];
  if (s.fields & Fields.HasPosition) {
    prev = [r.fixedInt(), r.fixedInt(), r.fixedInt()];
    s.position = prev.map((v) => v / 8);
  }
  if (s.fields & Fields.HasYaw) s.yaw = r.fixed(6);
  if (s.fields & Fields.HasSpeed) s.speed = r.fixed(3);
  if (s.fields & Fields.HasPath) {
    s.goal = r.uint32();
    const at = r.pos;
    const n = r.count();
    if (n > MAX_PATH_NODES) r.fail('path', `${n} nodes > ${MAX_PATH_NODES}`, at);
    s.path = [];
    for (let i = 0; i < n; i++) {
      // Integer sums in fixed(3) units; the differences wrap as int32.
      const cur = [0, 1, 2].map((k) => (prev[k] + r.int32()) | 0);
      const node = { x: cur[0] / 8, y: cur[1] / 8, z: cur[2] / 8, side: r.int32() };
      if (node.side !== 0 && node.side !== 1 && node.side !== -1) r.fail('path node', `side ${node.side}`);
      if (node.side !== 0) node.radius = r.fixed(6);
      s.path.push(node);
      prev = cur;
    }
    if (s.goal > n) r.fail('path', `goal ${s.goal} beyond ${n} nodes`);
  }
  return s;
}

// readEntityCreate reads NetMessageEntityCreate.archive_data (§4.3).
export function readEntityCreate(bytes) {
  const { r, policy } = replication(bytes);
  const e = {
    policy, id: r.uint64(), prototype: r.int32(), region: r.int32(), owner: r.int32(),
    locomotion: readLocomotion(r), projectile: null,
  };
  if (r.bool()) {
    e.projectile = { power: r.int32(), source: r.uint64(), dir: [r.float32(), r.float32()], end_frame: r.uint64() };
  }
  r.done();
  return e;
}

// readLocomotionUpdate reads NetMessageLocomotionStateUpdate.archive_data (§4.4).
export function readLocomotionUpdate(bytes) {
  const { r, policy } = replication(bytes);
  const s = { policy, ...readLocomotion(r) };
  r.done();
  return s;
}

// readPowerResult reads NetMessagePowerResult.archive_data (§4.5).
export function readPowerResult(bytes) {
  const { r, policy } = replication(bytes);
  const p = {
    policy, power: r.int32(), frame: r.uint64(), source: r.uint64(), projectile: r.uint64(), target: r.uint64(),
    point: [r.fixed(3), r.fixed(3)], normal: [r.fixed(6), r.fixed(6)], damage: r.int32(),
  };
  r.done();
  return p;
}

// readSavedAvatar reads a saved avatar (§4.6, a Database archive).
export function readSavedAvatar(bytes) {
  const r = new Reader(bytes);
  const size = r.uint32le('persistent size');
  if (size !== bytes.length) r.fail('persistent size', `header says ${size}, archive has ${bytes.length}`, 0);
  const s = { size, version: r.uint32(), build: r.uint32() };
  const objStart = r.pos;
  s.object_size = r.uint32le('object size');
  if (s.object_size < 4 || objStart + s.object_size > r.end) r.fail('object size', `${s.object_size}`, objStart);
  r.endBoolGroup();
  const pair = () => [r.float32(), r.float32()];
  Object.assign(s, { id: r.uint64(), prototype: r.int32(), region: r.int32(), owner: r.int32() });
  s.pos = pair();
  Object.assign(s, { yaw: r.float32(), radius: r.float32(), speed: r.float32() });
  Object.assign(s, { collision: r.uint32(), flags: r.uint32(), footprint: r.bool() });
  Object.assign(s, { seed: r.uint32(), population: r.int32() });
  Object.assign(s, { created_frame: r.uint64(), changed_frame: r.uint64(), command_frame: r.uint64(), wake_frame: r.uint64() });
  Object.assign(s, { stuck: r.uint16(), move_mode: r.uint32() });
  s.path = Array.from({ length: r.count() }, pair);
  s.arcs = Array.from({ length: r.count() }, () => ({ side: r.int32(), radius: r.float32() }));
  s.next = r.int32();
  Object.assign(s, { follow_target: r.uint64(), follow_range: r.float32(), follow_repath_frame: r.uint64() });
  Object.assign(s, { power: r.int32(), power_source: r.uint64() });
  s.power_dir = pair();
  s.power_end_frame = r.uint64();
  if (r.pos !== objStart + s.object_size) r.fail('object size', `object read ${r.pos - objStart} bytes, size says ${s.object_size}`);
  r.done();
  return s;
}
