// Recordings as files (docs/RECORDING.md): save the current recording, open one with
// the file picker or by dropping it on the page. ?replay=URL is opened by the viewer
// itself at start. Uses window.twinframe.saveRecording and openRecording.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const tf = () => (window.twinframe && window.twinframe.ready ? window.twinframe : null);
  const say = (msg) => { $("rec-status").textContent = msg; };

  async function open(file) {
    const t = tf();
    if (!t) { say("the viewer is not ready yet"); return; }
    const bytes = new Uint8Array(await file.arrayBuffer());
    const err = await t.openRecording(bytes);
    say(err ? `${file.name}: ${err}` : `opened ${file.name}`);
  }

  $("b-save").onclick = () => {
    const t = tf();
    if (!t) return;
    const got = t.saveRecording();
    if (typeof got === "string") { say(got); return; }
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([got], { type: "application/octet-stream" }));
    a.download = `twinframe-${t.mode}-${t.frame}.rec`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    say(`saved ${a.download} (${got.length} bytes)`);
  };
  $("b-open").onclick = () => $("f-open").click();
  $("f-open").addEventListener("change", () => {
    const f = $("f-open").files[0];
    if (f) open(f);
    $("f-open").value = "";
  });
  document.addEventListener("dragover", (e) => { e.preventDefault(); });
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    const f = e.dataTransfer && e.dataTransfer.files[0];
    if (f) open(f);
  });

  // The violation the recording opened at.
  setInterval(() => {
    const t = tf();
    const r = t && t.mode === "recording" ? t.recording : null;
    const box = $("rec-violation");
    if (!r) { box.hidden = true; return; }
    box.hidden = false;
    const v = r.violation;
    box.textContent = `${r.kind} recording, frames ${r.first}–${r.last}, ${r.violations} violations` +
      (v ? `; first at frame ${v.frame}: ${v.check}${v.invariant ? " " + v.invariant : ""}: ${v.what} (entities ${v.entities.join(", ")})` : "");
  }, 500);
})();
