// Twinframe deity tools in the side panel: teleport, spawn, kill, edit a table row
// (the live-edit path), pause/step/resume the server. They drive window.twinframe's
// teleport, spawn, kill, editTable, tableText and serverPause/Step/Resume, which
// refuse without the deity token and return why; the server's answers arrive in
// twinframe.deityReplies / deityReply / deityReplyError. A refused table edit
// selects its line in the editor.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  let built = false;
  let seen = 0;

  // show puts a message under the tools; an error is red.
  function show(text, error) {
    const out = $("d-reply");
    out.textContent = text;
    out.className = "hint" + (error ? " error" : "");
  }

  // act runs a tool: "" is sent (the answer, if any, comes later), else the refusal.
  function act(what, r) {
    if (r) show(`${what}: refused: ${r}`, true);
    else show(`${what}: sent`, false);
  }

  // lineOf returns the line and column an edit's error names (zz-live-N.config:L[:C]).
  function lineOf(text) {
    const m = /zz-live-\d+\.config:(\d+)(?::(\d+))?:/.exec(text);
    return m ? { line: +m[1], col: m[2] ? +m[2] : 0 } : null;
  }

  // selectLine selects line (1-based) of the editor, so the error is at the cursor.
  function selectLine(line) {
    const ta = $("d-records");
    const lines = ta.value.split("\n");
    if (line < 1 || line > lines.length) return;
    let start = 0;
    for (let i = 0; i < line - 1; i++) start += lines[i].length + 1;
    ta.focus();
    ta.setSelectionRange(start, start + lines[line - 1].length);
    ta.scrollTop = Math.max(0, (line - 3) * (ta.scrollHeight / lines.length));
  }

  function build(tf) {
    for (const name of tf.editableTables) {
      const o = document.createElement("option");
      o.value = o.textContent = name;
      $("d-table").append(o);
    }
    $("d-table").value = "marker";
    $("d-pause").onclick = () => act("pause the server", tf.serverPause());
    $("d-step").onclick = () => act("step the server", tf.serverStep());
    $("d-resume").onclick = () => act("resume the server", tf.serverResume());
    $("d-kill").onclick = () => act(`kill ${tf.selected}`, tf.selected ? tf.kill(tf.selected) : "shift-click an entity first");
    $("d-teleport").onclick = () => act("teleport", tf.teleport($("d-player").value, +$("d-region").value, +$("d-marker").value));
    $("d-spawn").onclick = () => {
      // Empty coordinates: beside the avatar.
      const x = $("d-x").value === "" ? tf.avatar[0] + 2 : +$("d-x").value;
      const y = $("d-y").value === "" ? tf.avatar[1] : +$("d-y").value;
      act(`spawn prototype ${+$("d-proto").value}`, tf.spawn(+$("d-proto").value, x, y));
    };
    $("d-load").onclick = () => {
      const text = tf.tableText($("d-table").value);
      if (text == null) show("no such table, or no world yet", true);
      else { $("d-records").value = text; show(`table ${$("d-table").value} loaded: edit any row, then apply`, false); }
    };
    $("d-apply").onclick = () => act("table edit", tf.editTable($("d-records").value));
    built = true;
  }

  function refresh() {
    const tf = window.twinframe;
    if (!tf || !tf.ready || !tf.editableTables) return;
    if (!built) build(tf);
    if (!$("d-player").value && tf.mode === "network") $("d-player").value = new URLSearchParams(location.search).get("name") || "";
    $("d-state").textContent = tf.mode !== "network" ? "the sandbox has no server: the deity tools act on one" :
      tf.deity ? "deity: the tools act on the server" : "player: the deity tools need the deity token (#token=… in the address)";
    if (tf.deityReplies !== seen) {
      seen = tf.deityReplies;
      const at = tf.deityReplyError ? lineOf(tf.deityReply) : null;
      if (at) {
        show(`line ${at.line}${at.col ? ", column " + at.col : ""}: ${tf.deityReply}`, true);
        selectLine(at.line);
      } else {
        show(tf.deityReply, tf.deityReplyError);
      }
    }
  }
  setInterval(refresh, 250);
})();
