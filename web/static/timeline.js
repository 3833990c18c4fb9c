// The event timeline panel: the rows of window.twinframe.timeline() (newest first),
// filtered by entity and kind; clicking a row seeks there, pauses and selects its
// entities (twinframe.selectRow); the picked contact's numbers below.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const fmt = (p) => `(${p[0].toFixed(2)}, ${p[1].toFixed(2)})`;
  let lastKey = "";
  let picked = -1;
  // While the pointer is over the rows they stay put, so a click lands on the row the
  // user aimed at (new rows come in at the top).
  let hover = false;
  $("timeline").addEventListener("mouseenter", () => { hover = true; });
  $("timeline").addEventListener("mouseleave", () => { hover = false; });

  function filter() {
    const f = { limit: 100, kinds: [] };
    const e = +$("tl-entity").value;
    if (e > 0) f.entity = e;
    const k = $("tl-kind").value;
    if (k) f.kinds.push(k);
    return f;
  }

  function describe(r) {
    if (r.kind === "collide") {
      const s = `at ${fmt(r.point)} n=${fmt(r.normal)}`;
      return r.repeat ? `${s} · ${r.repeat} frames in a row` : s;
    }
    return r.value;
  }

  function render(tf) {
    const rows = tf.timeline(filter());
    const key = rows.length + ":" + (rows.length ? rows[rows.length - 1].index : -1) + ":" + picked + ":" + JSON.stringify(filter());
    if (key !== lastKey && !(hover && lastKey !== "")) {
      lastKey = key;
      const body = document.createElement("tbody");
      for (const r of rows.slice().reverse()) {
        const tr = body.insertRow();
        tr.dataset.index = r.index;
        tr.dataset.frame = r.frame;
        tr.className = "tl-" + r.kind + (r.repeat ? " tl-repeated" : "") + (r.index === picked ? " tl-picked" : "");
        tr.title = `${r.origin} · click: seek to frame ${r.frame} and select`;
        for (const v of [r.frame, r.kind, r.a || "–", r.kind === "collide" && !r.b ? "wall" : (r.b || "–"), describe(r)]) {
          tr.insertCell().textContent = v;
        }
      }
      $("timeline").tBodies[0].replaceWith(body);
    }
    const sel = tf.selection();
    const body = document.createElement("tbody");
    for (const f of sel.contact) {
      const tr = body.insertRow();
      tr.insertCell().textContent = f.name;
      tr.insertCell().textContent = f.value;
    }
    if (sel.error) body.insertRow().insertCell().textContent = sel.error;
    $("contact").tBodies[0].replaceWith(body);
  }

  $("timeline").addEventListener("click", (ev) => {
    const tr = ev.target.closest("tr[data-index]");
    const tf = window.twinframe;
    if (!tr || !tf || !tf.ready) return;
    if (tf.selectRow(+tr.dataset.index)) picked = +tr.dataset.index;
    lastKey = "";
    render(tf);
  });

  for (const id of ["tl-entity", "tl-kind"]) {
    $(id).addEventListener("input", () => { lastKey = ""; const tf = window.twinframe; if (tf && tf.ready) render(tf); });
  }

  setInterval(() => {
    const tf = window.twinframe;
    if (tf && tf.ready && typeof tf.timeline === "function") render(tf);
  }, 250);
})();
