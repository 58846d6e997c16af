extension AdminPage {
    /// The page's behaviour: one event stream (`/v1/events`) for everything live, the JSON API
    /// for actions. The token, when the daemon wants one, goes in a header, never in a URL.
    static let script = #"""
"use strict";
const $ = (id) => document.getElementById(id);
let lastStatus = null;

function token() { return sessionStorage.getItem("herald-token") || ""; }

async function api(method, path, body) {
  const headers = {};
  if (token()) headers["Authorization"] = "Bearer " + token();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 401 || response.status === 403) { $("token-form").hidden = false; }
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
  if (!response.ok) {
    const message = json && json.error ? (json.error.field ? json.error.field + ": " : "") + json.error.message : "HTTP " + response.status;
    throw new Error(message);
  }
  return json;
}

function el(tag, text, attributes) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
  return node;
}

function button(label, name, action) {
  const node = el("button", label, { type: "button", "aria-label": name });
  node.addEventListener("click", async () => {
    node.disabled = true;
    try { await action(); } catch (error) { $("say-result").textContent = error.message; }
    node.disabled = false;
  });
  return node;
}

// The one live connection: server-sent events read through fetch, so a token can go in a header.
async function listen() {
  for (;;) {
    try {
      const headers = token() ? { Authorization: "Bearer " + token() } : {};
      const response = await fetch("/v1/events", { headers });
      if (response.status === 401 || response.status === 403) {
        $("token-form").hidden = false;
        $("connection").textContent = "this daemon wants an admin token";
        return;
      }
      $("connection").textContent = "live";
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n");
          if (data) showStatus(JSON.parse(data));
        }
      }
    } catch (error) {
      // The daemon restarting: say so, and connect again below.
    }
    $("connection").textContent = "reconnecting…";
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function showStatus(status) {
  lastStatus = status;
  $("connection").textContent = "live · herald " + status.version + (status.health === "ok" ? "" : " · " + status.health);
  showSink(status.sound, status.daemon);
  showRooms(status.sound.rooms || []);
  showNow(status.daemon);
  showSettings(status.config);
  // A failed refresh is shown by the next event; it must not become an unhandled rejection.
  refreshHistory().catch(() => {});
  refreshTotal().catch(() => {});
  refreshReminders().catch(() => {});
}

// Today's payments, per currency (GET /v1/payments/total): what the counter's `total` button says.
async function refreshTotal() {
  const totals = await api("GET", "/v1/payments/total");
  const text = totals.totals.length === 0 ? "No payments today."
    : "Payments today: " + totals.totals.map(t => t.count + ", total " + t.amount + " " + t.currency).join("; ");
  if ($("today-total").textContent !== text) $("today-total").textContent = text;
}

function showSink(sound, daemon) {
  const box = $("sink");
  box.replaceChildren();
  if (!sound.sink) {
    box.append(el("p", sound.server_error || sound.sink_error || daemon.sound_server, { class: "waiting" }));
    return;
  }
  const sink = sound.sink;
  box.append(el("p", sink.description + " (" + sink.name + "), " + sink.state));
  const mute = el("p", sink.muted ? "Muted" : "Not muted", { id: "sink-mute", class: sink.muted ? "muted" : "" });
  box.append(mute);
  const volumes = el("ul");
  sink.channels.forEach((channel, index) => {
    const percent = sink.volume_percent[index];
    const item = el("li", channel + " " + percent + "% ");
    const meter = el("span", null, { class: "meter", role: "meter", "aria-valuemin": "0", "aria-valuemax": "150",
                                     "aria-valuenow": String(percent), "aria-label": channel + " volume" });
    const fill = el("span");
    fill.style.width = Math.min(100, percent / 1.5) + "%";
    meter.append(fill);
    item.append(meter);
    volumes.append(item);
  });
  box.append(volumes);
  const others = sound.streams.filter((stream) => !stream.herald);
  box.append(el("p", others.length === 0 ? "No other program plays on it."
    : "Also playing: " + others.map((s) => (s.application || "stream " + s.index) + " " + s.volume_percent.join("/") + "%" + (s.muted ? " (muted)" : "")).join(", ")));
  box.append(el("p", "An announcement now would: " + sound.safeguard_would_do.join("; ")));
}

