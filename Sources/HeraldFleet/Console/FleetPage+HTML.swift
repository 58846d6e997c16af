import HeraldWeb

extension FleetPage {
    static let html = WebPage.head(title: "Herald fleet", stylesheet: "/fleet.css", script: "/fleet.js") + #"""
<body>
<header>
  <h1>Herald fleet</h1>
  <p id="summary" aria-live="polite">Loading…</p>
  <p id="console"></p>
  <form id="token-form" hidden>
    <label for="token">Token (fleet.tokens)</label>
    <input id="token" type="password" autocomplete="current-password" required>
    <button type="submit">Use token</button>
  </form>
</header>
<main>
  <section aria-labelledby="alarms-title">
    <h2 id="alarms-title">Open alarms</h2>
    <table>
      <thead><tr><th>Hub</th><th>Alarm</th><th>Opened</th><th>Acknowledged</th></tr></thead>
      <tbody id="alarms"></tbody>
    </table>
    <p id="no-alarms" hidden>No open alarm.</p>
  </section>
  <section aria-labelledby="chart-title">
    <h2 id="chart-title">Announcements per hour, last 24 hours: <span id="chart-scope">the fleet</span></h2>
    <div id="chart" role="img" aria-label="Announcements by outcome per hour"></div>
    <div id="legend"></div>
  </section>
  <section class="wide" aria-labelledby="hubs-title">
    <h2 id="hubs-title">Hubs</h2>
    <form id="filters">
      <label for="group">Group</label> <select id="group"><option value="">all</option></select>
      <label for="state">State</label>
      <select id="state"><option value="">all</option><option>online</option><option>stale</option><option>offline</option></select>
      <label for="find">Find</label> <input id="find" type="search" placeholder="hub name">
    </form>
    <table>
      <thead><tr><th>Hub</th><th>State</th><th>Groups</th><th>Rooms muted or absent</th><th>Failed 24 h</th><th>Missed 24 h</th><th>Version</th><th>Alarms</th></tr></thead>
      <tbody id="hubs"></tbody>
    </table>
    <p><button id="previous" type="button" disabled>Previous</button> <span id="hubs-range"></span>
      <button id="next" type="button" disabled>Next</button></p>
  </section>
  <section class="wide" id="hub-section" hidden aria-labelledby="hub-title">
    <h2 id="hub-title">Hub</h2>
    <dl id="hub-facts"></dl>
    <h3>Recent events</h3>
    <table>
      <thead><tr><th>At</th><th>Outcome</th><th>Request</th><th>Error</th></tr></thead>
      <tbody id="events"></tbody>
    </table>
  </section>
  <section aria-labelledby="announce-title">
    <h2 id="announce-title">Test announcement</h2>
    <form id="announce">
      <label for="target-kind" class="visually-hidden">To a hub or a group</label>
      <select id="target-kind"><option value="hub">hub</option><option value="group">group</option></select>
      <label for="target" class="visually-hidden">Its name</label>
      <input id="target" required placeholder="name">
      <label for="text" class="visually-hidden">Sentence</label>
      <input id="text" required value="This is a test from the fleet console.">
      <button type="submit">Send</button>
    </form>
    <p id="announce-result" role="status"></p>
  </section>
</main>
</body>
</html>
"""#
}
