#!/usr/bin/python3
"""The admin page's rooms in headless Chromium (as admin_page.py): the rooms panel lists each room
with its sink or why it has none, and "Say it" sends to the rooms chosen. Run by
Tests/IntegrationTests/RoomPlaybackTests.swift:
  admin_rooms.py BASE_URL ROOM_WITH_A_SINK ROOM_WITHOUT TEXT
Prints one `ok ...` line per check; exits 1 with the reason on the first failure.
"""
import sys

from browser import chromium, no_console_errors, wait_for

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

base, present, absent, text = sys.argv[1:5]
driver = chromium()
try:
    driver.get(base + "/")
    wait_for("the rooms panel", lambda: driver.find_element(By.ID, "rooms-section").is_displayed())
    rooms = driver.find_element(By.ID, "rooms")
    wait_for("room " + present + " with its sink", lambda: any(
        item.text.startswith(present + ": ") and "no speaker" not in item.text for item in rooms.find_elements(By.TAG_NAME, "li")))
    wait_for("room " + absent + " without one", lambda: any(
        item.text.startswith(absent + ": no speaker") for item in rooms.find_elements(By.TAG_NAME, "li")))
    print("ok the rooms panel shows " + present + " with its sink and " + absent + " without", flush=True)

    choice = Select(driver.find_element(By.ID, "say-rooms"))
    choice.select_by_value(present)
    driver.find_element(By.ID, "say-text").send_keys(text)
    driver.find_element(By.CSS_SELECTOR, "#say-form button[type=submit]").click()
    wait_for("the queued answer", lambda: driver.find_element(By.ID, "say-result").text.startswith("Queued"))
    print("ok said in " + present, flush=True)

    no_console_errors(driver)
finally:
    driver.quit()