// Each room with its sink, mute and volume, or why it has none; the same rooms to choose from on "Say it".
function showRooms(rooms) {
  $("rooms-section").hidden = rooms.length === 0;
  document.querySelectorAll(".rooms-choice").forEach((node) => { node.hidden = rooms.length === 0; });
  const list = $("rooms");
  list.replaceChildren(...rooms.map((room) => {
    const state = room.sink
      ? room.sink + ", " + (room.muted ? "muted, " : "") + (room.volume_percent || []).join("/") + "%"
      : "no speaker: " + room.problem;
    // Its microphone: the level now and the gain an announcement made now would get.
    const noise = !room.noise ? ""
      : room.noise.problem ? "; noise: " + room.noise.problem
      : room.noise.floor_dbfs == null ? "; noise: listening"
      : "; noise " + room.noise.floor_dbfs + " dBFS, an announcement now +" + room.noise.gain_db + " dB";
    return el("li", room.room + ": " + state + (room.sink && room.problem ? " (" + room.problem + ")" : "") + noise,
              room.sink ? {} : { class: "waiting" });
  }));
  const choice = $("say-rooms");
  const names = rooms.map((room) => room.room);
  if ([...choice.options].map((option) => option.value).join() !== names.join()) {
    const chosen = new Set([...choice.selectedOptions].map((option) => option.value));
    choice.replaceChildren(...names.map((name) => {
      const option = el("option", name, { value: name });
      option.selected = chosen.has(name);
      return option;
    }));
  }
}

function showNow(daemon) {
  const box = $("now");
  box.replaceChildren();
  const depth = daemon.queue_depth || {};
  const waiting = Object.values(depth).reduce((a, b) => a + b, 0);
  const progress = $("progress");
  if (daemon.current) {
    box.append(el("p", "Playing: " + daemon.current.body + " (" + daemon.current.priority + ")", { id: "current" }));
    const total = daemon.current.duration_milliseconds;
    progress.hidden = !total;
    if (total) progress.value = Math.min(100, 100 * (daemon.current_elapsed_milliseconds || 0) / total);
  } else {
    box.append(el("p", "Nothing playing.", { id: "current" }));
    progress.hidden = true;
  }
  box.append(el("p", waiting + " waiting" + (daemon.paused ? " · the queue is held" : "") +
    (daemon.waiting_for ? " · waiting for " + daemon.waiting_for : "") + (daemon.deferred ? " · " + daemon.deferred + " held by quiet hours" : "")));
  $("queue-toggle").textContent = daemon.paused ? "Let the queue go on" : "Hold the queue";
}

function showSettings(config) {
  const list = $("settings");
  list.replaceChildren();
  const rows = [["Config", config.file || "built-in defaults"], ["Loaded", config.loaded_at], ["Sink", config.sink],
    ["Raise below", config.min_volume + " to " + config.target_volume + ", never above " + config.max_volume],
    ["Others ducked to", config.duck_level], ["Muted sink", config.mute],
    ["Quiet hours", (config.quiet_hours || []).length ? config.quiet_hours.join(", ") + " (target " + config.quiet_target_volume + ")" : "none"],
    ["Amounts in", (config.languages || []).map(l => l.lang + (l.source === "voice number rules" ? "#" : "") + (l.checked ? "" : "*")).join(", ") + " (* phrases machine-written, # numbers read by the voice)"]];
  for (const [name, value] of rows) { list.append(el("dt", name), el("dd", value)); }
}

let historyRequest = 0;
const shown = { history: "", reminders: "" };
async function refreshHistory() {
  const ticket = ++historyRequest;
  const outcome = $("filter-outcome").value;
  const rows = await api("GET", "/v1/announcements?limit=100" + (outcome ? "&outcome=" + encodeURIComponent(outcome) : ""));
  if (ticket !== historyRequest) return;
  const source = $("filter-source").value, priority = $("filter-priority").value;
  const text = $("filter-text").value.trim().toLowerCase();
  // Redrawn only when something shown changed: a button is not replaced under the pointer.
  const key = JSON.stringify([rows, source, priority, text]);
  if (key === shown.history) return;
  shown.history = key;
  const body = $("history");
  body.replaceChildren();
  for (const row of rows) {
    if (source && row.source !== source) continue;
    if (priority && row.priority !== priority) continue;
    if (text && !row.body.toLowerCase().includes(text)) continue;
    const line = el("tr", null, { "data-id": row.id });
    line.append(el("td", new Date(row.queued_at).toLocaleString()), el("td", row.outcome || "queued"),
      el("td", row.source + " / " + row.priority), whatCell(row),
      el("td", row.onset_latency_milliseconds == null ? "" : row.onset_latency_milliseconds + " ms"));
    const actions = el("td");
    actions.append(button("Replay", "Replay " + row.body, () => api("POST", "/v1/announcements/" + row.id + "/replay")));
    line.append(actions);
    body.append(line);
  }
}

// The row's text, and under it its player (AdminPage+Player) or why its audio is gone.
function whatCell(row) {
  const cell = el("td", row.body + (row.error ? " — " + row.error : ""));
  const audio = audioCell(row);
  if (audio) cell.append(audio);
  return cell;
}

