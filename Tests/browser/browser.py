"""What the admin page's browser scripts share: headless Chromium (Debian's chromium,
chromium-driver, python3-selenium), a failure that names itself, and a wait for a condition."""
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def fail(message):
    print("FAIL " + message, flush=True)
    sys.exit(1)


def wait_for(what, condition, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except Exception:
            pass  # the element is being redrawn by the next event
        time.sleep(0.02)
    fail("timed out waiting for " + what)


def chromium(network=False):
    """Headless Chromium with its console kept, for the scripts' check of console errors;
    `network` keeps the DevTools network events too (`responses`)."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1800"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", **({"performance": "ALL"} if network else {})})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def no_console_errors(driver):
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    if errors:
        fail("console errors: %s" % errors)
    print("ok no console errors", flush=True)


def responses(driver):
    """(url, status, request headers) of every response the page received since the last call,
    from the DevTools log (`chromium(network=True)`)."""
    import json
    seen = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.responseReceived":
            response = message["params"]["response"]
            seen.append((response["url"], response["status"], response.get("requestHeaders") or {}))
    return seen
