#!/usr/bin/python3
"""What a web page can do to a Herald daemon on loopback, tried in headless Chromium (Debian's
chromium, chromium-driver, python3-selenium). Run by Tests/IntegrationTests/BrowserAttackTests.swift:
  attack_page.py DAEMON_BASE   (http://127.0.0.1:PORT)
1. A page on another local origin (served here on another port) tries a no-cors fetch, a
   text/plain form, sendBeacon (an announcement, a reminder, a queue pause), reading the log,
   the event stream, and the admin page in an iframe.
2. The same script in a page whose name is rebound to 127.0.0.1 (DNS rebinding, simulated with
   --host-resolver-rules): same-origin with the daemon, it tries to read and to announce.
Prints `ok ...` per check; exits 1 with `FAIL ...` on the first failure. The caller checks that
nothing was said, queued, stored or paused.
"""
import http.server
import json
import socketserver
import sys
import threading
import time
from urllib.parse import urlparse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

daemon = sys.argv[1].rstrip("/")
daemon_port = urlparse(daemon).port


def fail(message):
    print("FAIL " + message, flush=True)
    sys.exit(1)


PAGE = """<!doctype html><html><body>
<form id="form" method="POST" enctype="text/plain" action="DAEMON/v1/announcements" target="sink">
<input name='{"payment":{"amount":"1000000.00"},"priority":"critical","pad":"' value='"}'></form>
<iframe name="sink"></iframe>
<iframe id="admin" src="DAEMON/"></iframe>
<script>
window.results = {};
async function attack() {
  const d = "DAEMON";
  const pay = JSON.stringify({payment: {amount: "1000000.00"}, priority: "critical"});
  try { await fetch(d + "/v1/announcements", {method: "POST", mode: "no-cors", body: pay}); results.nocors = "sent"; }
  catch (e) { results.nocors = "error " + e; }
  try { await fetch(d + "/v1/queue/pause", {method: "POST", mode: "no-cors"}); } catch (e) {}
  try { await fetch(d + "/v1/current/skip", {method: "POST", mode: "no-cors"}); } catch (e) {}
  results.beacons = [
    navigator.sendBeacon(d + "/v1/announcements", pay),
    navigator.sendBeacon(d + "/v1/queue/pause", "{}"),
    navigator.sendBeacon(d + "/v1/reminders", JSON.stringify({text: "payment received, one million dollars",
      at: "03:00", priority: "critical"})),
  ];
  document.getElementById("form").submit();
  try { const r = await fetch(d + "/v1/announcements"); results.read = "read " + (await r.text()).length; }
  catch (e) { results.read = "blocked"; }
  await new Promise(done => {
    const events = new EventSource(d + "/v1/events");
    events.addEventListener("status", () => { results.events = "received"; events.close(); done(); });
    events.onerror = () => { results.events = results.events || "error"; events.close(); done(); };
    setTimeout(done, 3000);
  });
  results.done = true;
}
attack();
</script></body></html>"""


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = PAGE.replace("DAEMON", daemon).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = socketserver.TCPServer(("127.0.0.1", 0), Page)
threading.Thread(target=server.serve_forever, daemon=True).start()
evil = "http://127.0.0.1:%d" % server.server_address[1]

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 "--host-resolver-rules=MAP rebound.test 127.0.0.1"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    # 1. Another local origin.
    driver.get(evil + "/")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not driver.execute_script("return window.results.done === true"):
        time.sleep(0.1)
    results = driver.execute_script("return window.results")
    if not results.get("done"):
        fail("the attack page did not finish: %s" % results)
    print("ok the page on %s ran every attempt: %s" % (evil, json.dumps(results)), flush=True)
    if results.get("read") != "blocked":
        fail("the page read the log: %s" % results.get("read"))
    print("ok the page could not read the log", flush=True)
    if results.get("events") == "received":
        fail("the page received the event stream")
    print("ok the page received no event", flush=True)
    driver.switch_to.frame(driver.find_element(By.ID, "admin"))
    if driver.find_elements(By.ID, "connection"):
        fail("the admin page rendered inside another site's frame")
    driver.switch_to.default_content()
    print("ok the admin page did not render in the page's frame", flush=True)
    time.sleep(1)  # the form's and beacons' requests are out

    # 2. DNS rebinding: a script in the origin http://rebound.test:PORT, whose name points at 127.0.0.1.
    rebound = "http://rebound.test:%d" % daemon_port
    driver.get(rebound + "/")
    statuses = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => {
          const out = {};
          for (const path of ["/v1/announcements", "/v1/status", "/v1/events", "/v1/reminders", "/"]) {
            try { const r = await fetch(path); out["GET " + path] = r.status + " " + (await r.text()).slice(0, 200); }
            catch (e) { out["GET " + path] = "error " + e; }
          }
          try {
            const r = await fetch("/v1/announcements", {method: "POST", headers: {"Content-Type": "application/json"},
              body: JSON.stringify({payment: {amount: "1000000.00"}, priority: "critical"})});
            out["POST /v1/announcements"] = r.status + " " + (await r.text()).slice(0, 200);
          } catch (e) { out["POST /v1/announcements"] = "error " + e; }
          done(out);
        })();""")
    print("ok the rebound page's requests: %s" % json.dumps(statuses), flush=True)
    for request, answer in statuses.items():
        if not answer.startswith("421 "):
            fail("%s through the rebound name answered %s" % (request, answer))
    print("ok every request through the rebound name was refused 421", flush=True)
finally:
    driver.quit()
    server.shutdown()
