#!/usr/bin/env node
// A Twinframe client written only from docs/PROTOCOL.md and the .proto: it checks
// the test vectors, is refused with a wrong protocol version, logs in, decodes
// every message and archive it receives while keeping the replica's rules, reads
// every configuration table of its region change (§14, xdump.mjs) and checks each
// against the server's xdump of it, pings,
// walks its avatar to a point and checks that it arrives, fires and follows the
// bolt to its end, asks for a resync, and leaves with a mux Disconnect. With
// --deity-token, a second session logs in as deity and walks its avatar while the
// first walks it between updates (§6.1) and checks each update against its walked
// copy; then the deity teleports the first session's avatar to another region and
// the client checks the region change in its frame packet (§6, §7).
//
//   node client.mjs --url ws://127.0.0.1:8080/ws [--vectors DIR] [--name NAME] [--timeout SECONDS] [--deity-token TOKEN]
//
// It exits 0 when every check passed, 1 otherwise (each failure on stderr).

import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { Fields, PROTO_PROJECTILE, Policy } from './archive.mjs';
import { Command, PROTOCOL_VERSION, decodePacket, encodePacket, loadTypes } from './protocol.mjs';
import { checkVectors, decodeArchive } from './vectors.mjs';
import { Walker } from './walk.mjs';
import { Reader, SYMBOLS, checkReader, readRegionChange } from './xdump.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function args(argv) {
  const o = { vectors: path.resolve(here, '../../shared/protocol/testdata/vectors'), name: 'nodeclient', timeout: 60, 'deity-token': '' };
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--?/, '');
    if (!(k in o) && k !== 'url') throw new Error(`unknown flag ${argv[i]}`);
    o[k] = argv[i + 1];
  }
  if (!o.url) throw new Error('--url ws://HOST:PORT/ws is required');
  o.timeout = Number(o.timeout);
  return o;
}

const num = (v) => (v !== null && typeof v === 'object' ? Number(v.toString()) : Number(v ?? 0));

// Session is one websocket with the replica's bookkeeping (§6).
class Session {
  constructor(types, enums, url) {
    this.types = types;
    this.enums = enums;
    this.url = url;
    this.packets = 0;
    this.counts = {};
    this.entities = new Map(); // id → {create, loco}
    this.errors = []; // NetMessageError objects (non-fatal ones arrive in frame packets)
    this.fatal = null;
    this.faults = []; // broken protocol rules
    this.frame = -1;
    this.ack = 0;
    this.seq = 0;
    this.pongs = [];
    this.destroyed = []; // {id, frame}
    this.powers = [];
    this.logins = []; // {result, region}
    this.region = null; // the region id of the last region change
    this.travels = []; // region changes in frame packets: {frame, change, held, destroys}
    this.regionLists = [];
    this.tables = null; // the last region change's tables, read (§14): {reader, read}
    this.dumps = new Map(); // request_id → NetMessageXDumpResponse
    this.walkChecks = []; // updates compared with the walked copy: {id, frame, frames, off, bound, stop}
    this.closed = null; // {code, reason}
    this.waiters = [];
  }

  open() {
    return new Promise((resolve, reject) => {
      this.ws = new WebSocket(this.url);
      this.ws.binaryType = 'nodebuffer';
      this.ws.on('open', resolve);
      this.ws.on('error', reject);
      this.ws.on('message', (data, isBinary) => {
        if (!isBinary) this.faults.push('a text websocket message');
        try {
          this.handle(new Uint8Array(data));
        } catch (e) {
          this.faults.push(`packet ${this.packets}: ${e.message}`);
        }
        this.wake();
      });
      this.ws.on('close', (code, reason) => {
        this.closed = { code, reason: reason.toString() };
        this.wake();
      });
    });
  }

  wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  // until waits for cond() to hold, failing after ms with what.
  async until(cond, ms, what) {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (this.faults.length > 0) throw new Error(`${what}: ${this.faults[0]}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  send(msgs, c = Command.Data) { this.ws.send(encodePacket(this.types, msgs, c)); }

  sendRaw(bytes) { this.ws.send(bytes); }

  input(name, fields) {
    this.seq++;
    this.send([[name, { input_seq: this.seq, client_frame: this.frame + 2, ...fields }]]);
    return this.seq;
  }

  handle(bytes) {
    this.packets++;
    const p = decodePacket(this.types, bytes);
    const ms = p.messages;
    if (p.command === Command.ConnectAck) return;
    for (const m of ms) {
      this.counts[m.name] = (this.counts[m.name] ?? 0) + 1;
    }
    const first = ms[0]?.name;
    if (first === 'NetMessageLoginResult') {
      // The login (or resync) answer: exactly a login result and a region change (§1, §9).
      if (ms.length !== 2 || ms[1].name !== 'NetMessageRegionChange') {
        this.faults.push(`login answer holds ${ms.map((m) => m.name).join(', ')}`);
        return;
      }
      this.checkTables(ms[1].message);
      this.readTables(ms[1].message);
      this.entities.clear();
      this.region = ms[1].message.region_id ?? 0;
      this.avatar = num(ms[0].message.player_entity_id);
      this.logins.push({ result: ms[0].message, region: ms[1].message });
      return;
    }
    if (first === 'NetMessageError' && ms.length === 1 && this.frame < 0) {
      this.fatal = ms[0].message;
      return;
    }
    if (first !== 'NetMessageServerFrame') {
      if (first === 'NetMessageError' && ms.length === 1) {
        this.fatal = ms[0].message; // a fatal error: alone, before the close (§10)
        return;
      }
      this.faults.push(`a packet that starts with ${first}`);
      return;
    }
    // §6: a packet that carries a region change counts in the new region's frames.
    const travel = ms.some((m) => m.name === 'NetMessageRegionChange');
    for (const m of ms) this.message(m, travel);
  }

  checkTables(rc) {
    // §5: SHA-256 over each file's varint name length, name, varint text length, text.
    const h = crypto.createHash('sha256');
    const varint = (n) => {
      const out = [];
      while (n >= 0x80) { out.push((n & 0x7f) | 0x80); n = Math.floor(n / 128); }
      out.push(n);
      return Buffer.from(out);
    };
    for (const f of rc.tables) {
      const name = Buffer.from(f.name ?? '', 'utf8');
      const text = Buffer.from(f.text ?? '', 'utf8');
      h.update(varint(name.length)).update(name).update(varint(text.length)).update(text);
    }
    if (!h.digest().equals(Buffer.from(rc.tables_hash))) this.faults.push('region change: tables_hash does not match its tables');
  }

  // readTables reads every table of a region change's files (§14).
  readTables(rc) {
    try {
      this.tables = readRegionChange(rc.tables ?? []);
    } catch (e) {
      this.faults.push(`region change tables: ${e.message}`);
    }
  }

  message(m, travel) {
    const msg = m.message;
    switch (m.name) {
      case 'NetMessageServerFrame': {
        const f = num(msg.frame);
        if (!travel && (f < this.frame || (f === this.frame && !msg.paused))) this.faults.push(`frame ${f} after ${this.frame}`);
        this.frame = f;
        this.ack = num(msg.last_input_seq);
        this.destroysInFrame = 0;
        // §6.1: every held walker walks to this frame before the packet's updates.
        for (const e of this.entities.values()) e.walk?.advanceTo(f);
        break;
      }
      case 'NetMessageEntityCreate': {
        const e = decodeArchive(m.name, msg.archive_data);
        if (this.entities.has(e.id)) this.faults.push(`create of entity ${e.id}, which the client holds`);
        if (e.locomotion.fields & Fields.Relative) this.faults.push(`create of entity ${e.id} is relative`);
        const own = e.id === this.avatar;
        if (own !== ((e.policy & Policy.Owner) !== 0)) this.faults.push(`entity ${e.id}: policy ${e.policy}, own ${own}`);
        if ((e.prototype === PROTO_PROJECTILE) !== (e.projectile !== null)) this.faults.push(`entity ${e.id}: prototype ${e.prototype} vs projectile data`);
        if (e.region !== this.region) this.faults.push(`create of entity ${e.id} in region ${e.region}, the client is in ${this.region}`);
        const walk = own || e.projectile ? null : new Walker(e.locomotion);
        this.entities.set(e.id, { create: e, loco: e.locomotion, at: this.frame, walk, from: this.frame });
        break;
      }
      case 'NetMessageEntityDestroy': {
        const id = num(msg.entity_id);
        if (!this.entities.delete(id)) this.faults.push(`destroy of entity ${id}, which the client does not hold`);
        this.destroyed.push({ id, frame: this.frame });
        this.destroysInFrame++;
        break;
      }
      case 'NetMessageLocomotionStateUpdate': {
        const u = decodeArchive(m.name, msg.archive_data);
        const e = this.entities.get(u.entity);
        if (!e) {
          this.faults.push(`update of entity ${u.entity}, which the client does not hold`);
          break;
        }
        if (e.create.projectile) this.faults.push(`update of projectile ${u.entity}`);
        if (e.walk) {
          // §6.1: an update merges into the walked state, not the last one received.
          this.checkWalk(e, u);
          e.loco = e.walk.state(e.loco);
        }
        e.loco = apply(e.loco, u);
        e.at = this.frame;
        if (e.walk) {
          e.walk = new Walker(e.loco);
          e.from = e.loco.frame;
        }
        break;
      }
      case 'NetMessagePowerResult':
        this.powers.push(decodeArchive(m.name, msg.archive_data));
        break;
      case 'NetMessagePong':
        this.pongs.push(msg);
        break;
      case 'NetMessageError':
        this.errors.push(msg);
        break;
      case 'NetMessageRegionList':
        this.regionLists.push(msg);
        break;
      case 'NetMessageXDumpResponse':
        this.dumps.set(msg.request_id ?? 0, msg);
        break;
      case 'NetMessageRegionChange':
        // §6: the client drops every entity it holds (no destroys come for them);
        // the creates of the new region follow, its own avatar's among them.
        this.checkTables(msg);
        this.readTables(msg);
        this.travels.push({ frame: this.frame, change: msg, held: [...this.entities.keys()], destroys: this.destroysInFrame });
        this.entities.clear();
        this.region = msg.region_id ?? 0;
        break;
      default:
        break; // decoded by its type; nothing to keep
    }
  }

  // checkWalk compares the walked copy of a held entity with a correction of the
  // server (§6.1): a stop or one that carries no new path, for a copy that was
  // walking, may be off by the tolerance, a frame's step of each (the correction
  // comes the first frame the copy strays) and the wire's rounding, no more.
  checkWalk(e, u) {
    const w = e.walk;
    const stop = !(u.fields & Fields.Moving);
    if (!(u.fields & Fields.Relative) || !(u.fields & Fields.HasPosition) || ((u.fields & Fields.HasPath) && !stop) || !w.moving) return;
    w.advanceTo(u.frame);
    const off = dist(w.pos, u.position);
    const bound = WALK_TOLERANCE + 2 * w.speed * 0.05 + WIRE_ROUNDING;
    const c = { id: u.entity, frame: u.frame, frames: u.frame - e.from, off, bound, stop };
    this.walkChecks.push(c);
    if (off > bound) {
      this.faults.push(`entity ${u.entity} walked ${c.frames} frames to (${w.pos}); the server's update at frame ${u.frame} says (${u.position}): off by ${off.toFixed(3)} m > ${bound.toFixed(3)} m`);
    }
  }