async function refreshReminders() {
  let list;
  try { list = await api("GET", "/v1/reminders"); } catch (error) { $("reminders").replaceChildren(el("li", error.message)); return; }
  const key = JSON.stringify(list);
  if (key === shown.reminders) return;
  shown.reminders = key;
  const box = $("reminders");
  box.replaceChildren();
  if (list.length === 0) box.append(el("li", "No reminders."));
  for (const item of list) {
    const line = el("li", null, { "data-id": item.id });
    line.append(el("span", item.body + (item.next_due ? " · next " + new Date(item.next_due).toLocaleString() : "") + " "));
    if (item.waiting_since) {
      line.append(el("strong", "waiting for an answer since " + new Date(item.waiting_since).toLocaleTimeString() + " ", { class: "waiting" }));
      line.append(button("Acknowledge", "Acknowledge " + item.body, () => api("POST", "/v1/reminders/" + item.id + "/ack", { by: "admin page" })));
    }
    if (item.origin !== "config" && item.origin !== "calendar") line.append(button("Delete", "Delete " + item.body, () => api("DELETE", "/v1/reminders/" + item.id)));
    box.append(line);
  }
  refreshCalendars().catch(() => {});
}

// The calendars read into reminders, and the caregiver's week (GET /v1/reminders/report).
async function refreshCalendars() {
  const [calendars, report] = await Promise.all([api("GET", "/v1/calendars"), api("GET", "/v1/reminders/report?days=7")]);
  const box = $("calendars");
  box.replaceChildren();
  if (calendars.calendars.length === 0) box.append(el("li", "No calendars (calendars: in the config)."));
  for (const calendar of calendars.calendars) {
    const read = calendar.last_read ? "read " + new Date(calendar.last_read).toLocaleString() : "not read yet";
    const line = el("li", calendar.name + " · " + read + (calendar.problem ? " · problem: " + calendar.problem : ""));
    const next = el("ul");
    for (const firing of calendar.next) next.append(el("li", new Date(firing.at).toLocaleString() + " · " + firing.says));
    line.append(next);
    box.append(line);
  }
  const body = $("week");
  body.replaceChildren();
  for (const line of report.lines) {
    const median = line.median_seconds_to_acknowledge == null ? "" : Math.round(line.median_seconds_to_acknowledge / 60) + " min";
    const row = el("tr");
    for (const cell of [line.name + " · " + line.text, line.firings, line.on_time, line.late, line.missed, line.acknowledged, median]) row.append(el("td", String(cell)));
    body.append(row);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  for (const outcome of ["played", "interrupted", "suppressed_muted", "suppressed_quiet", "coalesced", "failed", "dropped_stale", "late", "missed"]) {
    $("filter-outcome").append(el("option", outcome));
  }
  $("history-filters").addEventListener("input", () => refreshHistory().catch(() => {}));
  $("history-filters").addEventListener("submit", (event) => event.preventDefault());
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem("herald-token", $("token").value);
    $("token-form").hidden = true;
    listen();
  });
  $("test-button").addEventListener("click", async () => {
    try { const row = await api("POST", "/v1/test"); $("say-result").textContent = "Queued: " + row.body; }
    catch (error) { $("say-result").textContent = error.message; }
  });
  $("say-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = $("say-text").value.trim(), amount = $("say-amount").value.trim();
    const body = amount ? { payment: { amount } } : { text };
    body.priority = $("say-priority").value;
    const rooms = [...$("say-rooms").selectedOptions].map((option) => option.value);
    if (rooms.length > 0) body.rooms = rooms;
    try { const row = await api("POST", "/v1/announcements", body); $("say-result").textContent = "Queued: " + row.body; }
    catch (error) { $("say-result").textContent = error.message; }
  });
  $("reminder-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { text: $("reminder-text").value, schedule: { daily: [$("reminder-time").value] } };
    const every = Number($("reminder-repeat").value);
    if (every > 0) body.repeat = { every: every + "m", times: 3 };
    try { await api("POST", "/v1/reminders", body); $("reminder-result").textContent = "Added."; refreshReminders(); }
    catch (error) { $("reminder-result").textContent = error.message; }
  });
  const act = (path) => api("POST", path).catch((error) => { $("say-result").textContent = error.message; });
  $("skip").addEventListener("click", () => act("/v1/current/skip"));
  $("pause-current").addEventListener("click", () => act("/v1/current/pause"));
  $("resume-current").addEventListener("click", () => act("/v1/current/resume"));
  $("queue-toggle").addEventListener("click", () => act(lastStatus && lastStatus.daemon.paused ? "/v1/queue/resume" : "/v1/queue/pause"));
  listen();
});
"""#
}
