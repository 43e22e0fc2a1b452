"""The web dashboard in headless Chromium against the real server, as a person on a phone (390×844) uses it.

Chats run the real Claude Code CLI against fake-anthropic: a message starting with `#model` scripts the model's replies
(see the header of Sources/fake-anthropic/FakeAnthropic.swift), so what a test checks is what the CLI really did (a
file written after an allow, the model told of a deny).

Run: `eval "$(scripts/agent-clis)"` once (the pinned claude), then `/usr/bin/python3 -m unittest discover -s
Tests/Browser -v` after `swift build --build-tests` (scripts/test does all of it). Screenshots of every screen are
written to docs/screenshots/.
"""

import json
import os
import re
import time
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from harness import (ADMIN_KEY, CONTRAST_JS, UNLABELLED_JS, FakeAnthropic, Ralph, Server, Workspace, css, make_driver, model, one,
                     screenshot, severe_console_errors, test_id, wait)


def click(element):
    """Clicks as a person would: the element scrolled to the middle of the screen, clear of the sticky bars."""
    element.parent.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)
    element.click()


def read(path):
    with open(path) as f:
        return f.read()


def text(element):
    return (element.get_attribute("textContent") or "").strip()


class Dashboard(unittest.TestCase):
    """One server, one live ralph run and one browser, walked through in order (the tests are numbered)."""

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
                cls.server.api("DELETE", f"/api/sessions/{run}")
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

    def test_01_login(self):
        d = self.driver
        self.go("/sessions")
        key = one(d, "#login-key")
        screenshot(d, "01-login")
        key.send_keys("not-a-key" + Keys.ENTER)
        error = one(d, "#login-error")
        wait(d, lambda _: "not valid" in text(error), message="the wrong key is refused")
        key.clear()
        key.send_keys(ADMIN_KEY + Keys.ENTER)
        one(d, test_id("session-row"))
        self.assertTrue(d.find_element(By.ID, "tabbar").is_displayed())
        cookie = d.get_cookie("ralph_session")
        self.assertIsNotNone(cookie)
        self.assertTrue(cookie["httpOnly"])
        self.assertEqual(cookie.get("sameSite"), "Strict")
        self.assertIsNone(d.execute_script("return document.cookie.match(/ralph_session/)"), "scripts cannot read the login")

    def test_02_sessions_list_is_live(self):
        d = self.driver
        self.go("/sessions")
        row = one(d, f'{test_id("session-row")}[data-id="{self.run_id}"]')
        wait(d, lambda _: "live" in text(row.find_element(By.CSS_SELECTOR, test_id("mode"))).lower(), message="mode live")
        first = text(row.find_element(By.CSS_SELECTOR, test_id("iteration")))
        wait(d, lambda _: text(one(d, f'{test_id("session-row")}[data-id="{self.run_id}"] {test_id("iteration")}')) != first,
             timeout=10, message="the iteration advances without a reload")
        self.assertIn(self.run_id[:8], text(row))
        self.assertTrue(text(row.find_element(By.CSS_SELECTOR, test_id("hat"))))
        screenshot(d, "02-sessions")
        self.check_screen_accessible("sessions")
        # Keyboard: after a navigation the focus is on the screen's title, the next Tab goes into the content (the tab
        # bar comes after it), the toolbar before the rows; the skip link jumps to the content without changing page.
        self.assertEqual(d.switch_to.active_element.get_attribute("id"), "screen-title")
        order = []
        for _ in range(12):
            d.switch_to.active_element.send_keys(Keys.TAB)
            active = d.switch_to.active_element
            order.append((active.get_attribute("data-test") or active.tag_name, d.execute_script("return !!arguments[0].closest('#view')", active)))
        self.assertTrue(order[0][1], f"the first Tab stays in the content: {order}")
        order = [name for name, _ in order]
        self.assertIn("refresh", order)
        self.assertLess(order.index("refresh"), next(i for i, el in enumerate(order) if el == "a"), "toolbar before the rows")
        url = d.current_url
        d.execute_script("document.querySelector('.skip-link').focus()")
        d.switch_to.active_element.send_keys(Keys.ENTER)
        wait(d, lambda _: d.switch_to.active_element.get_attribute("id") == "view", message="the skip link moves focus to the content")
        self.assertEqual(d.current_url, url)

    def test_03_detail_streams_new_events(self):
        d = self.driver
        # The requests of this page from here on: the detail is read once, its changes come in the stream's state frames.
        d.execute_script("performance.setResourceTimingBufferSize(2000); performance.clearResourceTimings()")
        click(one(d, f'{test_id("session-row")}[data-id="{self.run_id}"] a'))
        wait(d, lambda _: d.current_url.endswith("#/sessions/" + self.run_id), message="detail opened")
        detail = self.by_test("session-detail")
        self.assertEqual(detail.get_attribute("data-id"), self.run_id)
        wait(d, lambda _: len(self.event_ids()) >= 2, message="history replayed")
        wait(d, lambda _: text(self.by_test("stream-state")) == "live", message="stream live")
        before = max(self.event_ids())
        wait(d, lambda _: max(self.event_ids()) > before, timeout=10, message="a new event arrives")
        ids = self.event_ids()
        self.assertEqual(ids, sorted(ids, reverse=True), "newest first")
        self.assertEqual(len(ids), len(set(ids)), "no duplicates")
        count = int("".join(ch for ch in text(self.by_test("event-count")) if ch.isdigit()))
        self.assertGreaterEqual(count, len(ids))
        # The header follows the run (its event count grows) without the page reading the detail again.
        def header_count():
            return int("".join(ch for ch in text(self.by_test("detail-event-count")) if ch.isdigit()) or 0)
        shown = header_count()
        wait(d, lambda _: header_count() > shown, timeout=15, message="the header's event count follows the run")
        reads = d.execute_script(
            "return performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname === arguments[0]).length",
            "/api/sessions/" + self.run_id)
        self.assertEqual(reads, 1, "the detail is read once; the session stream's state frames carry its changes")
        for section in ["tokens", "hat-flow", "backpressure", "iteration-stats", "recent-events", "hats-reference", "controls"]:
            self.by_test(section)
        screenshot(d, "03-session-detail")
        d.execute_script("arguments[0].scrollIntoView()", self.by_test("event-list"))
        screenshot(d, "04-session-events")
        self.check_screen_accessible("session detail")

    def test_04_emit_and_steer(self):
        d = self.driver
        topic, payload = self.by_test("emit-topic"), self.by_test("emit-payload")
        topic.clear()
        topic.send_keys("bad topic!")
        click(self.by_test("emit-submit"))
        wait(d, lambda _: topic.get_attribute("aria-invalid") == "true", message="a bad topic is refused in the page")
        topic.clear()
        topic.send_keys("e2e.check")
        payload.clear()
        payload.send_keys('{"n": 1')
        click(self.by_test("emit-submit"))
        wait(d, lambda _: payload.get_attribute("aria-invalid") == "true", message="invalid JSON is refused in the page")
        time.sleep(0.5)
        self.assertFalse([l for l in self.ralph.lines() if l.get("topic") == "e2e.check"], "nothing was sent")
        payload.clear()
        payload.send_keys('{"n": 1}')
        click(self.by_test("emit-submit"))
        wait(d, lambda _: any(text(t) == "e2e.check" for t in css(d, test_id("event") + " .topic")), message="emitted event streams back")
        emitted = [l for l in self.ralph.lines() if l.get("topic") == "e2e.check"]
        self.assertEqual(len(emitted), 1)
        self.assertEqual(emitted[0]["payload"], {"n": 1})

        steer = self.by_test("steer-text")
        steer.send_keys("Use the fast path")
        click(self.by_test("steer-submit"))
        wait(d, lambda _: any(text(t) == "human.guidance" for t in css(d, test_id("event") + " .topic")), message="guidance streams back")
        guidance = [l for l in self.ralph.lines() if l.get("topic") == "human.guidance"]
        self.assertEqual([g["payload"] for g in guidance], ["Use the fast path"])

    def test_05_pause_and_resume(self):
        d = self.driver
        click(self.by_test("pause"))
        wait(d, lambda _: self.mode_text() == "paused", message="the page shows paused")
        state = read(f"/proc/{self.ralph.process.pid}/stat").split(")")[1].split()[0]
        self.assertEqual(state, "T", "ralph is really stopped")
        self.assertEqual(self.server.api("GET", f"/api/sessions/{self.run_id}/status")[1]["mode"], "paused")
        screenshot(d, "05-session-paused")
        click(self.by_test("resume"))
        wait(d, lambda _: self.mode_text() == "live", message="the page shows live again")
        state = read(f"/proc/{self.ralph.process.pid}/stat").split(")")[1].split()[0]
        self.assertNotEqual(state, "T")

    def test_06_server_restart_resumes_without_duplicates(self):
        d = self.driver
        wait(d, lambda _: text(self.by_test("stream-state")) == "live", message="stream live before the restart")
        before = max(self.event_ids())
        self.server.restart()
        wait(d, lambda _: int(text(self.by_test("reconnects")) or 0) >= 1, timeout=20, message="the page saw the connection drop")
        wait(d, lambda _: text(self.by_test("stream-state")) == "live", timeout=30, message="the page reconnected")
        wait(d, lambda _: max(self.event_ids()) > before + 1, timeout=15, message="events after the restart arrive")
        ids = self.event_ids()
        self.assertEqual(len(ids), len(set(ids)), "no event shown twice after the reconnect")
        self.assertEqual(ids, list(range(ids[0], ids[0] - len(ids), -1)), "no event missing: ids are contiguous")
        on_disk = len(self.ralph.lines())
        self.assertLessEqual(ids[0], on_disk)

    def test_07_stop_with_confirmation(self):
        d = self.driver
        click(self.by_test("stop"))
        confirm = one(d, test_id("confirm"))
        screenshot(d, "06-stop-confirm")
        click(confirm)
        wait(d, lambda _: text(self.by_test("stream-state")) == "ended", timeout=20, message="the stream ends")
        wait(d, lambda _: self.mode_text() == "complete", timeout=10, message="mode complete")
        self.ralph.process.wait(15)
        self.assertEqual(self.ralph.lines()[-1]["topic"], "loop.terminate")
        self.assertFalse([b for b in css(d, test_id("pause")) + css(d, test_id("resume")) if b.is_displayed()], "no pause for a finished run")

    def test_08_create_run_wizard(self):
        d = self.driver
        self.go("/new")
        one(d, test_id("create-config") + ' option[value="presets/feature.yml"]')
        Select(self.by_test("create-config")).select_by_value("presets/feature.yml")
        click(self.by_test("create-prompt-mode-text"))
        self.by_test("create-prompt-text").send_keys("Add a health endpoint")
        screenshot(d, "07-new-run")
        self.check_screen_accessible("new run")
        click(self.by_test("create-submit"))
        wait(d, lambda _: "#/sessions/" in d.current_url and len(d.current_url.split("#/sessions/")[1]) == 16, timeout=20,
             message="the new run opens")
        run = d.current_url.split("#/sessions/")[1]
        self.started_runs.append(run)
        wait(d, lambda _: self.mode_text() == "live", timeout=15, message="the new run is live")
        wait(d, lambda _: len(self.event_ids()) >= 1, message="its events stream")
        status, body = self.server.api("GET", f"/api/sessions/{run}")
        self.assertEqual(status, 200)
        self.assertEqual(body["task_name"], "Add a health endpoint")

    def test_09_library(self):
        d = self.driver
        self.go("/library")
        wait(d, lambda _: len(self.all_by_test("library-item")) >= 1, message="configs listed")
        screenshot(d, "08-library")
        self.check_screen_accessible("library")
        click(one(d, f'{test_id("library-tab")}[data-kind="prompts"]'))
        wait(d, lambda _: "#/library/prompts" in d.current_url, message="the tab is in the URL")
        item = wait(d, lambda _: [i for i in self.all_by_test("library-item") if "docs" in text(i)], message="prompt listed")[0]
        click(item)
        content = self.by_test("library-content")
        wait(d, lambda _: "Document every public function." in text(content), message="the prompt's content")
        self.by_test("copy")
        screenshot(d, "09-library-content")
        click(self.by_test("start-with"))
        wait(d, lambda _: d.current_url.endswith("#/new"), message="the wizard opens")
        wait(d, lambda _: self.by_test("create-prompt-file").get_attribute("value") == "prompts/docs.md", message="with that prompt chosen")
        self.assertTrue(self.by_test("create-prompt-file").is_displayed())

    def test_10_chat_streams_and_approval_from_the_sheet(self):
        d = self.driver
        self.go("/chats")
        click(self.by_test("new-chat"))
        # The modes offered are default and exactly those the server's claude accepts (from /api/health).
        status, health = self.server.api("GET", "/api/health")
        modes = [m for m in health["agents"][0]["permission_modes"] if m != "default"]
        self.assertTrue(modes, "the real CLI has permission modes")
        self.assertNotIn("delegate", modes)
        select = self.by_test("chat-permission-mode")
        wait(d, lambda _: len(Select(select).options) > 1, message="the modes claude accepts are offered")
        self.assertEqual([o.get_attribute("value") for o in Select(select).options], ["default"] + modes)
        self.assertIn(health["agents"][0]["version"], text(d.find_element(By.ID, select.get_attribute("id") + "-hint")))
        cwd = self.by_test("chat-cwd")
        cwd.clear()
        cwd.send_keys(".")
        self.by_test("chat-title").send_keys("Notes for the release")
        click(self.by_test("chat-create"))
        wait(d, lambda _: "#/chats/" in d.current_url, message="the conversation opens")
        self.conversation = d.current_url.split("#/chats/")[1]
        type(self).conversation_id = self.conversation
        notes = os.path.join(self.workspace.ws, "notes.txt")
        self.send(model(["say Let me look at the files.", "bash touch notes.txt"], ["say All done: notes.txt is there."]))
        wait(d, lambda _: css(d, f'{test_id("message")}[data-role="user"]'), message="the message shows")
        wait(d, lambda _: css(d, test_id("streaming")) and css(d, test_id("streaming"))[0].is_displayed(), timeout=30,
             message="the turn is shown running")
        wait(d, lambda _: "Let me look at the files." in self.replies(), timeout=30, message="first words streamed")
        sheet = self.by_test("approval-sheet", timeout=30)
        self.assertIn("touch notes.txt", text(sheet))
        self.assertEqual(text(self.by_test("approve-session")), "Allow Bash(touch notes.txt) for this session")
        # What the CLI said about the call: its description, and the path that made it ask.
        self.assertIn("Run touch notes.txt", text(sheet))
        self.assertEqual(text(self.by_test("approval-blocked-path")), "Path that made it ask: " + notes)
        self.assertFalse(os.path.exists(notes), "nothing runs before the allow")
        screenshot(d, "11-approval-sheet")
        self.check_screen_accessible("approval sheet")
        click(self.by_test("approve"))
        wait(d, lambda _: "All done: notes.txt is there." in self.replies(), timeout=30,
             message="the agent went on after the approval")
        self.assertTrue(os.path.exists(notes), "the allowed command really ran")
        self.assertTrue(self.all_by_test("tool-call"))
        wait(d, lambda _: not css(d, test_id("approval-sheet")), message="the sheet closed")
        wait(d, lambda _: not self.by_test("streaming").is_displayed(), timeout=30, message="the turn ended")
        self.assertEqual(self.server.api("GET", f"/api/conversations/{self.conversation}")[1]["session_rules"], [],
                         "a plain allow grants nothing for later")
        screenshot(d, "10-chat")
        self.check_screen_accessible("chat")

    def test_10b_a_failed_turn_shows_and_the_stream_stays_live(self):
        self.needs_conversation()
        d = self.driver
        status, _ = self.server.api("POST", f"/api/conversations/{self.conversation_id}/messages", {"text": model(["error 400 broken"])})
        self.assertEqual(status, 202)
        wait(d, lambda _: css(d, test_id("turn-error")), timeout=60, message="the failed turn is shown")
        time.sleep(0.3)
        self.assertEqual(text(self.by_test("stream-state")), "live", "a turn's error event is not a lost connection")
        reconnects = self.all_by_test("reconnects")
        self.assertTrue(not reconnects or not reconnects[0].is_displayed() or text(reconnects[0]) == "0")

    def test_10c_allow_for_this_session_grants_exactly_the_rule_shown(self):
        self.needs_conversation()
        d = self.driver
        a_txt = os.path.join(self.workspace.ws, "a.txt")
        self.send(model(["bash touch a.txt"], ["bash touch a.txt"], ["say Both done."]))
        sheet = self.by_test("approval-sheet", timeout=30)
        first = sheet.get_attribute("data-id")
        button = self.by_test("approve-session")
        self.assertEqual(text(button), "Allow Bash(touch a.txt) for this session", "the button names the exact rule")
        self.assertIn("not the permission mode", text(self.by_test("session-rule-hint")))
        self.assertNotIn("acceptEdits", text(sheet), "the CLI's own suggestions are not offered as what it grants")
        click(button)
        # The second, identical call is allowed by the rule: no other sheet, the turn runs to its end.
        sheets = set()
        def done(_):
            sheets.update(s.get_attribute("data-id") for s in css(d, test_id("approval-sheet")))
            return "Both done." in self.replies()
        wait(d, done, timeout=30, message="the turn ends without asking again")
        self.assertEqual(sheets - {first}, set(), "no second sheet for the identical call")
        self.assertTrue(os.path.exists(a_txt))
        decisions = [text(e) for e in self.all_by_test("tool-decision")]
        self.assertTrue(any("not asked" in t and "Bash(touch a.txt)" in t for t in decisions),
                        f"the second call says the rule allowed it: {decisions}")
        # The conversation's permissions panel lists the rule, used once since.
        self.open_permissions()
        rule = self.by_test("session-rule")
        self.assertEqual(text(rule.find_element(By.CSS_SELECTOR, test_id("session-rule-display"))), "Bash(touch a.txt)")
        wait(d, lambda _: text(one(d, test_id("session-rule-uses"))) .startswith("used once"), message="the use is counted")
        self.assertTrue(text(self.by_test("permission-mode")).startswith("default"))
        self.assertEqual(text(self.by_test("agent-version")), "2.1.330")
        self.assertTrue(rule.find_element(By.CSS_SELECTOR, test_id("revoke-rule")).is_displayed())
        rules = self.server.api("GET", f"/api/conversations/{self.conversation_id}")[1]["session_rules"]
        self.assertEqual([(r["rule"]["display"], r["uses"]) for r in rules], [("Bash(touch a.txt)", 1)])
        d.execute_script("arguments[0].scrollIntoView()", self.by_test("permissions"))
        screenshot(d, "19-chat-permissions")
        self.check_screen_accessible("permissions panel")

    def test_10d_retrying_the_model_api_is_shown_until_the_reply_arrives(self):
        self.needs_conversation()
        d = self.driver
        self.send(model(["fail 529 2", "say recovered"]))
        line = self.by_test("status-line")
        retrying = wait(d, lambda _: re.search(r"Retrying the model API \(attempt \d+( of \d+)?, HTTP 529\)", text(line)) and text(line),
                        timeout=30, message="the retry is shown")
        self.assertEqual(self.by_test("chat-status").find_element(By.CSS_SELECTOR, ".badge").get_attribute("data-status"), "retrying")
        wait(d, lambda _: "recovered" in self.replies(), timeout=30, message="the reply arrives")
        wait(d, lambda _: "Retrying" not in text(line) and not self.by_test("streaming").is_displayed(), timeout=15,
             message="the retry line is gone")
        self.assertIn("HTTP 529", retrying)
        # The conversations list shows it too, live.
        self.go("/chats")
        row = one(d, f'{test_id("chat-row")}[data-id="{self.conversation_id}"]')
        self.server.api("POST", f"/api/conversations/{self.conversation_id}/messages", {"text": model(["fail 529 3", "say recovered again"])})
        wait(d, lambda _: one(d, f'{test_id("chat-row")}[data-id="{self.conversation_id}"]').get_attribute("data-status") == "retrying",
             timeout=30, message="the list shows retrying")
        self.assertIn("retrying", text(one(d, f'{test_id("chat-row")}[data-id="{self.conversation_id}"]')))
        self.assertIn("HTTP 529", text(self.by_test("chat-retry")))
        wait(d, lambda _: one(d, f'{test_id("chat-row")}[data-id="{self.conversation_id}"]').get_attribute("data-status") == "idle",
             timeout=30, message="and idle once the reply came")
        self.assertFalse(row.find_elements(By.CSS_SELECTOR, test_id("chat-retry")))

    def test_10e_a_turn_the_agent_starts_by_itself_is_a_system_note(self):
        self.needs_conversation()
        d = self.driver
        self.go("/chats/" + self.conversation_id)
        self.by_test("composer")
        self.send(model(["say Starting a helper.", "agent helper :: #model\\nsay sub says 42"], ["say Helper started."],
                        ["say The helper said 42."]))
        note = self.by_test("system-note", timeout=60)
        self.assertIn("A background task finished", text(note))
        wait(d, lambda _: "The helper said 42." in self.replies(), timeout=30, message="the agent's own reply")
        self.check_agent_turn()
        # Read back from the server, the stored system message is the same note.
        d.refresh()
        wait(d, lambda _: "The helper said 42." in self.replies(), message="the transcript again")
        self.check_agent_turn()
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", self.by_test("system-note"))
        screenshot(d, "20-chat-agent-turn")
        self.check_screen_accessible("chat with an agent turn")

    def check_agent_turn(self):
        articles = self.all_by_test("message")
        roles = [(a.get_attribute("data-role"), text(a)) for a in articles]
        note = [i for i, (role, t) in enumerate(roles) if role == "system" and "A background task finished" in t]
        self.assertEqual(len(note), 1, f"one note: {roles}")
        self.assertFalse([t for role, t in roles if role == "user" and "A background task finished" in t], "not a user bubble")
        after = [t for role, t in roles[note[0] + 1:] if role == "assistant"]
        self.assertTrue(after and "The helper said 42." in after[0], f"its reply follows the note: {roles[note[0]:]}")

    def test_11_auto_reply_panel(self):
        self.needs_conversation()
        d = self.driver
        panel = self.by_test("auto-reply")
        d.execute_script("arguments[0].scrollIntoView()", panel)
        if not panel.find_elements(By.CSS_SELECTOR, test_id("auto-reply-start")) or not panel.find_elements(By.CSS_SELECTOR, test_id("auto-reply-start"))[0].is_displayed():
            click(panel.find_element(By.CSS_SELECTOR, "summary, button"))
        self.by_test("auto-reply-start")
        screenshot(d, "12-auto-reply")
        click(self.by_test("auto-reply-start"))
        progress = self.by_test("auto-reply-progress")
        wait(d, lambda _: any(w in text(progress).lower() for w in ["running", "stopped", "paused"]), timeout=15, message="live progress")
        status, body = self.server.api("GET", f"/api/conversations/{self.conversation_id}/auto-reply")
        self.assertEqual(status, 200)
        self.assertIn(body["progress"]["state"], ["running", "stopped", "paused"])
        self.server.api("POST", f"/api/conversations/{self.conversation_id}/auto-reply/stop")

    def test_12_approvals_inbox(self):
        self.needs_conversation()
        d = self.driver
        self.go("/chats")
        wait(d, lambda _: css(d, f'{test_id("chat-row")}[data-id="{self.conversation_id}"]'), message="the conversation is listed")
        screenshot(d, "13-chats")
        self.check_screen_accessible("chats")
        self.go("/approvals")
        one(d, "#view h2, #view .empty, #view .list")
        target = os.path.join(self.workspace.ws, "denied.txt")
        write = json.dumps({"file_path": target, "content": "hi"})
        status, _ = self.server.api("POST", f"/api/conversations/{self.conversation_id}/messages",
                                    {"text": model([f"tool Write {write}"], ["say Understood."])})
        self.assertEqual(status, 202)
        row = self.by_test("approval-row", timeout=60)
        screenshot(d, "14-approvals")
        self.check_screen_accessible("approvals")
        click(row)
        sheet = self.by_test("approval-sheet")
        self.assertIn("denied.txt", text(sheet))
        self.assertEqual(text(self.by_test("approve-session")), "Allow Write(denied.txt) for this session")
        self.assertEqual(text(self.by_test("approval-description")), "Write: denied.txt")
        self.by_test("deny-message").send_keys("Not in this folder")
        click(self.by_test("deny"))
        wait(d, lambda _: not css(d, test_id("approval-row")), timeout=15, message="the row leaves the inbox")
        # The model is told: the request after the deny carries it as an error tool result.
        self.wait_idle()
        last = self.anthropic.requests()[-1]
        results = [b for b in last.get("last") or [] if b.get("type") == "tool_result"]
        self.assertEqual(len(results), 1, f"the last model request answers the tool call: {last}")
        self.assertIn("Not in this folder", results[0]["content"])
        self.assertIs(results[0]["is_error"], True)
        self.assertFalse(os.path.exists(target), "the denied write did not happen")

    def test_13_settings_and_theme(self):
        d = self.driver
        self.go("/settings")
        status, health = self.server.api("GET", "/api/health")
        wait(d, lambda _: health["version"] in text(self.by_test("server-version")), message="server version")
        wait(d, lambda _: self.all_by_test("key-row"), message="keys listed for the admin")
        screenshot(d, "15-settings")
        self.check_screen_accessible("settings")
        self.choose_theme("light")
        # Every screen's text keeps its contrast in the high-contrast theme too.
        self.choose_theme("contrast")
        self.check_screen_accessible("settings, high contrast")
        self.choose_theme("light")
        self.check_screen_accessible("settings, light")
        d.refresh()
        wait(d, lambda _: d.execute_script("return document.documentElement.dataset.theme") == "light", message="theme remembered")
        self.go("/sessions")
        one(d, test_id("session-row"))
        self.check_screen_accessible("sessions, light theme")
        screenshot(d, "16-sessions-light")
        self.go("/settings")
        self.choose_theme("cyberpunk")

    def test_14_viewer_sees_no_controls(self):
        self.needs_conversation()
        viewer = make_driver()
        try:
            viewer.get(self.server.base + "/#/sessions")
            one(viewer, "#login-key").send_keys(self.viewer_key + Keys.ENTER)
            one(viewer, test_id("session-row"))
            self.assertFalse(css(viewer, test_id("new-run")))
            viewer.get(self.server.base + "/#/sessions/" + self.run_id)
            one(viewer, test_id("session-detail"))
            wait(viewer, lambda _: len(css(viewer, test_id("event"))) >= 1, message="a viewer still sees events")
            for control in ["controls", "pause", "resume", "stop", "emit-submit", "steer-submit"]:
                self.assertFalse(css(viewer, test_id(control)), f"a viewer must not see {control}")
            screenshot(viewer, "17-viewer-session")
            viewer.get(self.server.base + "/#/chats/" + self.conversation_id)
            one(viewer, test_id("messages"))
            wait(viewer, lambda _: "The helper said 42." in self.replies(viewer), message="a viewer reads the chat")
            # The session rule is listed for a viewer too, without Revoke.
            self.open_permissions(viewer)
            wait(viewer, lambda _: [text(e) for e in css(viewer, test_id("session-rule-display"))] == ["Bash(touch a.txt)"],
                 message="a viewer sees the session rule")
            for control in ["composer", "send", "interrupt", "auto-reply-start", "revoke-rule"]:
                self.assertFalse(css(viewer, test_id(control)), f"a viewer must not see {control}")
            viewer.get(self.server.base + "/#/settings")
            one(viewer, test_id("server-version"))
            self.assertFalse(css(viewer, test_id("keys")), "keys are for admins")
            self.by_role = text(one(viewer, test_id("role")))
            self.assertIn("viewer", self.by_role.lower())
            click(one(viewer, test_id("logout")))
            one(viewer, "#login-key")
            self.assertIsNone(viewer.get_cookie("ralph_session"), "the cookie is gone")
            self.assertEqual(severe_console_errors(viewer), [])
        finally:
            viewer.quit()

    def test_14b_revoking_a_session_rule_from_the_panel(self):
        self.needs_conversation()
        d = self.driver
        self.go("/chats/" + self.conversation_id)
        self.open_permissions()
        rule = wait(d, lambda _: [r for r in self.all_by_test("session-rule") if "Bash(touch a.txt)" in text(r)], message="the rule is listed")[0]
        click(rule.find_element(By.CSS_SELECTOR, test_id("revoke-rule")))
        wait(d, lambda _: not self.all_by_test("session-rule"), message="the rule leaves the panel")
        self.assertEqual(self.server.api("GET", f"/api/conversations/{self.conversation_id}")[1]["session_rules"], [])
        # Revoked for real: the same command asks again. Allowed for the session again, the rule comes back live.
        self.send(model(["bash touch a.txt"], ["say Asked again."]))
        self.assertIn("touch a.txt", text(self.by_test("approval-sheet", timeout=30)))
        click(self.by_test("approve-session"))
        wait(d, lambda _: [text(e) for e in self.all_by_test("session-rule-display")] == ["Bash(touch a.txt)"], timeout=15,
             message="the new grant shows in the panel")
        wait(d, lambda _: "Asked again." in self.replies(), timeout=30, message="the turn ends")
        # Revoked elsewhere (another device, the terminal client): the panel follows by itself.
        rule_id = self.all_by_test("session-rule")[0].get_attribute("data-id")
        status, removed = self.server.api("DELETE", f"/api/conversations/{self.conversation_id}/session-rules/{rule_id}")
        self.assertEqual((status, removed["rule"]["display"]), (200, "Bash(touch a.txt)"))
        wait(d, lambda _: not self.all_by_test("session-rule"), timeout=15, message="the panel drops the rule revoked elsewhere")
        self.assertIn("None.", text(self.by_test("permissions")))

    def test_15_desktop_layout(self):
        self.needs_conversation()
        d = self.driver
        d.set_window_size(1280, 800)
        try:
            self.go("/sessions")
            one(d, test_id("session-row"))
            nav = d.find_element(By.ID, "tabbar")
            self.assertLess(nav.rect["x"] + nav.rect["width"], 260, "navigation is a side bar on a desktop")
            screenshot(d, "18-desktop-sessions")
            d.set_window_size(360, 740)
            for path, ready in [("/sessions", "session-row"), ("/sessions/" + self.run_id, "event"), ("/new", "create-submit"),
                                ("/library", "library-item"), ("/chats/" + self.conversation_id, "message"),
                                ("/approvals", None), ("/settings", "server-version")]:
                self.go(path)
                if ready:
                    one(d, test_id(ready))
                else:
                    time.sleep(0.5)
                width = d.execute_script("return document.documentElement.scrollWidth")
                wide = d.execute_script(
                    "return [...document.querySelectorAll('#view *')].filter(e => e.getBoundingClientRect().right > 361)"
                    ".slice(0, 3).map(e => e.outerHTML.slice(0, 160))")
                self.assertLessEqual(width, 360, f"nothing overflows sideways at 360 px on {path}: {wide}")
        finally:
            d.set_window_size(390, 844)


if __name__ == "__main__":
    unittest.main(verbosity=2)
