#!/usr/bin/python3
"""The fleet console's page in headless Chromium (as admin_page.py). Run by
Tests/IntegrationTests/FleetTests.swift:
  fleet_page.py BASE_URL REAL_HUB ITS_GROUP OFFLINE_HUB SCREENSHOT
The page lists the hubs with their state, filters by group, state and name, shows the open
alarm of OFFLINE_HUB and acknowledges it, draws the chart, sends a test announcement to
REAL_HUB and shows its played event in the hub's panel. Prints one `ok ...` line per check and
`request_id ID` for the announcement; exits 1 with the reason on the first failure.
"""
import sys

from browser import chromium, fail, no_console_errors, wait_for

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

base, real, group, offline, screenshot = sys.argv[1:6]
driver = chromium()


def rows():
    return driver.find_elements(By.CSS_SELECTOR, "#hubs tr.hub")


def row_of(hub):
    found = [row for row in rows() if row.get_attribute("data-hub") == hub]
    return found[0] if found else None


def state_of(hub):
    row = row_of(hub)
    return row.find_elements(By.TAG_NAME, "td")[1].text if row else ""


# The test's own hubs (the broker holds other tests' retained ones): care-TAG-p, gone-TAG, sim-TAG-...
tag = offline.split("-", 1)[1]


def names():
    return [r.get_attribute("data-hub") for r in rows()]


try:
    driver.get(base + "/")
    wait_for("the summary", lambda: " hubs: " in driver.find_element(By.ID, "summary").text)
    driver.find_element(By.ID, "find").send_keys(tag)
    wait_for(real + " online", lambda: state_of(real) == "online")
    wait_for(offline + " offline", lambda: state_of(offline).startswith("offline since "))
    print("ok " + driver.find_element(By.ID, "summary").text, flush=True)

    # Pages of 100, asked of the console one at a time.
    wait_for("a next page", lambda: len(rows()) == 100 and driver.find_element(By.ID, "next").is_enabled())
    first = names()
    driver.find_element(By.ID, "next").click()
    wait_for("the second page", lambda: driver.find_element(By.ID, "hubs-range").text.startswith("101–") and names() and names()[0] > first[-1])
    driver.find_element(By.ID, "previous").click()
    wait_for("the first page again", lambda: names() == first)
    print("ok pages: " + driver.find_element(By.ID, "hubs-range").text, flush=True)

    Select(driver.find_element(By.ID, "group")).select_by_visible_text(group)
    wait_for("only group " + group, lambda: names() == [real])
    Select(driver.find_element(By.ID, "group")).select_by_value("")
    Select(driver.find_element(By.ID, "state")).select_by_visible_text("offline")
    wait_for("only offline hubs", lambda: rows() and all(r.find_elements(By.TAG_NAME, "td")[1].text.startswith("offline") for r in rows())
             and row_of(real) is None and row_of(offline) is not None)
    Select(driver.find_element(By.ID, "state")).select_by_value("")
    driver.find_element(By.ID, "find").clear()
    driver.find_element(By.ID, "find").send_keys(real)
    wait_for("the name filter", lambda: names() == [real])
    print("ok the filters by group, state and name", flush=True)

    wait_for("bars in the fleet's chart", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#chart svg rect")) > 0)
    print("ok the chart draws %d bars" % len(driver.find_elements(By.CSS_SELECTOR, "#chart svg rect")), flush=True)

    wait_for("the offline alarm", lambda: any(offline in r.text and "offline" in r.text
                                              for r in driver.find_elements(By.CSS_SELECTOR, "#alarms tr")))
    alarm = [r for r in driver.find_elements(By.CSS_SELECTOR, "#alarms tr") if offline in r.text][0]
    alarm.find_element(By.CSS_SELECTOR, "button[data-ack]").click()
    wait_for("the acknowledgement shown", lambda: any(offline in r.text and " by " in r.text
                                                      for r in driver.find_elements(By.CSS_SELECTOR, "#alarms tr")))
    print("ok the alarm acknowledged", flush=True)

    Select(driver.find_element(By.ID, "target-kind")).select_by_value("hub")
    driver.find_element(By.ID, "target").send_keys(real)
    driver.find_element(By.CSS_SELECTOR, "#announce button[type=submit]").click()
    wait_for("the published answer", lambda: driver.find_element(By.ID, "announce-result").text.startswith("Published to herald/" + real + "/announce"))
    request = driver.find_element(By.ID, "announce-result").text.split(" as ")[1].rstrip(".")
    print("request_id " + request, flush=True)

    row_of(real).click()
    wait_for("the hub's panel", lambda: driver.find_element(By.ID, "hub-title").text == "Hub " + real)
    wait_for("the chart scoped to the hub", lambda: driver.find_element(By.ID, "chart-scope").text == "hub " + real)
    # The panel refreshes every 5 s; the event comes once the hub has said it.
    wait_for("the played event in the hub's panel", lambda: any(
        request in r.text and "played" in r.text for r in driver.find_elements(By.CSS_SELECTOR, "#events tr")), timeout=30)
    print("ok the test announcement played, shown in the hub's panel", flush=True)

    no_console_errors(driver)
    driver.find_element(By.ID, "find").clear()
    driver.find_element(By.ID, "find").send_keys(" ")
    driver.save_screenshot(screenshot)
except SystemExit:
    raise
except Exception as error:
    fail("%s: %s" % (type(error).__name__, error))
finally:
    driver.quit()
