#!/usr/bin/python3
"""The admin page in headless Chromium, driven by Selenium (Debian's chromium, chromium-driver,
python3-selenium). Run by Tests/IntegrationTests/AdminPageTests.swift against a real daemon:
  admin_page.py BASE_URL SINK REMINDER_ID SCREENSHOT
Prints one `ok ...` line per check and `acked_at <epoch seconds>`; exits 1 with the reason on
the first failure.
"""
import subprocess
import sys
import time
import urllib.request

from browser import chromium, fail, no_console_errors, wait_for

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import StaleElementReferenceException

base, sink, reminder, screenshot = sys.argv[1:5]
driver = chromium()
try:
    driver.get(base + "/")
    wait_for("the live status", lambda: driver.find_element(By.ID, "connection").text.startswith("live"))
    wait_for("the sink", lambda: sink in driver.find_element(By.ID, "sink").text)
    print("ok the page is live and shows " + sink, flush=True)

    # Every control is labelled: a <label for>, aria-label, or its own text.
    unlabelled = driver.execute_script("""
        return [...document.querySelectorAll('input, select, button')].filter(c =>
          !(c.labels && c.labels.length) && !c.getAttribute('aria-label') && !c.textContent.trim()).map(c => c.outerHTML);""")
    if unlabelled:
        fail("controls without a label: %s" % unlabelled)
    print("ok every control is labelled", flush=True)

    # The test button, pressed from the keyboard: a history row appears without a reload.
    marker = driver.execute_script("window.heraldMarker = 'same page'; return window.heraldMarker;")
    test_button = driver.find_element(By.ID, "test-button")
    driver.execute_script("arguments[0].focus();", test_button)
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    pressed = time.time()
    print("test_pressed_at %.3f" % pressed, flush=True)
    wait_for("the test announcement's row, played",
             lambda: any("Herald is ready." in row.text and "played" in row.text
                         for row in driver.find_elements(By.CSS_SELECTOR, "#history tr")), timeout=20)
    if driver.execute_script("return window.heraldMarker;") != marker:
        fail("the page reloaded")
    print("ok the test announcement's row appeared without a reload", flush=True)

    # Today's total: none yet, then a payment said, then shown without a reload.
    wait_for("no payments today", lambda: driver.find_element(By.ID, "today-total").text == "No payments today.", timeout=5)
    request = urllib.request.Request(base + "/v1/announcements?wait=true", method="POST",
                                     data=b'{"payment": {"amount": "2.50", "currency": "USD"}}',
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).read()
    wait_for("today's total", lambda: driver.find_element(By.ID, "today-total").text == "Payments today: 1, total 2.50 USD",
             timeout=10)
    print("ok today's total shown", flush=True)

    # Muting the sink from outside shows on the page within a second.
    subprocess.run(["pactl", "set-sink-mute", sink, "1"], check=True)
    muted_at = time.monotonic()
    wait_for("Muted on the page", lambda: driver.find_element(By.ID, "sink-mute").text == "Muted", timeout=1.0)
    print("ok mute shown after %d ms" % ((time.monotonic() - muted_at) * 1000), flush=True)
    subprocess.run(["pactl", "set-sink-mute", sink, "0"], check=True)
    wait_for("Not muted on the page", lambda: driver.find_element(By.ID, "sink-mute").text == "Not muted", timeout=1.0)

    # The reminder said and waiting: acknowledged from the page.
    selector = '#reminders li[data-id="%s"]' % reminder
    wait_for("the reminder waiting for an answer",
             lambda: "waiting for an answer" in driver.find_element(By.CSS_SELECTOR, selector).text, timeout=20)
    # A status event may redraw the list between finding the button and clicking it: find it again.
    for attempt in range(20):
        try:
            driver.find_element(By.CSS_SELECTOR, selector + " button[aria-label^='Acknowledge']").click()
            break
        except StaleElementReferenceException:
            time.sleep(0.05)
    else:
        fail("the Acknowledge button kept being redrawn")
    print("acked_at %.3f" % time.time(), flush=True)
    wait_for("the reminder no longer waiting",
             lambda: "waiting for an answer" not in driver.find_element(By.CSS_SELECTOR, selector).text, timeout=5)
    print("ok acknowledged from the page", flush=True)

    # On a phone's width nothing runs off the side.
    driver.set_window_size(390, 844)
    time.sleep(0.3)
    if driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth + 1;"):
        wide = driver.execute_script("""return [...document.querySelectorAll('body *')].filter(e =>
            e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className);""")
        fail("the page is wider than a phone's screen: %s" % wide)
    driver.set_window_size(1280, 1800)
    time.sleep(0.3)
    driver.save_screenshot(screenshot)
    print("ok screenshot " + screenshot, flush=True)

    no_console_errors(driver)
finally:
    driver.quit()