  close() { this.ws.close(); }
}

// §6.1: the server corrects a walked copy that strays beyond 0.25 m; a correction
// carries the position rounded to the nearest 1/8 m (at most 1/16 m a coordinate).
const WALK_TOLERANCE = 0.25;
const WIRE_ROUNDING = Math.SQRT2 / 16 + 1e-3;

// apply merges a locomotion update into a state (§4.4).
function apply(prev, u) {
  if (!(u.fields & Fields.Relative)) return { ...u };
  const s = { ...prev, frame: u.frame, fields: (prev.fields & ~Fields.Moving) | (u.fields & Fields.Moving) };
  if (u.fields & Fields.HasPosition) s.position = u.position;
  if (u.fields & Fields.HasYaw) s.yaw = u.yaw;
  if (u.fields & Fields.HasSpeed) s.speed = u.speed;
  if (u.fields & Fields.HasPath) { s.goal = u.goal; s.path = u.path; }
  return s;
}

const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);

async function refusedVersion(types, enums, url) {
  const s = new Session(types, enums, url);
  await s.open();
  s.send([['NetMessageLogin', { name: 'oldclient', protocol_version: PROTOCOL_VERSION - 1 }]]);
  await s.until(() => s.closed, 10000, 'the refusal of an old protocol version');
  const code = enums.ErrorCode.values.ERROR_CODE_PROTOCOL_VERSION;
  if (!s.fatal || s.fatal.code !== code) throw new Error(`old version: got ${JSON.stringify(s.fatal)}, want error ${code}`);
  if (s.closed.code !== 4000 + code) throw new Error(`old version: close code ${s.closed.code}, want ${4000 + code}`);
  for (const v of [String(PROTOCOL_VERSION - 1), String(PROTOCOL_VERSION)]) {
    if (!s.fatal.text.includes(v)) throw new Error(`old version: the refusal "${s.fatal.text}" does not name version ${v}`);
  }
  if (s.counts.NetMessageLoginResult) throw new Error('old version: a login result came with the refusal');
  return `refused with ${s.closed.code}: ${s.fatal.text}`;
}

