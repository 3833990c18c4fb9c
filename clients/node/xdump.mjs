// A reader of the xdump text a client receives (docs/PROTOCOL.md §14): the
// configuration files of a region change (the human dialect, `config NAME` …
// `/config`) and the answer to an xdump request (the machine dialect, `XDUMP NAME
// TIMESTAMP` … `/N`). Written from §14 only: the grammar of §14.1, the meta and
// symbol tables of §14.2 and §14.3, the fields of §14.4.
//
// A row is an object keyed by field name; an array field is an array; `d` values
// are Numbers (BigInt past 2^53), `g` values Numbers rounded to float32, `s`
// values strings or null, `c` values strings.

// A field spec is NAME:TYPE[LEN][>TABLE][!FLAG], as the tables of §14.4 list them.
const spec = (s) => s.split(' ').map((f) => {
  const m = /^([^:]+):([dgsc])(\d*)(?:>([^!]+))?(?:!(\w+))?$/.exec(f);
  return { name: m[1], type: m[2], len: Number(m[3] || 0), table: m[4] ?? null, flag: m[5] ?? null };
});

// §14.2, §14.3: the meta tables and the symbol tables (fields value, name).
const SYMBOL_FIELDS = 'value:d name:s';
export const SYMBOLS = {
  'meta-type': { uid: 2, syms: [[1, 'd'], [2, 'g'], [3, 's'], [4, 'c']] },
  'meta-flags': { uid: 3, syms: [[1, 'deity'], [8, 'bits'], [16, 'hidden']] },
  'polygon-kind': { uid: 10, syms: [[1, 'walkable'], [2, 'obstacle'], [3, 'hole'], [4, 'footprint'], [5, 'portal']] },
  'marker-kind': { uid: 11, syms: [[1, 'spawn'], [2, 'prop'], [3, 'blackout'], [4, 'hotspot'], [5, 'arrival']] },
  collision: { uid: 12, syms: [[0, 'none'], [1, 'blocking'], [2, 'overlapping']] },
  'proto-flags': { uid: 13, syms: [[1, 'player'], [2, 'npc'], [4, 'prop'], [8, 'static'], [16, 'wander']] },
  'entity-state': { uid: 14, syms: [[1, 'moving'], [2, 'colliding'], [4, 'overlapping'], [8, 'asleep'], [16, 'static']] },
  trigger: { uid: 15, syms: [[1, 'enter'], [2, 'leave']] },
  action: { uid: 16, syms: [[1, 'spawn'], [2, 'despawn'], [3, 'toggle-blackout']] },
};

// §14.4: the world tables. key: 'id', a list of key fields, or null; max: the row limit.
export const TABLES = {
  table: { uid: 0, key: 'id', fields: spec('uid:d>table name:s') },
  meta: { uid: 1, key: null, fields: spec('name:s type:d>meta-type flags:d>meta-flags!bits len:d table:d>table') },
  region: { uid: 20, key: 'id', max: 256, fields: spec('id:d>region name:s min:g2 max:g2') },
  cell: { uid: 21, key: 'id', max: 4096, fields: spec('id:d>cell region:d>region min:g2 size:g2 seed:d') },
  area: { uid: 22, key: 'id', max: 4096, fields: spec('id:d>area name:s region:d>region min:g2 max:g2') },
  polygon: { uid: 23, key: 'id', max: 65536, fields: spec('id:d>polygon name:s area:d>area kind:d>polygon-kind') },
  vertex: { uid: 24, key: ['polygon', 'seq'], max: 262144, fields: spec('polygon:d>polygon seq:d pos:g2') },
  marker: { uid: 25, key: 'id', max: 65536, fields: spec('id:d>marker area:d>area kind:d>marker-kind pos:g2 radius:g rot:d prop-set:d>prop-set') },
  prototype: { uid: 26, key: 'id', max: 4096, fields: spec('id:d>prototype name:s radius:g speed:g collision:d>collision flags:d>proto-flags!bits footprint:d>polygon') },
  'prop-set': { uid: 27, key: 'id', max: 4096, fields: spec('id:d>prop-set name:s proto:d4>prototype weight:d4') },
  population: { uid: 28, key: 'id', max: 4096, fields: spec('id:d>population area:d>area prototype:d>prototype density:g') },
  'hotspot-rule': { uid: 29, key: 'id', max: 4096, fields: spec('id:d>hotspot-rule hotspot:d>marker prototype:d>prototype on:d>trigger action:d>action spawn:d>prototype zone:d>marker') },
  power: { uid: 30, key: 'id', max: 256, fields: spec('id:d>power name:s cooldown:d') },
  transition: { uid: 31, key: 'id', max: 4096, fields: spec('id:d>transition name:s area:d>area polygon:d>polygon pos:g2 radius:g region:d>region marker:d>marker one-way:d') },
  entity: { uid: 40, key: 'id', fields: spec('id:d>entity prototype:d>prototype region:d>region pos:g2 yaw:g vel:g2 state:d>entity-state!bits goal:g2!hidden owner:d seed:d!deity timestamp:d') },
  lost: { uid: 41, key: null, fields: spec('id:d region:d>region timestamp:d') },
};
for (const [name, s] of Object.entries(SYMBOLS)) {
  TABLES[name] = { uid: s.uid, key: null, fields: spec(SYMBOL_FIELDS) };
}

