#!/usr/bin/python3
"""The admin page's player in headless Chromium, driven by Selenium. Run by
Tests/IntegrationTests/ListeningBackTests.swift against a real daemon:
  listen_back.py BASE_URL KEPT_ID PRUNED_ID DURATION_MS BROKEN_ID BROKEN_FILE
(BROKEN_FILE is removed while the page shows its player: the player says why it cannot play.)
Prints one `ok ...` line per check; exits 1 with the reason on the first failure.
"""
import os
import sys

from browser import chromium, fail, responses, wait_for

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

base, kept, pruned, duration_ms, broken, broken_file = sys.argv[1:7]
duration_ms = int(duration_ms)
duration = duration_ms / 1000.0
driver = chromium(network=True)


def player(row=None):
    return driver.find_element(By.CSS_SELECTOR, '#history tr[data-id="%s"] .player' % (row or kept))


def media(expression, row=None):
    return driver.execute_script("const a = arguments[0].querySelector('audio'); return " + expression + ";", player(row))


def clock(seconds):
    minutes = int(seconds // 60)
    return "%d:%04.1f" % (minutes, seconds - minutes * 60)


try:
    driver.get(base + "/")
    wait_for("the live status", lambda: driver.find_element(By.ID, "connection").text.startswith("live"))
    wait_for("the kept row's player", lambda: player().is_displayed())
    # Before it is loaded, the duration is the row's.
    shown = player().find_element(By.CSS_SELECTOR, ".time").text
    if not shown.startswith("0:00.0 / ") or shown == "0:00.0 / 0:00.0":
        fail("the player shows no duration before it plays: %r" % shown)
    print("ok position and duration before playing: " + shown, flush=True)

    # Play: the audio element plays in the browser, and the button says Pause.
    player().find_element(By.CSS_SELECTOR, "button.play").click()
    wait_for("the audio playing", lambda: media("!a.paused && a.currentTime > 0.3"), timeout=10)
    wait_for("the Pause button", lambda: player().find_element(By.CSS_SELECTOR, "button.play").text == "Pause")
    print("ok plays (currentTime %.2f s)" % media("a.currentTime"), flush=True)
    wait_for("the waveform drawn", lambda: player().find_element(By.CSS_SELECTOR, "canvas.wave").get_attribute("data-drawn") == "true")
    inked = driver.execute_script("""const c = arguments[0].querySelector('canvas.wave');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n;""", player())
    if inked < 1500:  # silence would draw one line: about 300 to 600
        fail("the waveform is nearly blank (%d pixels)" % inked)
    print("ok a waveform is drawn (%d pixels)" % inked, flush=True)
    # The announcement was critical: the alert chime came first, and the bar marks where it ends.
    left = driver.execute_script("return parseFloat(arguments[0].querySelector('.chime-mark').style.left);", player())
    if not 1 < left < 60:
        fail("the chime's mark is at %s%%" % left)
    print("ok the chime ends at %.0f%% of the bar" % left, flush=True)
    player().find_element(By.CSS_SELECTOR, "button.play").click()
    wait_for("the audio paused", lambda: media("a.paused"))
    if abs(media("a.duration") - duration) > 0.1:
        fail("the browser reads %.2f s, the file holds %.2f s" % (media("a.duration"), duration))

    # Seek: a click in the middle of the progress bar.
    seek = player().find_element(By.CSS_SELECTOR, ".seek")
    ActionChains(driver).move_to_element(seek).click().perform()
    middle = duration / 2
    wait_for("currentTime in the middle", lambda: abs(media("a.currentTime") - middle) < 0.15 * duration, timeout=5)
    landed = media("a.currentTime")
    time_text = player().find_element(By.CSS_SELECTOR, ".time").text
    if time_text != clock(landed) + " / " + clock(media("a.duration")):
        fail("the position shown %r is not the audio's %s" % (time_text, clock(landed)))
    print("ok seeked to %.2f s of %.2f s, shown as %s" % (landed, duration, time_text), flush=True)

    # Dragged from a quarter to three quarters.
    width = seek.size["width"]
    ActionChains(driver).move_to_element_with_offset(seek, -width // 4, 0).click_and_hold() \
        .move_by_offset(width // 2, 0).release().perform()
    wait_for("currentTime at three quarters", lambda: abs(media("a.currentTime") - 0.75 * duration) < 0.15 * duration, timeout=5)
    print("ok dragged to %.2f s" % media("a.currentTime"), flush=True)

    # The server answered with byte ranges, and the browser knows the whole file is seekable.
    audio_url = "/v1/announcements/%s/audio" % kept
    answered = [status for url, status, _ in responses(driver) if url.endswith(audio_url)]
    if 206 not in answered:
        fail("no 206 for the audio: %s" % answered)
    if abs(media("a.seekable.length ? a.seekable.end(0) : 0") - duration) > 0.1:
        fail("the browser cannot seek the whole audio")
    print("ok the server answered %s" % answered, flush=True)

    # Played on from there to the end.
    player().find_element(By.CSS_SELECTOR, "button.play").click()
    wait_for("the end", lambda: media("a.ended"), timeout=duration + 5)
    print("ok played to the end", flush=True)

    # The old row: pruned, said in place of a player.
    row = driver.find_element(By.CSS_SELECTOR, '#history tr[data-id="%s"]' % pruned)
    if row.find_elements(By.CSS_SELECTOR, ".player"):
        fail("the pruned row has a player")
    gone = row.find_element(By.CSS_SELECTOR, ".audio-gone").text
    if "no longer kept" not in gone or "history.audio_retention" not in gone:
        fail("the pruned row says %r" % gone)
    print("ok the pruned row says: " + gone, flush=True)

    # An error: the file removed while the page shows its player is said there, with why.
    os.remove(broken_file)
    player(broken).find_element(By.CSS_SELECTOR, "button.play").click()
    wait_for("the error state", lambda: "Error:" in player(broken).find_element(By.CSS_SELECTOR, ".player-state").text, timeout=10)
    said = player(broken).find_element(By.CSS_SELECTOR, ".player-state").text
    if "no longer kept" not in said or "its file is no longer in" not in said or "error" not in player(broken).get_attribute("class"):
        fail("the broken player says %r" % said)
    print("ok the broken player says: " + said, flush=True)

    # The browser reports the 410 it was answered as a failed load: that one is expected.
    errors = [entry for entry in driver.get_log("browser")
              if entry["level"] == "SEVERE" and "/v1/announcements/%s/audio" % broken not in entry["message"]]
    if errors:
        fail("console errors: %s" % errors)
    print("ok no console errors", flush=True)
finally:
    driver.quit()