async function play(types, enums, o, log) {
  const s = new Session(types, enums, o.url);
  await s.open();
  const ms = o.timeout * 1000;
  // Connect first (§1 step 3): answered with a ConnectAck.
  let acked = false;
  const onAck = (data) => { if (data[5] === Command.ConnectAck && data.length === 6) acked = true; };
  s.ws.on('message', onAck);
  s.sendRaw(Uint8Array.from([1, 0, 0, 0, 0, Command.Connect]));
  await s.until(() => acked, ms, 'ConnectAck');
  s.ws.off('message', onAck);
  s.send([['NetMessageLogin', { name: o.name, protocol_version: PROTOCOL_VERSION }]]);
  await s.until(() => s.logins.length === 1, ms, 'the login answer');
  const lr = s.logins[0].result;
  if (lr.protocol_version !== PROTOCOL_VERSION) throw new Error(`server speaks ${lr.protocol_version}`);
  log(`logged in: avatar ${s.avatar}, region ${s.logins[0].region.region_id}, ${s.logins[0].region.tables.length} tables`);
  log(await tablesByDump(s, enums, ms));
  await s.until(() => s.entities.has(s.avatar), ms, 'the create of the avatar');
  const me = () => s.entities.get(s.avatar).loco;

  s.send([['NetMessagePing', { client_time_micros: 123456789, client_frame: s.frame }]]);
  const pingFrame = s.frame;
  await s.until(() => s.pongs.length > 0, ms, 'the pong');
  const pong = s.pongs[0];
  if (num(pong.client_time_micros) !== 123456789 || num(pong.client_frame) !== pingFrame || num(pong.server_frame) < pingFrame) {
    throw new Error(`pong ${JSON.stringify(pong)} does not echo the ping`);
  }

  // Walk: a few points around the spawn, until the server takes one (§7).
  const start = me().position;
  let target;
  let path;
  for (const [dx, dy] of [[4, 0], [0, 4], [-4, 0], [0, -4], [3, 3], [-3, -3]]) {
    const t = [start[0] + dx, start[1] + dy];
    const errs = s.errors.length;
    const seq = s.input('NetMessageMoveTo', { target: { x: t[0], y: t[1], z: 0 } });
    await s.until(() => s.ack >= seq, ms, `the ack of MoveTo ${seq}`);
    if (s.errors.slice(errs).some((e) => num(e.input_seq) === seq)) continue;
    await s.until(() => (me().fields & Fields.Moving) || dist(me().position, t) < 0.5, ms, 'the avatar to start walking');
    target = t;
    path = me().path;
    break;
  }
  if (!target) throw new Error('the server refused every MoveTo');
  await s.until(() => !(me().fields & Fields.Moving), ms, `the avatar to arrive at (${target})`);
  const end = me().position;
  const last = path?.length ? [path[path.length - 1].x, path[path.length - 1].y] : target;
  if (dist(end, last) > 0.2 || dist(last, target) > 1) {
    throw new Error(`the avatar stopped at (${end}), its path ended at (${last}), the target was (${target})`);
  }
  log(`walked from (${start}) to (${end}) along ${path?.length ?? 0} nodes; ack ${s.ack}`);

  // Fire: the bolt's create, then its end (§6, "Projectiles"). The same fire again in
  // the same frame meets the cooldown: refused by an error naming its input_seq (§7).
  const fseq = s.input('NetMessageFire', { target: { x: end[0] + 6, y: end[1] + 1, z: 0 } });
  const again = s.input('NetMessageFire', { target: { x: end[0] + 6, y: end[1] + 1, z: 0 } });
  let bolt;
  await s.until(() => {
    bolt = [...s.entities.values()].find((e) => e.create.projectile && e.create.projectile.source === s.avatar);
    return bolt || s.errors.some((e) => num(e.input_seq) === fseq);
  }, ms, 'the bolt');
  if (!bolt) throw new Error(`the fire was refused: ${s.errors.map((e) => e.text).join('; ')}`);
  const bid = bolt.create.id;
  const endFrame = bolt.create.projectile.end_frame;
  await s.until(() => s.destroyed.some((d) => d.id === bid), ms, `the end of bolt ${bid}`);
  const gone = s.destroyed.find((d) => d.id === bid);
  if (gone.frame > endFrame) throw new Error(`bolt ${bid} destroyed at frame ${gone.frame}, after its end frame ${endFrame}`);
  await s.until(() => s.ack >= again, ms, `the ack of Fire ${again}`);
  const refused = s.errors.find((e) => num(e.input_seq) === again);
  if (!refused || refused.code !== enums.ErrorCode.values.ERROR_CODE_BAD_PACKET) {
    throw new Error(`the second fire in one frame was not refused: errors ${JSON.stringify(s.errors)}`);
  }
  const hit = s.powers.find((p) => p.projectile === bid);
  log(`fired bolt ${bid} (end frame ${endFrame}); gone at frame ${gone.frame}` +
    (hit ? `, hit ${hit.target === 0 ? 'a wall' : `entity ${hit.target}`} at (${hit.point}) for ${hit.damage}` : ', hit nothing') +
    `; input ${again} refused: ${refused.text}`);

  // Resync (§9): a login answer again, then everything created again.
  const held = s.entities.size;
  s.send([['NetMessageResyncRequest', { reason: 'RESYNC_REASON_OTHER', detail: 'node client check', server_frame: s.frame }]]);
  await s.until(() => s.logins.length === 2, ms, 'the resync answer');
  await s.until(() => s.entities.has(s.avatar), ms, 'the avatar created again after the resync');
  log(`resync: held ${held} entities before, ${s.entities.size} after the first frame`);

  if (o['deity-token']) await deity(s, types, enums, o, log);

  // Leave (§1 step 7).
  s.sendRaw(Uint8Array.from([1, 0, 0, 0, 0, Command.Disconnect]));
  await s.until(() => s.closed, ms, 'the close after Disconnect');
  if (s.closed.code !== 1000) throw new Error(`Disconnect closed with ${s.closed.code} ${s.closed.reason}`);
  if (s.faults.length) throw new Error(s.faults.join('\n'));
  return `${s.packets} packets: ${Object.entries(s.counts).sort().map(([k, v]) => `${k.replace('NetMessage', '')} ${v}`).join(', ')}`;
}

