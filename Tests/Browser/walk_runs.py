"""The dashboard walk, steps 01-09: login, the sessions list, a run's detail (events, state frames, emit, steer,
pause, resume, a server restart, stop), the New run wizard and the library."""

import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from harness import ADMIN_KEY, css, one, screenshot, test_id, wait
from dashboard_base import click, read, text


class RunsWalk:
    """Steps of the ordered walk (a mixin of test_dashboard.Dashboard)."""

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
        # A server on its own: no hosts strip, no host on a row (test_cluster.py has a cluster's).
        self.assertFalse(one(d, test_id("hosts-strip")).is_displayed(), "no hosts strip for a server on its own")
        self.assertEqual([e for e in css(d, test_id("host")) if e.is_displayed()], [], "no host labels for a server on its own")
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
        # ralph 2.10 acknowledges guidance in its next iteration: the Guidance card turns it from pending to
        # acknowledged, with ralph's words.
        row = test_id("guidance") + '[data-state="acknowledged"]'
        wait(d, lambda _: css(d, row), timeout=15, message="the guidance shows acknowledged")
        self.assertIn("Use the fast path", text(css(d, row)[0]))
        self.assertIn("ralph: Will follow: Use the fast path", text(css(d, row + " " + test_id("guidance-ack"))[0]))

    def test_05_pause_and_resume(self):
        d = self.driver
        click(self.by_test("pause"))
        wait(d, lambda _: self.mode_text() == "paused", message="the page shows paused")
        # SIGSTOP is sent before the server answers, but the kernel stops ralph only once it runs again: on a busy
        # machine that can be a moment after the page shows paused.
        proc_state = lambda: read(f"/proc/{self.ralph.process.pid}/stat").split(")")[1].split()[0]
        wait(d, lambda _: proc_state() == "T", timeout=5, message="ralph is really stopped")
        self.assertEqual(self.server.api("GET", f"/api/sessions/{self.run_id}/status")[1]["mode"], "paused")
        screenshot(d, "05-session-paused")
        click(self.by_test("resume"))
        wait(d, lambda _: self.mode_text() == "live", message="the page shows live again")
        # The same on the way back: on a busy machine the kernel may show ralph stopped a moment after SIGCONT.
        wait(d, lambda _: proc_state() != "T", timeout=5, message="ralph runs again")

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
        # ralph's own stop: at the end of the iteration, with its own loop.terminate (reason `stopped`).
        self.assertEqual(text(self.by_test("stop")), "Stop at end of iteration")
        click(self.by_test("stop"))
        confirm = one(d, test_id("confirm"))
        self.assertEqual(text(confirm), "Stop at end of iteration")
        screenshot(d, "06-stop-confirm")
        click(confirm)
        wait(d, lambda _: text(self.by_test("stream-state")) == "ended", timeout=20, message="the stream ends")
        wait(d, lambda _: self.mode_text() == "complete", timeout=10, message="mode complete")
        self.ralph.process.wait(15)
        self.assertEqual(self.ralph.lines()[-1]["topic"], "loop.terminate")
        self.assertIn("## Reason\nstopped", self.ralph.lines()[-1]["payload"])
        wait(d, lambda _: "graceful stop" in text(self.by_test("stop-note")), timeout=10, message="the page says which stop ended the run")
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
