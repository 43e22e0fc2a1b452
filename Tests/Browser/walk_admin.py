"""The dashboard walk, steps 12-15: the approvals inbox, settings and theme, what a viewer sees, revoking a session rule,
and the desktop layout."""

import json
import os
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from harness import css, make_driver, model, one, screenshot, severe_console_errors, test_id, wait
from dashboard_base import click, text


class AdminWalk:
    """Steps of the ordered walk (a mixin of test_dashboard.Dashboard)."""

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
        click(row.find_element(By.CSS_SELECTOR, ".approval-open"))
        sheet = self.by_test("approval-sheet")
        self.assertIn("denied.txt", text(sheet))
        # The write's diff: a new file of one line without a newline at its end.
        diff = sheet.find_element(By.CSS_SELECTOR, test_id("diff-file"))
        self.assertEqual((diff.get_attribute("data-kind"), text(diff.find_element(By.CSS_SELECTOR, test_id("diff-path")))), ("add", "denied.txt"))
        self.assertEqual([tr.get_attribute("data-kind") for tr in diff.find_elements(By.CSS_SELECTOR, "tr.diff-line")], ["add", "nonewline"])
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
