extension FleetPage {
    /// Asks for what it shows: one page of hubs (100, filtered and counted by the console), then
    /// every 5 s only what changed since (`?since=`), reading the page again only when a change
    /// falls in it; the group list every minute. The same with 5,000 hubs or 100,000.
    static let script = #"""
"use strict";
const $ = (id) => document.getElementById(id);
const esc = (text) => String(text ?? "").replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
const when = (iso) => iso ? new Date(iso).toLocaleString() : "";
const colors = {played: "#2e7d32", failed: "#b00020", missed: "#e3a21a", interrupted: "#7b1fa2", partial: "#0277bd",
                dropped_stale: "#795548", coalesced: "#9e9e9e", duplicate: "#bdbdbd", late: "#f57c00"};
const colorOf = (outcome) => colors[outcome] || (outcome.startsWith("suppressed") ? "#607d8b" : "#5c6bc0");
const pageSize = 100;
let page = null, cursor = null, pages = [], selected = null, groupsAt = 0;

// The token (fleet.tokens), when the console wants one: kept for this tab only, sent in a header.
const token = () => sessionStorage.getItem("herald-fleet-token") || "";

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  if (token()) headers["Authorization"] = "Bearer " + token();
  const response = await fetch(path, Object.assign({}, options, {headers}));
  const body = await response.json().catch(() => ({}));
  if (response.status === 401 || response.status === 403) $("token-form").hidden = false;
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

// The filters as the API takes them; `state` only for a page (a change is a change in any state).
function filters(withState) {
  const query = new URLSearchParams();
  if ($("group").value) query.set("group", $("group").value);
  if (withState && $("state").value) query.set("state", $("state").value);
  if ($("find").value.trim()) query.set("q", $("find").value.trim());
  return query;
}

async function loadPage() {
  const query = filters(true);
  query.set("limit", pageSize);
  if (pages.length) query.set("after", pages[pages.length - 1]);
  page = await api("/v1/hubs?" + query);
  cursor = page.cursor;
  renderHubs();
}

// What changed since the last answer: the counts always; the page again only if a changed hub
// sorts into it (a hub that entered or left it, or one of its rows).
async function pollChanges() {
  const query = filters(false);
  query.set("since", cursor);
  const changes = await api("/v1/hubs?" + query);
  cursor = changes.cursor;
  page.counts = changes.counts;
  const first = pages.length ? pages[pages.length - 1] : "", last = page.next || "\uffff";
  if (changes.resync || changes.hubs.some((h) => h.hub > first && h.hub <= last)) await loadPage(); else renderSummary();
}

function renderSummary() {
  const c = page.counts, state = $("state").value;
  $("summary").textContent = `${c.total} hubs: ${c.online} online, ${c.stale} stale, ${c.offline} offline`;
  const matching = state ? c[state] : c.total, from = pages.length * pageSize;
  $("hubs-range").textContent = matching ? `${from + 1}–${from + page.hubs.length} of ${matching}` : "No hub matches.";
  $("previous").disabled = pages.length === 0;
  $("next").disabled = !page.next;
}

function renderHubs() {
  $("hubs").innerHTML = page.hubs.map((h) => {
    const rooms = h.rooms_muted.map((r) => r + " muted").concat(h.rooms_absent.map((r) => r + " absent")).join(", ");
    const since = h.state === "online" ? "" : " since " + when(h.since);
    return `<tr class="hub" data-hub="${esc(h.hub)}" tabindex="0"><td>${esc(h.hub)}</td><td class="state-${h.state}">${h.state}${esc(since)}</td>` +
      `<td>${esc(h.groups.join(", "))}</td><td>${esc(rooms)}</td><td class="count">${h.failed_24h}</td><td class="count">${h.missed_24h}</td>` +
      `<td>${esc(h.version)}</td><td class="count">${h.open_alarms || ""}</td></tr>`;
  }).join("");
  renderSummary();
}

async function renderGroups() {
  const groups = await api("/v1/groups");
  groupsAt = Date.now();
  const current = $("group").value;
  $("group").innerHTML = '<option value="">all</option>' + groups.map((g) =>
    `<option value="${esc(g.group)}" title="${g.hubs} hubs"${g.group === current ? " selected" : ""}>${esc(g.group)}</option>`).join("");
}

async function renderAlarms() {
  const alarms = await api("/v1/alarms?state=open");
  $("no-alarms").hidden = alarms.length > 0;
  $("alarms").innerHTML = alarms.map((a) => `<tr><td>${esc(a.hub)}</td><td><strong>${esc(a.kind)}</strong> ${esc(a.subject)}<br>${esc(a.detail)}</td>` +
    `<td>${esc(when(a.opened_at))}</td><td>${a.acknowledged_at ? esc(when(a.acknowledged_at)) + " by " + esc(a.acknowledged_by) :
    `<button data-ack="${a.id}">Acknowledge</button>`}</td></tr>`).join("");
}

async function renderChart() {
  const scope = selected ? "?hub=" + encodeURIComponent(selected) : ($("group").value ? "?group=" + encodeURIComponent($("group").value) : "");
  $("chart-scope").textContent = selected ? "hub " + selected : ($("group").value ? "group " + $("group").value : "the fleet");
  const chart = await api("/v1/chart" + scope);
  const start = new Date(chart.since).getTime(), hour = 3600 * 1000;
  const bars = Array.from({length: 24}, () => ({}));
  const outcomes = new Set();
  chart.hours.forEach((c) => {
    const i = Math.round((new Date(c.hour).getTime() - start) / hour);
    if (i >= 0 && i < 24) { bars[i][c.outcome] = c.count; outcomes.add(c.outcome); }
  });
  const order = [...outcomes].sort((a, b) => (a === "played" ? -1 : b === "played" ? 1 : a.localeCompare(b)));
  const top = Math.max(1, ...bars.map((b) => Object.values(b).reduce((s, n) => s + n, 0)));
  const width = 24 * 20, height = 160;
  let svg = `<svg viewBox="0 0 ${width} ${height + 20}" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">`;
  bars.forEach((bar, i) => {
    let y = height;
    order.forEach((outcome) => {
      const n = bar[outcome] || 0;
      if (!n) return;
      const h = (n / top) * (height - 16);  // the top 16 for the "max" label
      y -= h;
      svg += `<rect x="${i * 20 + 2}" y="${y}" width="16" height="${h}" fill="${colorOf(outcome)}"><title>${esc(outcome)}: ${n}</title></rect>`;
    });
    if (i % 3 === 0) svg += `<text x="${i * 20 + 2}" y="${height + 14}" font-size="10">${new Date(start + i * hour).getHours()}h</text>`;
  });
  svg += `<text x="${width - 2}" y="10" font-size="10" text-anchor="end">max ${top}/h</text></svg>`;
  $("chart").innerHTML = svg;
  $("legend").innerHTML = order.map((o) => `<span><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" rx="2" fill="${colorOf(o)}"/></svg> ${esc(o)}</span>`).join("");
}

async function renderHub() {
  if (!selected) { $("hub-section").hidden = true; return; }
  const detail = await api("/v1/hubs/" + encodeURIComponent(selected));
  const h = detail.hub, health = detail.health || {};
  $("hub-section").hidden = false;
  $("hub-title").textContent = "Hub " + h.hub;
  const facts = {State: h.state + (h.since ? " since " + when(h.since) : ""), Version: h.version, Groups: h.groups.join(", "),
    "Last heartbeat": when(h.last_heartbeat), Queue: health.queue, "Last played": when(health.last_played_at),
    Rooms: (health.rooms || []).map((r) => `${r.room}: ${r.present ? (r.muted ? "muted" : r.volume_percent + "%") : "no sink"}`).join("; "),
    "Waiting for acknowledgement": health.reminders ? health.reminders.waiting_ack : "", "Last error": h.last_error || ""};
  $("hub-facts").innerHTML = Object.entries(facts).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("");
  $("events").innerHTML = detail.events.map((e) => `<tr><td>${esc(when(e.at))}</td><td>${esc(e.outcome)}</td><td>${esc(e.request_id)}</td><td>${esc(e.error)}</td></tr>`).join("");
}

async function refresh() {
  try {
    await Promise.all([page ? pollChanges() : loadPage(), Date.now() - groupsAt > 60000 ? renderGroups() : null,
                       renderAlarms(), renderChart(), renderHub()]);
    const health = await api("/v1/health");
    $("console").textContent = `console ${health.console}: database ${health.database}, broker ${health.broker}`;
  } catch (error) {
    $("summary").textContent = "The console did not answer: " + error.message;
  }
}

// A filter changed: back to the first page (a short wait while typing a name).
let typing = null;
function filtered() {
  clearTimeout(typing);
  typing = setTimeout(() => { pages = []; loadPage().catch(() => {}); renderChart(); }, 200);
}

document.addEventListener("DOMContentLoaded", () => {
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem("herald-fleet-token", $("token").value);
    $("token-form").hidden = true;
    refresh();
  });
  ["group", "state", "find"].forEach((id) => $(id).addEventListener("input", filtered));
  $("next").addEventListener("click", () => { if (page.next) { pages.push(page.next); loadPage(); } });
  $("previous").addEventListener("click", () => { pages.pop(); loadPage(); });
  $("hubs").addEventListener("click", (event) => {
    const row = event.target.closest("tr.hub");
    if (row) { selected = row.dataset.hub; renderHub(); renderChart(); }
  });
  $("hubs").addEventListener("keydown", (event) => {
    const row = event.target.closest("tr.hub");
    if (row && event.key === "Enter") { selected = row.dataset.hub; renderHub(); renderChart(); }
  });
  $("alarms").addEventListener("click", async (event) => {
    const id = event.target.dataset.ack;
    if (!id) return;
    event.target.disabled = true;
    await api(`/v1/alarms/${id}/acknowledge`, {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"}).catch(() => {});
    renderAlarms();
  });
  $("announce").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {text: $("text").value};
    body[$("target-kind").value] = $("target").value.trim();
    try {
      const answer = await api("/v1/announce", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
      $("announce-result").textContent = `Published to ${answer.topic} as ${answer.request_id}.`;
    } catch (error) {
      $("announce-result").textContent = "Not sent: " + error.message;
    }
  });
  refresh();
  setInterval(refresh, 5000);
});
"""#
}
