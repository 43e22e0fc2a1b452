"""Headless Chromium and the small Selenium helpers every walk uses."""

import os
import shutil

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from products import ROOT

SCREENSHOTS = os.path.join(ROOT, "docs", "screenshots")


def make_driver(width=390, height=844, extra_arguments=()):
    """Headless Chromium; `extra_arguments` are added to its command line (e.g. `--host-resolver-rules=…`)."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                     "--force-device-scale-factor=1", "--hide-scrollbars", *extra_arguments]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_window_size(width, height)
    driver.implicitly_wait(0)
    return driver


def wait(driver, condition, timeout=15, message=""):
    """Waits until `condition(driver)` is truthy (stale elements just mean "not yet"); returns its value."""
    def attempt(d):
        try:
            return condition(d)
        except StaleElementReferenceException:
            return False
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(attempt)
    except TimeoutException:
        raise AssertionError(f"timed out after {timeout}s waiting for: {message or condition}")


def css(driver, selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def one(driver, selector, timeout=15):
    return wait(driver, lambda d: (css(d, selector) or [None])[0], timeout, f"element {selector}")


def test_id(name):
    return f'[data-test="{name}"]'


def severe_console_errors(driver):
    """Browser console errors, except the 401 the app expects while it checks whether a login is needed."""
    errors = []
    for entry in driver.get_log("browser"):
        if entry.get("level") != "SEVERE":
            continue
        message = entry.get("message", "")
        if "401" in message and ("/api/whoami" in message or "/api/login" in message):
            continue
        if "net::ERR_CONNECTION_REFUSED" in message or "ERR_INCOMPLETE_CHUNKED_ENCODING" in message or "ERR_EMPTY_RESPONSE" in message:
            continue  # expected while the server restarts
        errors.append(message)
    return errors


def screenshot(driver, name):
    os.makedirs(SCREENSHOTS, exist_ok=True)
    path = os.path.join(SCREENSHOTS, name + ".png")
    # Notices of earlier steps would cover the screen being shown.
    driver.execute_script("const t = document.getElementById('toasts'); if (t) t.replaceChildren();")
    driver.save_screenshot(path)
    return path
