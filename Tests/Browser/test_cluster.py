"""The dashboard of a cluster, in headless Chromium at phone size: two real servers (`alpha` and `bravo`, each with its
own workspace and a fake-ralph run) share a private PostgreSQL database, and the dashboard is opened on bravo.

Both runs are listed with their host, the hosts strip shows both hosts online and narrows the list to one; a new
conversation can be made on alpha from bravo. Then alpha is killed (-9): within seconds, without a reload, the strip
shows it offline and its run unreachable (never live), whose screen has its controls disabled. Alpha is started again
(its run is live again) and killed once more just as Pause is pressed: the page says host_offline. The New conversation
sheet then offers alpha greyed out. A server on its own shows none of this (walk_runs.py test_02 checks it).

Run: `/usr/bin/python3 -m unittest discover -s Tests/Browser -p test_cluster.py -v` from the package root after `swift build`
(PostgreSQL from Debian's `postgresql` package; the test starts and stops its own). Screenshots go to docs/screenshots/.
"""

import os
import signal
import time
import types
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from harness import ADMIN_KEY, Ralph, Server, Workspace, css, make_driver, one, screenshot, severe_console_errors, test_id, wait
from dashboard_base import click, text
from page_checks import CONTRAST_JS, UNLABELLED_JS
from postgres import Postgres

# Nobody talks to a model here: no conversation gets a message.
NO_MODEL_API = types.SimpleNamespace(base="http://127.0.0.1:9")