// elems is the number of values a field takes in a record (§14.1).
const elems = (f) => (f.len > 0 && f.type !== 'c' ? f.len : 1);

export class XdumpError extends Error {
  constructor(file, line, col, msg) {
    super(`${file}:${line}${col ? `:${col}` : ''}: ${msg}`);
  }
}

const SPACE = new Set([' ', '\t', '\r']);
const isLetter = (c) => /^[A-Za-z_]$/.test(c);
const isIdent = (c) => /^[A-Za-z0-9_-]$/.test(c);

// Line is one line of input with a cursor.
class Line {
  constructor(file, no, text) {
    this.file = file;
    this.no = no;
    this.s = text;
    this.i = 0;
  }

  err(msg, at = this.i) { return new XdumpError(this.file, this.no, at + 1, msg); }

  skip() { while (this.i < this.s.length && SPACE.has(this.s[this.i])) this.i++; }

  // atEnd: only white space or a comment is left.
  atEnd() {
    this.skip();
    return this.i >= this.s.length || this.s[this.i] === '#';
  }

  // sep: a value ends at white space, '#' or the end of the line.
  sep() {
    const c = this.s[this.i];
    if (c !== undefined && !SPACE.has(c) && c !== '#') throw this.err('bad field separator');
  }

  // word: a run of bytes up to white space, '#' or the end.
  word() {
    this.skip();
    const start = this.i;
    while (this.i < this.s.length && !SPACE.has(this.s[this.i]) && this.s[this.i] !== '#') this.i++;
    return this.s.slice(start, this.i);
  }

  ident() {
    const start = this.i;
    while (this.i < this.s.length && isIdent(this.s[this.i])) this.i++;
    return this.s.slice(start, this.i);
  }
}

// Numbers (§14.1, NUMBER).
const D = '\\d(?:_?\\d)*';
const H = '[0-9a-fA-F](?:_?[0-9a-fA-F])*';
const DECIMAL = new RegExp(`^[+-]?(?:${D}(?:\\.(?:${D})?)?|\\.${D})(?:[eE][+-]?${D})?$`);
const HEX = new RegExp(`^([+-]?)0[xX]_?(${H})?(?:\\.(${H})?)?[pP]([+-]?${D})$`);
const SIGNED_INF = /^[+-](?:inf|infinity)$/i;
const INT = /^[+-]?\d+$/;
const MIN64 = -(2n ** 63n);
const MAX64 = 2n ** 63n - 1n;

function parseNumber(tok) {
  if (DECIMAL.test(tok)) return Number(tok.replaceAll('_', ''));
  const h = HEX.exec(tok);
  if (h && (h[2] || h[3])) {
    const int = (h[2] ?? '').replaceAll('_', '');
    const frac = (h[3] ?? '').replaceAll('_', '');
    const mant = Number(BigInt(`0x${int}${frac}`));
    const x = mant * 2 ** (Number(h[4].replaceAll('_', '')) - 4 * frac.length);
    return h[1] === '-' ? -x : x;
  }
  if (SIGNED_INF.test(tok)) return tok[0] === '-' ? -Infinity : Infinity;
  return null;
}

