import HeraldWeb

extension AdminPage {
    /// Every control has a label; sections are landmarks; the live parts are `aria-live`.
    static let html = WebPage.head(title: "Herald", stylesheet: "/admin.css", script: "/admin.js") + #"""
<body>
<header>
  <h1>Herald</h1>
  <p id="connection" role="status" aria-live="polite">connecting…</p>
  <form id="token-form" hidden>
    <label for="token">Admin token</label>
    <input id="token" type="password" autocomplete="current-password" required>
    <button type="submit">Use token</button>
  </form>
</header>
<main>
  <section aria-labelledby="sink-title">
    <h2 id="sink-title">Sink now</h2>
    <div id="sink" aria-live="polite"><p>…</p></div>
  </section>

  <section aria-labelledby="rooms-title" id="rooms-section" hidden>
    <h2 id="rooms-title">Rooms</h2>
    <ul id="rooms" aria-live="polite"></ul>
  </section>

  <section aria-labelledby="now-title">
    <h2 id="now-title">Playing and queued</h2>
    <div id="now" aria-live="polite"><p>…</p></div>
    <progress id="progress" max="100" value="0" aria-label="Progress of the announcement playing" hidden></progress>
    <div class="buttons">
      <button type="button" id="skip">Skip</button>
      <button type="button" id="pause-current">Pause</button>
      <button type="button" id="resume-current">Resume</button>
      <button type="button" id="queue-toggle">Hold the queue</button>
    </div>
  </section>

  <section aria-labelledby="say-title">
    <h2 id="say-title">Say something</h2>
    <button type="button" id="test-button">Test announcement</button>
    <form id="say-form">
      <label for="say-text">Sentence</label>
      <input id="say-text" maxlength="1000" placeholder="The shop closes in ten minutes">
      <label for="say-amount">or a payment amount</label>
      <input id="say-amount" inputmode="decimal" placeholder="25.30">
      <label for="say-priority">Priority</label>
      <select id="say-priority"><option>normal</option><option>high</option><option>critical</option><option>low</option></select>
      <label for="say-rooms" class="rooms-choice" hidden>Rooms (none chosen: the usual ones)</label>
      <select id="say-rooms" class="rooms-choice" multiple hidden></select>
      <button type="submit">Say it</button>
    </form>
    <p id="say-result" role="status" aria-live="polite"></p>
  </section>

  <section aria-labelledby="history-title">
    <h2 id="history-title">History</h2>
    <p id="today-total" aria-live="polite"></p>
    <form id="history-filters">
      <label for="filter-outcome">Outcome</label>
      <select id="filter-outcome"><option value="">any</option></select>
      <label for="filter-source">Source</label>
      <select id="filter-source"><option value="">any</option><option>api</option><option>push</option><option>cli</option><option>reminder</option><option>mqtt</option><option>button</option></select>
      <label for="filter-priority">Priority</label>
      <select id="filter-priority"><option value="">any</option><option>critical</option><option>high</option><option>normal</option><option>low</option></select>
      <label for="filter-text">Text</label>
      <input id="filter-text" type="search">
    </form>
    <table>
      <caption class="visually-hidden">Announcements, newest first</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Outcome</th><th scope="col">From</th><th scope="col">What</th><th scope="col">Onset</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody id="history"></tbody>
    </table>
  </section>

  <section aria-labelledby="reminders-title">
    <h2 id="reminders-title">Reminders</h2>
    <ul id="reminders"></ul>
    <form id="reminder-form">
      <label for="reminder-text">Reminder text</label>
      <input id="reminder-text" required maxlength="1000" placeholder="Time to take your medication">
      <label for="reminder-time">Daily at</label>
      <input id="reminder-time" type="time" required>
      <label for="reminder-repeat">Say again every (minutes, until acknowledged)</label>
      <input id="reminder-repeat" type="number" min="0" max="120" value="0">
      <button type="submit">Add reminder</button>
    </form>
    <p id="reminder-result" role="status" aria-live="polite"></p>
    <h3 id="calendars-title">Calendars</h3>
    <ul id="calendars" aria-labelledby="calendars-title"></ul>
    <h3 id="week-title">The last 7 days</h3>
    <table aria-labelledby="week-title">
      <thead><tr><th scope="col">Reminder</th><th scope="col">Due</th><th scope="col">On time</th><th scope="col">Late</th><th scope="col">Missed</th><th scope="col">Acknowledged</th><th scope="col">Median answer</th></tr></thead>
      <tbody id="week"></tbody>
    </table>
  </section>

  <section aria-labelledby="settings-title">
    <h2 id="settings-title">Settings in force</h2>
    <dl id="settings"></dl>
  </section>
</main>
</body>
</html>
"""#
}