class ClusterDashboard(unittest.TestCase):
    """One cluster, one browser on bravo, walked through in order (the tests are numbered)."""

    @classmethod
    def setUpClass(cls):
        cls.postgres = Postgres()
        try:
            url = cls.postgres.start().make_database()
            cls.workspaces = {name: Workspace() for name in ("alpha", "bravo")}
            cls.servers = {}
            for name, workspace in cls.workspaces.items():
                cls.servers[name] = Server(workspace, NO_MODEL_API, extra_args=["--database", url, "--host-name", name]).start()
            cls.alpha, cls.bravo = cls.servers["alpha"], cls.servers["bravo"]
            cls.ralphs = [Ralph(cls.workspaces["alpha"], "Alpha: build the parser"), Ralph(cls.workspaces["bravo"], "Bravo: write the docs")]
            cls.run_ids = cls.wait_for_runs()
            cls.driver = make_driver()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def wait_for_runs(cls):
        """The ids of alpha's and bravo's runs, once bravo lists both live."""
        deadline = time.time() + 30
        sessions = []
        while time.time() < deadline:
            status, sessions = cls.bravo.api("GET", "/api/sessions")
            if status == 200:
                live = {s.get("host"): s["id"] for s in sessions if s["mode"] == "live" and s.get("reachable")}
                if "alpha" in live and "bravo" in live:
                    return live
            time.sleep(0.2)
        raise AssertionError(f"bravo never listed both runs live: {sessions}")

    @classmethod
    def tearDownClass(cls):
        try:
            if getattr(cls, "driver", None):
                cls.driver.quit()
        finally:
            for ralph in getattr(cls, "ralphs", []):
                ralph.stop()
            for server in getattr(cls, "servers", {}).values():
                server.stop()
            cls.postgres.stop()
            keep = os.environ.get("KEEP_BROWSER_WORKSPACE")
            for workspace in getattr(cls, "workspaces", {}).values():
                if keep:
                    print("workspace kept at", workspace.dir)
                else:
                    workspace.cleanup()

    def tearDown(self):
        # Expected: the host_offline answers (503) while alpha is down.
        errors = [e for e in severe_console_errors(self.driver) if "503" not in e]
        self.assertEqual(errors, [], "the browser console has errors")

    # Helpers

    def go(self, hash_path):
        self.driver.get(self.bravo.base + "/#" + hash_path)

    def row(self, host):
        return one(self.driver, f'{test_id("session-row")}[data-id="{self.run_ids[host]}"]')

    def chip(self, name):
        return one(self.driver, f'{test_id("host-chip")}[data-host-name="{name}"]')

    def shown_rows(self):
        return [r.get_attribute("data-id") for r in css(self.driver, test_id("session-row"))]

    def check_accessible(self, name):
        d = self.driver
        self.assertEqual(d.execute_script(UNLABELLED_JS), [], f"{name}: controls without an accessible name")
        low = [c for c in d.execute_script(CONTRAST_JS, "body *:not(svg):not(path)") if c["ratio"] < c["need"]]
        self.assertEqual(low, [], f"{name}: text below the WCAG AA contrast ratio")

    def check_fits_phone(self, name):
        overflow = self.driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        self.assertLessEqual(overflow, 0, f"{name}: the page is wider than the phone")

    # The walk

    def test_01_both_runs_listed_with_their_hosts(self):
        d = self.driver
        self.go("/sessions")
        one(d, "#login-key").send_keys(ADMIN_KEY + Keys.ENTER)
        for host in ("alpha", "bravo"):
            row = self.row(host)
            wait(d, lambda _: text(row.find_element(By.CSS_SELECTOR, test_id("host"))) == host, message=f"{host}'s run is labelled {host}")
            self.assertEqual(text(row.find_element(By.CSS_SELECTOR, test_id("mode"))), "live")
            self.assertFalse(row.find_element(By.CSS_SELECTOR, test_id("unreachable-note")).is_displayed())
        strip = one(d, test_id("hosts-strip"))
        self.assertTrue(strip.is_displayed())
        wait(d, lambda _: [c.get_attribute("data-host-name") for c in css(d, test_id("host-chip"))] == ["bravo", "alpha"],
             message="the hosts strip lists this server first, then alpha")
        for name in ("alpha", "bravo"):
            self.assertEqual(self.chip(name).get_attribute("data-online"), "true", f"{name} online")
        self.assertEqual(text(self.chip("bravo").find_element(By.CSS_SELECTOR, test_id("host-state"))), "this server")
        self.assertEqual(text(self.chip("alpha").find_element(By.CSS_SELECTOR, test_id("host-state"))), "online")
        self.assertEqual(one(d, test_id("host-filter-all")).get_attribute("aria-pressed"), "true")
        self.check_fits_phone("cluster sessions")
        self.check_accessible("cluster sessions")
        screenshot(d, "29-cluster-hosts")

    def test_02_host_filter_narrows_to_alpha_and_is_remembered(self):
        d = self.driver
        self.go("/sessions")
        self.row("alpha")
        click(self.chip("alpha"))
        wait(d, lambda _: self.shown_rows() == [self.run_ids["alpha"]], message="only alpha's run is shown")
        self.assertEqual(self.chip("alpha").get_attribute("aria-pressed"), "true")
        self.assertIn("on alpha", text(one(d, ".sl-summary")))
        # Kept across a reload, like the other filters.
        d.refresh()
        wait(d, lambda _: self.shown_rows() == [self.run_ids["alpha"]], message="still only alpha's run after a reload")
        click(one(d, test_id("host-filter-all")))
        wait(d, lambda _: sorted(self.shown_rows()) == sorted(self.run_ids.values()), message="both runs again")

    def test_03_new_conversation_on_alpha(self):
        d = self.driver
        self.go("/chats")
        click(one(d, test_id("new-chat")))
        field = one(d, test_id("chat-host-field"))
        wait(d, lambda _: field.is_displayed(), message="the host choice is offered in a cluster")
        select = one(d, test_id("chat-host"))
        options = {o.get_attribute("data-host-name"): o for o in select.find_elements(By.TAG_NAME, "option")}
        self.assertEqual(text(options["bravo"]), "bravo (this server)")
        self.assertTrue(options["bravo"].is_selected(), "this server by default")
        options["alpha"].click()
        self.check_fits_phone("new conversation sheet")
        screenshot(d, "33-new-chat-host")
        click(one(d, test_id("chat-create")))
        wait(d, lambda _: "#/chats/" in d.current_url, message="the conversation is created and opened")
        conversation = d.current_url.rsplit("/", 1)[-1]
        wait(d, lambda _: text(one(d, test_id("chat-host"))) == "alpha", message="the chat header names its host")
        status, made = self.bravo.api("GET", f"/api/conversations/{conversation}")
        self.assertEqual((status, made.get("host")), (200, "alpha"), made)
        self.go("/chats")
        row = one(d, f'{test_id("chat-row")}[data-id="{conversation}"]')
        wait(d, lambda _: text(row.find_element(By.CSS_SELECTOR, test_id("chat-row-host"))) == "alpha", message="the row names its host")
        self.check_fits_phone("cluster chats")

    def test_04_alpha_dies_its_run_becomes_unreachable_live(self):
        d = self.driver
        self.go("/sessions")
        row = self.row("alpha")
        chip = self.chip("alpha")
        self.assertEqual(text(row.find_element(By.CSS_SELECTOR, test_id("mode"))), "live")
        self.kill_alpha()
        killed = time.time()
        # No reload: host.updated and session.updated on the global stream.
        wait(d, lambda _: chip.get_attribute("data-online") == "false", timeout=12, message="alpha shows offline within seconds")
        wait(d, lambda _: text(row.find_element(By.CSS_SELECTOR, test_id("mode"))) == "unreachable",
             timeout=max(1, 12 - (time.time() - killed)), message="alpha's run shows unreachable within seconds")
        self.assertTrue(text(chip.find_element(By.CSS_SELECTOR, test_id("host-state"))).startswith("offline"))
        self.assertNotIn("sl-live", row.get_attribute("class"))
        note = row.find_element(By.CSS_SELECTOR, test_id("unreachable-note"))
        self.assertTrue(note.is_displayed())
        self.assertEqual(text(note), "unreachable — host offline")
        self.assertEqual(text(self.row("bravo").find_element(By.CSS_SELECTOR, test_id("mode"))), "live")
        self.assertEqual(self.chip("bravo").get_attribute("data-online"), "true")
        self.assertIn("1 live", text(one(d, ".sl-summary")), "the unreachable run is not counted live")
        # "Live" leaves it out.
        click(one(d, test_id("filter-live")))
        wait(d, lambda _: self.shown_rows() == [self.run_ids["bravo"]], message="the Live filter leaves the unreachable run out")
        click(one(d, test_id("filter-all")))
        wait(d, lambda _: len(self.shown_rows()) == 2, message="both runs under All")
        self.check_fits_phone("cluster sessions, alpha offline")
        self.check_accessible("cluster sessions, alpha offline")
        screenshot(d, "30-cluster-host-offline")

        # Its screen: the last known state, unreachable, controls there but disabled.
        click(self.row("alpha").find_element(By.CSS_SELECTOR, "a"))
        detail = one(d, test_id("session-detail"))
        banner = one(d, test_id("unreachable-banner"))
        wait(d, lambda _: banner.is_displayed(), message="the run's screen says its host is offline")
        self.assertIn("Host alpha is offline", text(banner))
        self.assertEqual(text(detail.find_element(By.CSS_SELECTOR, test_id("mode"))), "unreachable")
        self.assertIn("offline", text(one(d, test_id("detail-host"))))
        pause, stop = one(d, test_id("pause")), one(d, test_id("stop"))
        self.assertTrue(pause.is_displayed() and not pause.is_enabled(), "pause shown disabled")
        self.assertTrue(stop.is_displayed() and not stop.is_enabled(), "stop shown disabled")
        self.check_fits_phone("unreachable run")
        self.check_accessible("unreachable run")
        screenshot(d, "31-cluster-run-unreachable")

    def test_05_alpha_back_then_a_control_sent_as_it_dies_says_host_offline(self):
        d = self.driver
        self.alpha.start()
        self.go("/sessions/" + self.run_ids["alpha"])
        pause = one(d, test_id("pause"))
        banner = one(d, test_id("unreachable-banner"))
        wait(d, lambda _: pause.is_displayed() and pause.is_enabled() and not banner.is_displayed(), timeout=30,
             message="alpha is back: its run is live again and can be paused")
        self.kill_alpha()
        # Sent as it died: alpha never takes it, and bravo says so once it sees alpha offline.
        click(pause)
        note = one(d, test_id("host-offline-note"))
        wait(d, lambda _: note.is_displayed(), timeout=20, message="the control says the host is offline")
        self.assertIn("Host alpha", text(note))
        self.assertIn("offline", text(note))
        wait(d, lambda _: banner.is_displayed() and not pause.is_enabled(), message="then the run shows unreachable, pause disabled")
        self.assertTrue(note.is_displayed(), "the message stays after the toast")
        screenshot(d, "32-cluster-control-host-offline")

    def test_06_new_conversation_sheet_greys_out_an_offline_host(self):
        d = self.driver
        self.go("/chats")
        click(one(d, test_id("new-chat")))
        select = one(d, test_id("chat-host"))
        wait(d, lambda _: any(o.get_attribute("data-host-name") == "alpha" for o in select.find_elements(By.TAG_NAME, "option")),
             message="the hosts are listed")
        alpha = [o for o in select.find_elements(By.TAG_NAME, "option") if o.get_attribute("data-host-name") == "alpha"][0]
        self.assertEqual(text(alpha), "alpha — offline")
        self.assertFalse(alpha.is_enabled(), "an offline host cannot be chosen")
        one(d, ".sheet-head .icon-btn").click()

    def kill_alpha(self):
        self.alpha.process.send_signal(signal.SIGKILL)
        self.alpha.process.wait()

if __name__ == "__main__":
    unittest.main(verbosity=2)