// toInt returns a whole number as a Number, or a BigInt past 2^53.
function toInt(big) {
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

// Reader reads xdump text. It holds the rows of the tables read so far, which the
// symbols of later config blocks name (§14.1, SYMBOL).
export class Reader {
  // deity: read dumps as a deity's (with the deity fields of §14.4).
  constructor({ deity = false } = {}) {
    this.deity = deity;
    this.rows = new Map(); // table name → rows, as the last block that gave it left them
  }

  // fields returns the fields of table name that a dump for this reader holds.
  fields(name, line) {
    const t = TABLES[name];
    if (!t) throw line.err(`unknown table '${name}'`, 0);
    return t.fields.filter((f) => this.deity || f.flag !== 'deity');
  }

  // read reads every table of text (file names it in errors) and returns them in
  // order: {name, meta, human, timestamp, rows, footer, line}. Config tables
  // replace the rows this reader holds for them; dumps do not.
  read(file, text) {
    const lines = text.split('\n').map((s, i) => new Line(file, i + 1, s));
    const out = [];
    let k = 0;
    const next = () => {
      while (k < lines.length && lines[k].atEnd()) k++;
      if (k >= lines.length) throw new XdumpError(file, lines.length, 0, 'unexpected end of input');
      return lines[k++];
    };
    for (;;) {
      while (k < lines.length && lines[k].atEnd()) k++;
      if (k >= lines.length) return out;
      const head = lines[k++];
      const w = head.word();
      if (w === 'XDUMP') out.push(this.machine(head, next));
      else if (w === 'config') out.push(this.config(head, next));
      else throw head.err('expected xdump header', 0);
    }
  }

  machine(head, next) {
    const ws = [];
    while (!head.atEnd()) ws.push(head.word());
    const meta = ws.length === 3 && ws[0] === 'meta';
    if (meta) ws.shift();
    if (ws.length !== 2 || !/^[+-]?\d+$/.test(ws[1])) throw head.err('malformed xdump header', 0);
    const [name, ts] = ws;
    const fields = this.fields(meta ? 'meta' : name, head);
    const cols = fields.flatMap((f) => Array.from({ length: elems(f) }, (_, e) => ({ f, e })));
    const rows = [];
    for (;;) {
      const l = next();
      l.skip();
      if (l.s[l.i] === '/') {
        l.i++;
        const n = l.ident();
        if (!/^\d+$/.test(n)) throw l.err('malformed table footer');
        if (!l.atEnd()) throw l.err('junk after table footer');
        if (Number(n) !== rows.length) throw l.err(`footer /${n}, but ${rows.length} records`, 0);
        return { name, meta, human: false, timestamp: toInt(BigInt(ts)), rows, footer: Number(n), line: head.no };
      }
      const row = newRow(fields);
      for (const c of cols) {
        if (l.atEnd()) throw l.err(`field '${label(c)}' missing`);
        setValue(row, c, this.value(l, c.f));
      }
      if (!l.atEnd()) throw l.err(`too many fields, expected only ${cols.length}`);
      rows.push(row);
    }
  }

  config(head, next) {
    const name = head.word();
    if (!name || !head.atEnd()) throw head.err('malformed config header', 0);
    const fields = this.fields(name, head);
    const given = new Map(); // "field/elem" → true, by earlier parts
    let rows = null;
    for (let part = 0; ; part++) {
      if (part > 0) {
        const h = next();
        if (h.word() !== 'config' || h.word() !== name || !h.atEnd()) throw h.err(`expected config ${name}`, 0);
      }
      const { cols, more } = this.columns(next(), fields, given);
      let n = 0;
      for (;;) {
        const l = next();
        l.skip();
        if (l.s[l.i] === '/') {
          l.i++;
          if (l.ident() !== 'config' || !l.atEnd()) throw l.err('malformed table footer');
          break;
        }
        if (part === 0) rows = rows ?? [];
        if (part === 0) rows.push(newRow(fields));
        else if (n >= rows.length) throw l.err("table's first part doesn't have this row", 0);
        const row = rows[n++];
        for (const c of cols) {
          if (l.atEnd()) throw l.err(`field '${label(c)}' missing`);
          const at = l.i;
          const v = this.value(l, c.f);
          if (given.has(key(c))) {
            if (!same(getValue(row, c), v)) throw l.err(`value must be ${getValue(row, c)}`, at);
          } else setValue(row, c, v);
        }
        if (!l.atEnd()) throw l.err(`too many fields, expected only ${cols.length}`);
      }
      rows = rows ?? [];
      if (part > 0 && n < rows.length) throw head.err("table's first part has more rows", 0);
      for (const c of cols) given.set(key(c), true);
      if (!more) break;
    }
    for (const f of fields) {
      for (let e = 0; e < elems(f); e++) {
        if (!given.has(key({ f, e }))) throw head.err(`header '${label({ f, e })}' missing`, 0);
      }
    }
    checkKey(name, rows, head);
    this.rows.set(name, rows);
    return { name, meta: false, human: true, timestamp: 0, rows, footer: null, line: head.no };
  }

  // columns reads a config column line (§14.1, columns).
  columns(l, fields, given) {
    const cols = [];
    const next = new Map(); // field → its next element in this part
    let more = false;
    while (!l.atEnd()) {
      if (l.s[l.i] === '.') {
        if (l.word() !== '...' || !l.atEnd()) throw l.err('junk in header');
        more = true;
        break;
      }
      const at = l.i;
      if (!isLetter(l.s[l.i])) throw l.err('junk in header');
      const n = l.ident();
      let idx = -1;
      if (l.s[l.i] === '(') {
        l.i++;
        l.skip();
        const d = l.ident();
        l.skip();
        if (!/^\d+$/.test(d) || l.s[l.i] !== ')') throw l.err(`malformed index of header '${n}'`);
        l.i++;
        idx = Number(d);
      }
      l.sep();
      const exact = fields.find((f) => f.name === n);
      const prefixed = fields.filter((f) => f.name.startsWith(n));
      const f = exact ?? (prefixed.length === 1 ? prefixed[0] : null);
      if (!f) throw l.err(`${prefixed.length ? 'ambiguous' : 'unknown'} header '${n}'`, at);
      const array = f.len > 0 && f.type !== 'c';
      if (!array && idx >= 0) throw l.err(`header '${f.name}' doesn't take an index`, at);
      if (array && idx < 0) throw l.err(`header '${f.name}' requires an index`, at);
      let want = next.get(f) ?? 0;
      if (!next.has(f) && idx > 0) {
        while (want < f.len && given.has(key({ f, e: want }))) want++; // continue earlier parts
      }
      if (idx < 0 ? next.has(f) : idx !== want || idx >= elems(f)) throw l.err(`unexpected header '${n}${idx >= 0 ? `(${idx})` : ''}'`, at);
      next.set(f, (idx < 0 ? 0 : idx) + 1);
      cols.push({ f, e: idx < 0 ? 0 : idx });
    }
    if (cols.length === 0) throw l.err('header fields expected', 0);
    return { cols, more };
  }

  // value reads one value of field f (§14.1, value).
  value(l, f) {
    const c = l.s[l.i];
    const at = l.i;
    if (c === '"') {
      const s = readString(l);
      l.sep();
      if (f.type !== 's' && f.type !== 'c') throw l.err(`field '${f.name}' doesn't take strings`, at);
      if (f.type === 'c' && Buffer.byteLength(s, 'utf8') > f.len) throw l.err(`field '${f.name}' takes at most ${f.len} bytes`, at);
      return s;
    }
    if (c === '(') {
      if (f.flag !== 'bits') throw l.err(`field '${f.name}' doesn't take symbol sets`, at);
      l.i++;
      let bits = 0;
      for (;;) {
        l.skip();
        if (l.s[l.i] === ')') break;
        if (l.i >= l.s.length || !isLetter(l.s[l.i])) throw l.err(`junk in symbol set of field '${f.name}'`);
        bits |= this.symbol(l, f, l.ident());
      }
      l.i++;
      l.sep();
      return bits;
    }
    if (isLetter(c)) {
      const w = l.ident();
      l.sep();
      if (w === 'nil') {
        if (f.type !== 's') throw l.err(`field '${f.name}' doesn't take nil`, at);
        return null;
      }
      if (f.type === 'g' && /^(inf|nan)$/i.test(w)) return /^inf$/i.test(w) ? Infinity : NaN;
      if (f.type === 'd' && f.table) return this.symbol(l, f, w, at);
      throw l.err(`field '${f.name}' doesn't take symbols`, at);
    }
    if (/^[0-9+\-.]$/.test(c ?? '')) {
      while (l.i < l.s.length && /^[A-Za-z0-9_.+-]$/.test(l.s[l.i])) l.i++;
      const tok = l.s.slice(at, l.i);
      l.sep();
      if (f.type === 's' || f.type === 'c') throw l.err(`field '${f.name}' doesn't take numbers`, at);
      if (f.type === 'd' && INT.test(tok)) {
        const v = BigInt(tok);
        if (v < MIN64 || v > MAX64) throw l.err(`field '${f.name}' can't hold ${tok}`, at);
        return toInt(v);
      }
      const x = parseNumber(tok);
      if (x === null) throw l.err(`malformed number in field '${f.name}'`, at);
      if (f.type === 'g') {
        const y = Math.fround(x);
        if (!Number.isFinite(y) && !SIGNED_INF.test(tok)) {
          throw l.err(`field '${f.name}' can't hold ${tok}`, at);
        }
        return y;
      }
      if (!Number.isInteger(x) || x < -(2 ** 63) || x >= 2 ** 63) throw l.err(`field '${f.name}' can't hold ${tok}`, at);
      return toInt(BigInt(x));
    }
    throw l.err(`junk in field '${f.name}'`);
  }

  // symbol resolves a symbol of field f (§14.1, SYMBOL).
  symbol(l, f, name, at = l.i) {
    let rows;
    if (SYMBOLS[f.table]) rows = SYMBOLS[f.table].syms.map(([value, n]) => ({ value, name: n }));
    else rows = this.rows.get(f.table) ?? [];
    const first = TABLES[f.table].fields[0];
    const val = (r, i) => (first.type === 'd' && first.len === 0 ? r[first.name] : i);
    const exact = rows.findIndex((r) => r.name === name);
    if (exact >= 0) return val(rows[exact], exact);
    const found = [];
    rows.forEach((r, i) => { if (typeof r.name === 'string' && r.name.startsWith(name)) found.push(i); });
    if (found.length !== 1) throw l.err(`${found.length ? 'ambiguous' : 'unknown'} ${f.name} symbol '${name}'`, at);
    return val(rows[found[0]], found[0]);
  }
}

// readString reads a "quoted" string with \ooo escapes (§14.1, STRING).
function readString(l) {
  const bytes = [];
  l.i++;
  for (;;) {
    if (l.i >= l.s.length) throw l.err('malformed string');
    const ch = l.s.charCodeAt(l.i);
    if (ch === 0x22) break;
    if (ch < 32 || ch > 126) throw l.err('malformed string');
    if (ch === 0x5c) {
      const o = l.s.slice(l.i + 1, l.i + 4);
      if (!/^[0-3][0-7][0-7]$/.test(o)) throw l.err('invalid escape sequence');
      bytes.push(parseInt(o, 8));
      l.i += 4;
      continue;
    }
    bytes.push(ch);
    l.i++;
  }
  l.i++;
  return Buffer.from(bytes).toString('utf8');
}

const key = (c) => `${c.f.name}/${c.e}`;
const label = (c) => (c.f.len > 0 && c.f.type !== 'c' ? `${c.f.name}(${c.e})` : c.f.name);

function newRow(fields) {
  const row = {};
  for (const f of fields) row[f.name] = f.len > 0 && f.type !== 'c' ? new Array(f.len).fill(0) : null;
  return row;
}

function setValue(row, c, v) {
  if (Array.isArray(row[c.f.name])) row[c.f.name][c.e] = v;
  else row[c.f.name] = v;
}

function getValue(row, c) {
  return Array.isArray(row[c.f.name]) ? row[c.f.name][c.e] : row[c.f.name];
}

const same = (a, b) => a === b || (Number.isNaN(a) && Number.isNaN(b));

// checkKey checks a config table's key order (§14.1, Keys).
function checkKey(name, rows, head) {
  const t = TABLES[name];
  if (!t.key) return;
  const keys = t.key === 'id' ? [t.fields[0].name] : t.key;
  rows.forEach((r, i) => {
    if (t.key === 'id' && t.max && (r.id < 0 || r.id >= t.max)) throw head.err(`row ${i}: id ${r.id} outside 0..${t.max - 1}`, 0);
    if (i === 0) return;
    const p = rows[i - 1];
    for (const k of keys) {
      if (r[k] > p[k]) return;
      if (r[k] < p[k]) break;
    }
    throw head.err(`row ${i}: key (${keys.map((k) => r[k])}) not above (${keys.map((k) => p[k])})`, 0);
  });
}

// readRegionChange reads the configuration files of a region change in the byte
// order of their names (§14): a Reader holding every table they give.
export function readRegionChange(files) {
  const r = new Reader();
  const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.name ?? ''), Buffer.from(b.name ?? '')));
  const read = [];
  for (const f of sorted) {
    for (const t of r.read(f.name ?? '', f.text ?? '')) read.push({ file: f.name, ...t });
  }
  return { reader: r, read };
}