// xdump asks the server for a dump (§12) and reads its answer (§14), asking
// again later while it is refused as rate limited.
async function xdump(s, enums, ms, command) {
  for (let tries = 0; ; tries++) {
    const id = (s.dumpSeq = (s.dumpSeq ?? 0) + 1);
    s.send([['NetMessageXDumpRequest', { request_id: id, command }]]);
    await s.until(() => s.dumps.has(id), ms, `the answer to ${command}`);
    const a = s.dumps.get(id);
    if (a.code === enums.ErrorCode.values.ERROR_CODE_RATE_LIMITED && tries < 20) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      continue;
    }
    if (a.error) throw new Error(`${command}: ${a.error}`);
    return new Reader().read(command, a.text ?? '');
  }
}

// tablesByDump checks the tables read from the login's region change (§14):
// each table the files give, dumped by the server (machine dialect, its row
// count checked against its footer), has the same rows, value for value.
async function tablesByDump(s, enums, ms) {
  const { reader, read } = s.tables;
  const names = [...reader.rows.keys()];
  let rows = 0;
  for (const name of names) {
    const want = reader.rows.get(name);
    const [d, ...more] = await xdump(s, enums, ms, `xdump ${name} *`);
    if (!d || more.length || d.name !== name || d.meta) throw new Error(`xdump ${name}: got ${d?.name} and ${more.length} more tables`);
    if (d.rows.length !== want.length) throw new Error(`table ${name}: ${want.length} rows in the region change, ${d.rows.length} in its dump`);
    d.rows.forEach((r, i) => {
      const a = JSON.stringify(want[i]);
      const b = JSON.stringify(r);
      if (a !== b) throw new Error(`table ${name} row ${i}: ${a} in the region change, ${b} in its dump`);
    });
    rows += want.length;
  }
  return `tables: ${read.length} config blocks in ${new Set(read.map((t) => t.file)).size} files, ${names.length} tables, ${rows} rows, each equal to its xdump`;
}

