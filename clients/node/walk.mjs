// Walking a locomotion state (docs/PROTOCOL.md §6.1): how a client moves a held
// entity between its updates, step by step as the document gives it. Every
// operation is float32: Math.fround after each one (a sum or product of two
// float32 values computed in double and rounded once is the float32 result).

import { Fields } from './archive.mjs';

const f = Math.fround;

const FRAME_SECONDS = f(0.05);
const MAX_SPEED = 100;
const TOL = f(5 * f(0.002)); // 0.010000001
const PAST_EXIT = f(Math.PI + 0.25);
const TWO_PI = f(2 * Math.PI);
const MAX_WALK_FRAMES = 1200;

const sub = (a, b) => [f(a[0] - b[0]), f(a[1] - b[1])];
const add = (a, b) => [f(a[0] + b[0]), f(a[1] + b[1])];
const axpy = (p, d, t) => [f(p[0] + f(d[0] * t)), f(p[1] + f(d[1] * t))];
const dot = (a, b) => f(f(a[0] * b[0]) + f(a[1] * b[1]));
const cross = (a, b) => f(f(a[0] * b[1]) - f(a[1] * b[0]));
const lenSq = (v) => dot(v, v);
const len = (v) => f(Math.sqrt(v[0] * v[0] + v[1] * v[1]));
const dist = (a, b) => len(sub(a, b));

// unit: the vector over its double length, each component rounded once; [0,0], 0
// for a zero or non-finite vector.
function unit(v) {
  const l = Math.sqrt(v[0] * v[0] + v[1] * v[1]);
  if (!(l > 0) || l === Infinity) return [[0, 0], 0];
  return [[f(v[0] / l), f(v[1] / l)], f(l)];
}

export function atan2(y, x) {
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  if (ax === 0 && ay === 0) return 0;
  const a = f(Math.min(ax, ay) / Math.max(ax, ay));
  const s = f(a * a);
  let r = f(0.0028662257);
  for (const c of [-0.0161657367, 0.0429096138, -0.0752896400, 0.1065626393, -0.1420889944, 0.1999355085, -0.3333314528, 1]) {
    r = f(f(r * s) + f(c));
  }
  r = f(r * a);
  if (ay > ax) r = f(f(1.57079637) - r);
  if (x < 0) r = f(f(3.14159274) - r);
  if (y < 0) r = -r;
  return r;
}

export function sincos(x) {
  const h = f(x / 4);
  const h2 = f(h * h);
  let s = f(h2 * f(-1.0 / 39916800));
  s = f(f(h2 * f(s + f(1.0 / 362880))) - f(1.0 / 5040));
  s = f(f(h2 * s) + f(1.0 / 120));
  s = f(f(h2 * s) - f(1.0 / 6));
  s = f(f(h * f(h2 * s)) + h);
  let c = f(h2 * f(1.0 / 479001600));
  c = f(f(h2 * f(c - f(1.0 / 3628800))) + f(1.0 / 40320));
  c = f(f(h2 * c) - f(1.0 / 720));
  c = f(f(h2 * c) + f(1.0 / 24));
  c = f(f(h2 * c) - 0.5);
  c = f(f(h2 * c) + 1);
  for (let i = 0; i < 2; i++) [s, c] = [f(2 * f(s * c)), f(f(c * c) - f(s * s))];
  return [s, c];
}

// tangent from centre pa (signed radius ra) to centre pb (rb): [from, to, u] or null.
function tangent(pa, ra, pb, rb) {
  const [dh, l] = unit(sub(pb, pa));
  if (l === 0) return null;
  const alpha = f(f(rb - ra) / l);
  if (!(alpha >= -1 && alpha <= 1)) return null;
  const k = f(Math.sqrt(f(1 - f(alpha * alpha))));
  const perp = [-dh[1], dh[0]];
  const n = [f(f(alpha * dh[0]) + f(k * perp[0])), f(f(alpha * dh[1]) + f(k * perp[1]))];
  const u = [f(f(k * dh[0]) - f(alpha * perp[0])), f(f(k * dh[1]) - f(alpha * perp[1]))];
  return [axpy(pa, n, -ra), axpy(pb, n, -rb), u];
}

function arcAngle(c, p, q, side) {
  const w1 = sub(p, c);
  const w2 = sub(q, c);
  let s = cross(w1, w2);
  if (side === -1) s = -s;
  let a = atan2(s, dot(w1, w2));
  if (a < 0) a = f(a + TWO_PI);
  return a;
}

function rotateAbout(c, p, angle, r) {
  const [w, l] = unit(sub(p, c));
  if (l === 0) return p;
  const [s, k] = sincos(angle);
  const w2 = [f(f(w[0] * k) - f(w[1] * s)), f(f(w[0] * s) + f(w[1] * k))];
  return axpy(c, w2, r);
}

function arcOutward(step, r) {
  const [, c] = sincos(f(Math.min(f(step / r), 2) / 2));
  return f(1 / c);
}

// Walker walks one entity's locomotion state.
export class Walker {
  // state: a decoded locomotion state (archive.mjs), absolute.
  constructor(state) {
    this.frame = state.frame;
    this.moving = (state.fields & Fields.Moving) !== 0;
    this.pos = [f(state.position?.[0] ?? 0), f(state.position?.[1] ?? 0)];
    this.yaw = f(state.yaw ?? 0);
    this.speed = f(state.speed ?? 0);
    this.next = state.goal ?? 0;
    const path = state.path ?? [];
    this.path = path.map((nd) => [f(nd.x), f(nd.y)]);
    this.rho = null;
    if (path.some((nd) => nd.side !== 0)) {
      const ok = path[0].side === 0 && path[path.length - 1].side === 0 &&
        path.every((nd) => nd.side === 0 || (nd.radius > 0 && Number.isFinite(nd.radius)));
      if (ok) this.rho = path.map((nd) => f(nd.side * (nd.radius ?? 0)));
    }
  }