// CASES are inputs of §14.1's corners and what they read as (null: an error);
// checkReader runs them. The rows a symbol names come from PRELUDE.
const PRELUDE = 'config region\nid name min(0) min(1) max(0) max(1)\n0 "downtown" 0 0 1 1\n1 "wilds" 2 0 3 1\n/config\n' +
  'config area\nid name region min(0) min(1) max(0) max(1)\n0 "streets" downtown 0 0 1 1\n/config\n';
const CASES = [
  ['XDUMP marker 7\r\n# c\r\n\r\n3 streets hot 0x1.8p3 1_000.5 +Infinity 3 -1 #x\r\n/1 # end\r\n',
    [{ id: 3, area: 0, kind: 4, pos: [12, 1000.5], radius: Infinity, rot: 3, 'prop-set': -1 }]],
  ['XDUMP prototype 0\n0 "a\\040\\303\\251" 0.5 -inf blocking (player npc) 1e0\n/1\n',
    [{ id: 0, name: 'a é', radius: 0.5, speed: -Infinity, collision: 1, flags: 3, footprint: 1 }]],
  ['config power\nid name ...\n1 "bolt"\n/config\nconfig power\nid co\n1 7\n/config\n', [{ id: 1, name: 'bolt', cooldown: 7 }]],
  ['XDUMP power 0\n1 "b" 2e0\n/1\n', [{ id: 1, name: 'b', cooldown: 2 }]],
  ['config area\nid name region min(0) min(1) max(0) max(1)\n9 "q" w 1 2 3 4\n/config\n',
    [{ id: 9, name: 'q', region: 1, min: [1, 2], max: [3, 4] }]],
  ['XDUMP region 0\n0 "x" 0 0 1e39 0\n/1\n', null], // too large for a float32
  ['XDUMP region 0\n0 "x" 0 0 1 0\n/2\n', null], // the footer counts 2 records
  ['XDUMP power 0\n1 "b" 1.5\n/1\n', null], // not a whole number
  ['XDUMP region 0\n0 "x" 0 0 nan infinity\n/1\n', null], // unsigned infinity
  ['XDUMP region 0\n0 x 0 0 0 0\n/1\n', null], // a symbol in a string field
];

// checkReader reads CASES and returns [cases, failures].
export function checkReader() {
  const failures = [];
  CASES.forEach(([text, want], i) => {
    const r = new Reader({ deity: true });
    r.read('prelude', PRELUDE);
    let got;
    try {
      got = r.read(`case${i}`, text).at(-1).rows;
    } catch (e) {
      got = null;
      if (want !== null) failures.push(`case ${i}: ${e.message}`);
    }
    const show = (v) => JSON.stringify(v, (_, x) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x));
    if (got !== null && show(got) !== show(want)) failures.push(`case ${i}: read ${show(got)}, want ${show(want)}`);
  });
  return [CASES.length, failures];
}
