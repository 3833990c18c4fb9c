// Twinframe page glue: stream-load the wasm with a real progress bar, start it, and keep
// the HTML panel in sync with window.twinframe (which the wasm publishes).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const mode = params.get("mode") || "network";

  function showError(msg) {
    const e = $("error");
    e.hidden = false;
    e.textContent = msg;
    $("conn").textContent = "error";
    $("conn").className = "badge off";
  }
  // The wasm calls this when it cannot start (for example: no server, or a mode not built).
  window.twinframeError = showError;

  // Milliseconds since navigation at each loading step, for tests and the curious.
  const timings = window.twinframeTimings = {};
  const mark = (name) => { timings[name] = Math.round(performance.now()); };

  function fmtBytes(n) { return (n / (1 << 20)).toFixed(1) + " MB"; }

  // The wasm comes brotli-encoded: decoded by the browser when it offers br (Chromium
  // does on loopback and HTTPS origins), or else, as the request offers, by the vendored
  // decoder here (X-Page-Encoding: br), which is loaded only then.
  async function fetchWasm(url) {
    const res = await fetch(url, { headers: { "X-Page-Decodes": "br" } });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${(await res.text()).trim()}`);
    const pageDecodes = res.headers.get("X-Page-Encoding") === "br";
    const decoder = pageDecodes ? import("./brotli/decode.min.js") : null;
    // With Content-Encoding the body arrives decompressed, so count against the raw size;
    // a body the page decodes arrives as sent, so count against its Content-Length.
    const total = (!pageDecodes && Number(res.headers.get("X-Uncompressed-Length"))) ||
      (res.headers.get("Content-Encoding") ? 0 : Number(res.headers.get("Content-Length"))) || 0;
    const reader = res.body.getReader();
    const chunks = [];
    let got = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      got += value.length;
      if (total) $("progress").value = got / total;
      $("progress-text").textContent = total ? `${fmtBytes(got)} of ${fmtBytes(total)}` : fmtBytes(got);
    }
    const bytes = new Uint8Array(got);
    let off = 0;
    for (const c of chunks) { bytes.set(c, off); off += c.length; }
    if (!pageDecodes) return bytes;
    mark("downloaded");
    $("progress-text").textContent = `decoding ${fmtBytes(got)}…`;
    const { BrotliDecode } = await decoder;
    return BrotliDecode(new Int8Array(bytes.buffer));
  }

  async function start() {
    if (typeof Go === "undefined") throw new Error("wasm_exec.js did not load: run `make wasm`");
    mark("start");
    const bytes = await fetchWasm("viewer.wasm");
    mark("fetched");
    $("progress-text").textContent = "starting…";
    const go = new Go();
    const { instance } = await WebAssembly.instantiate(bytes, go.importObject);
    mark("instantiated");
    $("loading").hidden = true;
    go.run(instance).then(() => showError("the viewer exited"));
  }

  // The network sliders, each with the window.twinframe field of the condition in force
  // (however it was set: a slider or setNetwork) and how it shows.
  const netSliders = {
    "n-latency": { key: "netLatency", slider: (v) => v, text: (v) => `${Math.round(v)} ms` },
    "n-jitter": { key: "netJitter", slider: (v) => v, text: (v) => `${Math.round(v)} ms` },
    "n-bandwidth": { key: "netBandwidth", slider: (v) => v / 1024, text: (v) => v ? `${(v / 1024).toFixed(1)} kB/s` : "∞" },
    "n-loss": { key: "netLoss", slider: (v) => v, text: (v) => `${+v.toFixed(2)} %` },
  };
  function showNet(tf) {
    for (const [id, s] of Object.entries(netSliders)) {
      const input = $(id), v = tf[s.key] || 0;
      if (document.activeElement !== input) input.value = s.slider(v);
      input.parentElement.querySelector("output").textContent = s.text(v);
    }
  }

  // Panel.
  let built = false;
  function buildOverlays(tf) {
    const box = $("overlays");
    for (const name of tf.overlayNames) {
      const label = document.createElement("label");
      const cb = document.createElement("input");
      cb.type = "checkbox";
      cb.id = "ov-" + name;
      cb.dataset.overlay = name;
      cb.addEventListener("change", () => tf.setOverlay(name, cb.checked));
      label.append(cb, " " + name);
      box.append(label);
    }
    $("b-pause").onclick = () => tf.pause();
    $("b-step").onclick = () => tf.step();
    $("b-back").onclick = () => tf.seek(Math.max(tf.frame - 1, 0));
    // The scrub bar replays the recording: the sandbox's inputs (the simulation is
    // deterministic) or, connected, the stream received from the server.
    $("scrub").addEventListener("input", () => tf.seek(+$("scrub").value));
    $("b-resume").onclick = () => tf.resume();
    $("b-follow").onclick = () => tf.follow(!tf.following);
    for (const id of Object.keys(netSliders)) {
      const input = $(id);
      input.disabled = tf.mode !== "network";
      input.addEventListener("input", () => {
        const r = tf.setNetwork({ latency: +$("n-latency").value, jitter: +$("n-jitter").value,
          bandwidth: +$("n-bandwidth").value * 1024, loss: +$("n-loss").value });
        $("n-hint").textContent = r || "";
      });
    }
    if (tf.mode !== "network") $("n-hint").textContent = "sandbox: no network to shape";
    built = true;
  }

  let lastLog = "";
  function refresh() {
    const tf = window.twinframe;
    if (!tf || !tf.ready) return;
    if (!timings.ready) mark("ready");
    if (!built) buildOverlays(tf);
    $("conn").textContent = tf.connected ? (tf.mode === "local" ? "sandbox" : "connected") : "disconnected";
    $("conn").className = "badge " + (tf.connected ? "on" : "off");
    $("s-mode").textContent = tf.mode + (tf.replaying ? " (replay)" : tf.paused ? " (paused)" : "");
    $("s-frame").textContent = tf.frame;
    $("s-server").textContent = tf.serverFrame;
    $("s-entities").textContent = tf.entities;
    $("s-avatar").textContent = tf.avatarId ? `${tf.avatarId} at (${tf.avatar[0].toFixed(1)}, ${tf.avatar[1].toFixed(1)})` : "–";
    $("s-region").textContent = (tf.region || "–") + (tf.regionNode ? ` on node ${tf.regionNode}` : "");
    $("s-drift").textContent = tf.drift.toFixed(3) + " m";
    $("s-fps").textContent = tf.fps.toFixed(0);
    $("s-loop").textContent = tf.mode === "network" && tf.serverTimedFrames > 0 ?
      `${tf.serverFrameMs.toFixed(2)} ms, late ${tf.serverLateMs.toFixed(2)} ms, ${tf.serverDropped} dropped` : "–";
    showNet(tf);
    const scrub = $("scrub");
    scrub.min = tf.recordedFrom || 0;
    scrub.max = tf.recorded;
    if (document.activeElement !== scrub) scrub.value = tf.frame;
    $("scrub-out").textContent = `${tf.frame} / ${tf.recorded}`;
    if (tf.error) showError(tf.error);
    const on = new Set(tf.overlays);
    for (const cb of document.querySelectorAll("#overlays input")) cb.checked = on.has(cb.dataset.overlay);
    const rows = tf.inspect();
    const body = document.createElement("tbody");
    for (const f of rows) {
      const tr = body.insertRow();
      tr.insertCell().textContent = f.name;
      tr.insertCell().textContent = f.value;
    }
    if (rows.length || $("inspector").tBodies[0].rows.length > 1) $("inspector").tBodies[0].replaceWith(body);
    const log = tf.log(60);
    const key = log.length ? log[log.length - 1].frame + log[log.length - 1].text + log.length : "";
    if (key !== lastLog) {
      lastLog = key;
      const ol = $("log");
      ol.replaceChildren(...log.slice().reverse().map((e) => {
        const li = document.createElement("li");
        li.textContent = `${e.frame} ${e.text}`;
        return li;
      }));
    }
  }
  setInterval(refresh, 250);

  $("s-mode").textContent = mode;
  start().catch((err) => { console.error("twinframe:", err); showError(String(err.message || err)); });
})();
