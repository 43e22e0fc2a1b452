"""The dashboard walk's shared part: one server, one live ralph run and one browser (set up once for the whole walk),
and the helpers its steps use. The steps are in walk_*.py; test_dashboard.py puts them in one ordered walk."""

import os
import time

from selenium.webdriver.common.by import By

from harness import (CONTRAST_JS, UNLABELLED_JS, FakeAnthropic, Ralph, Server, Workspace, css, make_driver, one,
                     severe_console_errors, test_id, wait)


def click(element):
    """Clicks as a person would: the element scrolled to the middle of the screen, clear of the sticky bars."""
    element.parent.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)
    element.click()


def read(path):
    with open(path) as f:
        return f.read()


def text(element):
    return (element.get_attribute("textContent") or "").strip()



class DashboardBase:
    """Set-up, tear-down and helpers of the walk (a mixin of test_dashboard.Dashboard, not a test case itself)."""

    @classmethod
    def setUpClass(cls):
        cls.workspace = Workspace()
        cls.anthropic = FakeAnthropic(cls.workspace.dir)
        cls.server = Server(cls.workspace, cls.anthropic).start()
        cls.viewer_key = cls.server.create_key("viewer", "e2e-viewer")
        cls.ralph = Ralph(cls.workspace)
        cls.run_id = cls.wait_for_live_run()
        cls.driver = make_driver()
        cls.started_runs = []
        cls.conversation_id = None

    @classmethod
    def wait_for_live_run(cls):
        deadline = time.time() + 20
        while time.time() < deadline:
            status, sessions = cls.server.api("GET", "/api/sessions")
            live = [s for s in sessions if s["mode"] == "live"] if status == 200 else []
            if live:
                return live[0]["id"]
            time.sleep(0.1)
        raise AssertionError("the ralph run never showed as live")

    @classmethod
    def tearDownClass(cls):
        try:
            cls.driver.quit()
        finally:
            for run in cls.started_runs:
                cls.server.api("DELETE", f"/api/sessions/{run}?force=true")
            cls.ralph.stop()
            cls.server.stop()
            cls.anthropic.stop()
            if os.environ.get("KEEP_BROWSER_WORKSPACE"):
                print("workspace kept at", cls.workspace.dir)
            else:
                cls.workspace.cleanup()

    def tearDown(self):
        errors = severe_console_errors(self.driver)
        self.assertEqual(errors, [], "the browser console has errors")

    # Helpers

    def go(self, hash_path):
        self.driver.get(self.server.base + "/#" + hash_path)

    def by_test(self, name, timeout=15):
        return one(self.driver, test_id(name), timeout)

    def all_by_test(self, name):
        return css(self.driver, test_id(name))

    def event_ids(self):
        return [int(e.get_attribute("data-event-id")) for e in self.all_by_test("event")]

    def mode_text(self):
        return text(self.by_test("mode")).lower()

    def needs_conversation(self):
        if not self.conversation_id:
            self.skipTest("needs the conversation that test_10 creates from the page (it failed)")

    def send(self, message):
        """Types a message in the composer (set at once: long scripts) and sends it with the Send button."""
        composer = self.by_test("composer")
        self.driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))",
                                   composer, message)
        click(self.by_test("send"))
        wait(self.driver, lambda _: composer.get_attribute("value") == "", message="the message was sent")

    def replies(self, driver=None):
        """Claude's replies on the page (a script's text is also in the message that sent it: never wait on that)."""
        return "\n".join(text(m) for m in css(driver or self.driver, f'{test_id("message")}[data-role="assistant"]'))

    def wait_idle(self, timeout=60):
        """Waits until the conversation has no turn running or queued."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            c = self.server.api("GET", f"/api/conversations/{self.conversation_id}")[1]
            if c["status"] == "idle" and not c["queued"]:
                return c
            time.sleep(0.2)
        raise AssertionError(f"the conversation is still busy after {timeout}s: {c['status']}")

    def open_permissions(self, driver=None):
        d = driver or self.driver
        toggle = one(d, test_id("permissions-toggle"))
        if toggle.get_attribute("aria-expanded") != "true":
            click(toggle)
        wait(d, lambda _: toggle.get_attribute("aria-expanded") == "true", message="the permissions panel opens")
        return one(d, test_id("permissions"))

    def choose_theme(self, name):
        option = self.by_test("theme").find_element(By.CSS_SELECTOR, f'[data-theme-option="{name}"]')
        click(option)
        wait(self.driver, lambda d: d.execute_script("return document.documentElement.dataset.theme") == name, message=f"theme {name} applied")

    def check_screen_accessible(self, name):
        unlabelled = self.driver.execute_script(UNLABELLED_JS)
        self.assertEqual(unlabelled, [], f"{name}: controls without an accessible name")
        low = [c for c in self.driver.execute_script(CONTRAST_JS, "body *:not(svg):not(path)") if c["ratio"] < c["need"]]
        self.assertEqual(low, [], f"{name}: text below the WCAG AA contrast ratio")

    # The journey