  rhoAt(i) { return this.rho && i < this.rho.length ? this.rho[i] : 0; }

  sideAt(i) { const r = this.rhoAt(i); return r > 0 ? 1 : r < 0 ? -1 : 0; }

  walking() {
    return this.next >= 0 && this.next < this.path.length && this.speed > 0 && Number.isFinite(this.speed);
  }

  // advanceTo walks the state to frame fr (§6.1: one step a frame while Moving).
  advanceTo(fr) {
    if (fr <= this.frame) return;
    if (this.moving && this.walking()) {
      this.walked = true;
      const n = Math.min(fr - this.frame, MAX_WALK_FRAMES);
      for (let i = 0; i < n; i++) if (!this.step()) break;
    }
    this.frame = fr;
  }

  // state returns st (the state the walker was made from, or merged since) with
  // the walk's frame, and its position, yaw and goal where the walk took them.
  state(st) {
    const out = { ...st, frame: this.frame };
    if (this.walked) {
      out.position = [this.pos[0], this.pos[1], st.position?.[2] ?? 0];
      out.yaw = this.yaw;
      out.goal = this.next;
    }
    return out;
  }

  step() {
    if (!this.walking()) return false;
    const from = this.pos;
    const step = f(Math.min(this.speed, MAX_SPEED) * FRAME_SECONDS);
    const [p, planNext] = this.advance(from, step);
    const motion = sub(p, from);
    this.pos = add(from, motion);
    this.next = this.passedCorners(planNext, this.pos);
    this.yaw = this.face(motion, step);
    return this.walking();
  }

  advance(p, step) {
    let [q, next] = this.walk(p, step);
    const m = sub(q, p);
    if (lenSq(m) > f(step * step)) q = axpy(p, m, f(step / len(m)));
    return [q, next];
  }

  walk(p, step) {
    let next = this.next;
    const path = this.path;
    const full = step;
    for (let guard = 3 * path.length + 3; step > 0 && next < path.length && guard > 0; guard--) {
      const c = path[next];
      const side = this.sideAt(next);
      const r = Math.abs(this.rhoAt(next));
      let to = c;
      let passes = true;
      if (side !== 0) {
        let outward = 2;
        const d = dist(p, c);
        if (d <= f(f(2 * r) + TOL)) outward = arcOutward(full, r);
        if (!(d > f(f(r * outward) + TOL))) {
          const [out, ang] = this.arcExit(next, p);
          const al = f(ang * r);
          if (al > step) return [rotateAbout(c, p, f(f(side * step) / r), f(r * outward)), next];
          step = f(step - al);
          p = out;
          next++;
          continue;
        }
        const t = tangent(p, 0, c, this.rhoAt(next));
        if (t) { to = t[1]; passes = false; }
      }
      const dv = sub(to, p);
      const dl = len(dv);
      if (dl > step) return [axpy(p, dv, f(step / dl)), next];
      p = to;
      step = f(step - dl);
      if (passes) next++;
      if (side === 0 && this.sharpTurn(next - 1)) break;
    }
    return [p, next];
  }

  arcExit(i, p) {
    if (i + 1 >= this.path.length) return [p, 0];
    const t = tangent(this.path[i], this.rhoAt(i), this.path[i + 1], this.rhoAt(i + 1));
    if (!t) return [p, 0];
    const ang = arcAngle(this.path[i], p, t[0], this.sideAt(i));
    if (ang > PAST_EXIT) return [p, 0];
    return [t[0], ang];
  }

  legInto(i) {
    const d = sub(this.path[i], this.path[i - 1]);
    if (this.sideAt(i - 1) !== 0 || this.sideAt(i) !== 0) {
      const t = tangent(this.path[i - 1], this.rhoAt(i - 1), this.path[i], this.rhoAt(i));
      if (t) return t[2];
    }
    return d;
  }

  sharpTurn(i) {
    if (i < 1 || i + 1 >= this.path.length) return false;
    const a = this.legInto(i);
    const b = this.legInto(i + 1);
    const d = dot(a, b);
    return d < 0 || f(d * d) < f(f(f(0.5) * lenSq(a)) * lenSq(b));
  }

  passedCorners(planNext, pos) {
    let next = this.next;
    while (next < planNext && next >= 1 && next < this.path.length) {
      let c = this.path[next];
      let dir = this.legInto(next);
      if (this.sideAt(next) !== 0 && next + 1 < this.path.length) {
        const t = tangent(c, this.rhoAt(next), this.path[next + 1], this.rhoAt(next + 1));
        if (t) { c = t[0]; dir = t[2]; }
      }
      if (dist(pos, c) > TOL && dot(sub(pos, c), dir) < 0) break;
      next++;
    }
    return next;
  }

  face(motion, step) {
    const m = Math.min(TOL, f(0.5 * step));
    if (lenSq(motion) < f(m * m)) return this.yaw;
    if (motion[0] === 0 && motion[1] === 0) return this.yaw;
    return atan2(motion[1], motion[0]);
  }
}