// deity logs a second session in as deity (§5) and checks, from the first
// session s, walking (§6.1) and a region change in play (§6, §7).
async function deity(s, types, enums, o, log) {
  const ms = o.timeout * 1000;
  const d = new Session(types, enums, o.url);
  await d.open();
  d.send([['NetMessageLogin', { name: `${o.name}-deity`, protocol_version: PROTOCOL_VERSION, deity_token: o['deity-token'] }]]);
  await d.until(() => d.logins.length === 1, ms, 'the deity login answer');
  if (d.logins[0].result.role !== enums.Role.values.ROLE_DEITY) throw new Error(`deity login: role ${d.logins[0].result.role}`);
  await d.until(() => d.entities.has(d.avatar), ms, 'the create of the deity avatar');

  // Walk the deity's avatar about 18 m, a walk of about 60 frames that the
  // server corrects at least once on the way (its 40-frame refresh) and at the
  // stop, while s holds it: s walks it between the updates and checks each.
  const me = () => d.entities.get(d.avatar).loco;
  await s.until(() => s.entities.has(d.avatar), ms, `the deity avatar ${d.avatar} in the view of ${o.name}`);
  const from = me().position;
  const mine = s.entities.get(s.avatar).loco.position;
  const targets = [];
  for (let k = 0; k < 16; k++) {
    const a = (k * Math.PI) / 8;
    targets.push([from[0] + 18 * Math.cos(a), from[1] + 18 * Math.sin(a)]);
  }
  targets.sort((a, b) => dist(a, mine) - dist(b, mine)); // stay in view
  let target;
  for (const t of targets) {
    const errs = d.errors.length;
    const seq = d.input('NetMessageMoveTo', { target: { x: t[0], y: t[1], z: 0 } });
    await d.until(() => d.ack >= seq, ms, `the ack of the deity's MoveTo ${seq}`);
    if (d.errors.slice(errs).some((e) => num(e.input_seq) === seq)) continue;
    target = t;
    break;
  }
  if (!target) throw new Error('the server refused every MoveTo of the deity');
  const checks = s.walkChecks.length;
  await s.until(() => s.walkChecks.slice(checks).some((c) => c.id === d.avatar && c.stop), ms, `the stop of the deity avatar, walked by ${o.name}`);
  const mineChecks = s.walkChecks.slice(checks).filter((c) => c.id === d.avatar);
  const longest = Math.max(...mineChecks.map((c) => c.frames));
  if (longest < 20) throw new Error(`the deity's walk was corrected after ${longest} frames at most: too short to check walking`);
  const all = s.walkChecks;
  log(`walked: the deity avatar from (${from}) to (${me().position}), corrected ${mineChecks.length} times ` +
    `(${mineChecks.map((c) => `${c.frames} frames, off ${c.off.toFixed(3)} m`).join('; ')}); ` +
    `${all.length} corrections of walked entities in all, the largest ${Math.max(...all.map((c) => c.off)).toFixed(3)} m off`);

  // Teleport s to an arrival marker of another region: a transition row of the
  // tables (§14.4) names one (its region and marker); the region list names the
  // regions as the tables do.
  d.send([['NetMessageDebugCommand', { op: 'DEBUG_OP_REGIONS' }]]);
  await d.until(() => d.counts.NetMessageRegionList, ms, 'the region list');
  const list = d.regionLists[0];
  const tables = s.tables.reader.rows;
  const row = tables.get('transition').find((t) => t.region !== s.region);
  const to = row && list.regions.find((r) => (r.region_id ?? 0) === row.region);
  if (!to) throw new Error(`no transition to another region than ${s.region} in the tables`);
  const region = tables.get('region').find((r) => r.id === row.region);
  if (region?.name !== to.name) throw new Error(`region ${row.region} is ${region?.name} in the tables, ${to.name} in the region list`);
  const marker = tables.get('marker').find((m) => m.id === row.marker);
  const area = marker && tables.get('area').find((a) => a.id === marker.area);
  const arrival = SYMBOLS['marker-kind'].syms.find(([, n]) => n === 'arrival')[0];
  if (marker?.kind !== arrival || area?.region !== row.region) {
    throw new Error(`transition ${row.name}: marker ${row.marker} is not an arrival marker of region ${row.region}`);
  }
  const before = [...s.entities.keys()];
  const travels = s.travels.length;
  const frame = s.frame;
  d.send([['NetMessageDebugCommand', { op: 'DEBUG_OP_TELEPORT', player_name: o.name, region_id: to.region_id ?? 0, marker_id: Number(row.marker) }]]);
  await s.until(() => s.travels.length > travels, ms, `the region change to ${to.name}`);
  const tr = s.travels[travels];
  if ((tr.change.region_id ?? 0) !== (to.region_id ?? 0)) throw new Error(`region change to ${tr.change.region_id}, want ${to.region_id}`);
  if (tr.destroys !== 0) throw new Error(`the packet of the region change destroyed ${tr.destroys} entities`);
  if (num(tr.change.server_frame) > tr.frame) throw new Error(`region change at frame ${tr.change.server_frame} in the packet of frame ${tr.frame}`);
  await s.until(() => s.entities.has(s.avatar), ms, 'the avatar created again in the new region');
  const again = s.entities.get(s.avatar).create;
  if (again.region !== tr.change.region_id) throw new Error(`the avatar created again in region ${again.region}`);
  const stale = [...s.entities.keys()].filter((id) => id !== s.avatar && before.includes(id));
  if (stale.length) throw new Error(`entities of the old region still held: ${stale}`);
  const after = s.frame;
  await s.until(() => s.frame >= after + 5, ms, 'frames after the region change');
  log(`teleported to ${to.name} (region ${to.region_id ?? 0}, marker ${row.marker}) at frame ${tr.frame} (region change frame ` +
    `${num(tr.change.server_frame)}, last frame before ${frame}): dropped ${tr.held.length} entities, avatar ${s.avatar} created again ` +
    `at (${again.locomotion.position}), ${s.entities.size} held, frames on to ${s.frame}`);
  d.close();
}

async function main() {
  const o = args(process.argv.slice(2));
  const log = (m) => console.log(`nodeclient: ${m}`);
  const { types, enums } = await loadTypes();
  let failed = false;
  const [n, failures] = checkVectors(types, o.vectors);
  for (const f of failures) console.error(`nodeclient: vector ${f}`);
  failed ||= failures.length > 0 || n === 0;
  log(`${n} test vectors, ${failures.length} failures`);
  const [nx, xfail] = checkReader();
  for (const f of xfail) console.error(`nodeclient: xdump reader ${f}`);
  failed ||= xfail.length > 0;
  log(`xdump reader: ${nx} cases of §14.1, ${xfail.length} failures`);
  for (const [what, run] of [['version', () => refusedVersion(types, enums, o.url)], ['play', () => play(types, enums, o, log)]]) {
    try {
      log(`${what}: ${await run()}`);
    } catch (e) {
      console.error(`nodeclient: ${what}: ${e.message}`);
      failed = true;
    }
  }
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(`nodeclient: ${e.stack ?? e}`);
  process.exit(1);
});
