"""Notifications in the web dashboard, in headless Chromium against the real server.

Settings shows what this browser and the server can do, subscribes (permission granted through the DevTools protocol)
and edits this key's devices. Headless Chromium has no push service: subscribing says so. Then the page's
`PushManager` is given the subscription of the local Web Push receiver (Tests/Receivers/push_receiver.py, which checks
VAPID and decrypts independently) in place of the push service's: Settings registers it with the server, the server's
test push reaches the receiver, and what the receiver decrypted is delivered to the dashboard's service worker with
`ServiceWorker.deliverPushMessage`, as the push service would. Plain messages are shown, replaced and withdrawn; a real
approval's message (with its real single-use tokens) gets Allow / Deny buttons, and Allow carries out the decision.

Run after `swift build --build-tests`: `/usr/bin/python3 -m unittest Tests/Browser/test_notifications.py -v` from the
package (or with every browser test: `scripts/test`). The settings card is saved as docs/screenshots/21-notifications.png.
"""

import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
import unittest
import urllib.request

from cdp import CDP
from harness import ROOT, ADMIN_KEY, CONTRAST_JS, UNLABELLED_JS, FakeAnthropic, Server, Workspace, css, make_driver, model, one, screenshot, severe_console_errors, test_id, wait
from dashboard_base import click, text
from notify_fixtures import ACTION_JS, FAKE_PUSH_MANAGER_JS, NOTIFICATIONS_JS, PushService, WebhookSink, message


class Notifications(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workspace = Workspace()
        cls.anthropic = FakeAnthropic(cls.workspace.dir)
        # Fold window 0: the withdraw of an approval is sent at once, not 10 s after the approval.
        cls.server = Server(cls.workspace, cls.anthropic, extra_args=["--notify-fold", "0"]).start()
        # Made now, long before test_06 uses it: the server reads the keys file again when it changes, and polling with
        # a key it does not know yet would count as wrong keys against this address.
        cls.viewer_key = cls.server.create_key("viewer", "notify-viewer")
        cls.sink = WebhookSink()
        cls.push_service = PushService()
        cls.driver = make_driver()
        cls.cdp = None
        cls.registration_id = None

    @classmethod
    def tearDownClass(cls):
        try:
            if cls.cdp:
                cls.cdp.close()
            cls.driver.quit()
        finally:
            cls.sink.stop()
            cls.push_service.stop()
            cls.server.stop()
            cls.anthropic.stop()
            if os.environ.get("KEEP_BROWSER_WORKSPACE"):
                print("workspace kept at", cls.workspace.dir)
            else:
                cls.workspace.cleanup()

    def tearDown(self):
        self.assertEqual(severe_console_errors(self.driver), [], "the browser console has errors")

    def by_test(self, name, timeout=15):
        return one(self.driver, test_id(name), timeout)

    def notifications(self, tag=None):
        shown = self.driver.execute_async_script(NOTIFICATIONS_JS, tag)
        self.assertNotIsInstance(shown, dict, f"getNotifications failed: {shown}")
        return shown

    def push(self, payload):
        """Delivers `payload` (JSON) to the dashboard's service worker as its push service would."""
        self.last_push = payload
        type(self).cdp.send("ServiceWorker.deliverPushMessage", {
            "origin": self.server.base, "registrationId": self.registration_id, "data": json.dumps(payload)})

    def wait_notifications(self, predicate, what, tag=None):
        """Waits until the notifications shown (with `tag`) satisfy `predicate`; returns them (maybe none)."""
        seen = []

        def check(_):
            shown = self.notifications(tag)
            seen[:] = [shown]
            return predicate(shown)
        try:
            try:
                wait(self.driver, check, timeout=10, message=what)
            except AssertionError:
                # Under heavy load a push handed over through DevTools is now and then never dispatched to the worker
                # (a push service would deliver it again): hand it over once more. The message is idempotent (same tag).
                if getattr(self, "last_push", None) is not None:
                    self.push(self.last_push)
                wait(self.driver, check, timeout=20, message=what)
        except AssertionError as error:
            worker = [e for e in (self.cdp.events if self.cdp else []) if e["method"] in ("ServiceWorker.workerErrorReported", "ServiceWorker.workerVersionUpdated")]
            raise AssertionError(f"{error}; shown with tag {tag!r}: {seen[0] if seen else 'nothing read'}; all: {self.notifications()}; "
                                 f"service worker events: {worker[-6:]}")
        return seen[0]

    def test_01_settings_show_what_this_browser_and_the_server_can_do(self):
        d = self.driver
        d.get(self.server.base + "/")
        key = one(d, "#login-key")
        key.send_keys(ADMIN_KEY)
        click(one(d, "form.login button[type=submit]"))
        wait(d, lambda _: css(d, "#tabbar:not([hidden])"), message="logged in")
        d.get(self.server.base + "/#/settings")
        card = self.by_test("notifications")
        wait(d, lambda _: css(d, test_id("notify-support")), message="the browser's support is shown")
        self.assertEqual(self.by_test("notify-support").get_attribute("data-value"), "supported")
        self.assertEqual(self.by_test("notify-permission").get_attribute("data-value"), "default")
        self.assertEqual(self.by_test("notify-subscribed").get_attribute("data-value"), "unsubscribed")
        wait(d, lambda _: css(d, '[data-test="notify-channels"] [data-channel="apns"]'), message="the channels are listed")
        apns = css(d, '[data-test="notify-channels"] [data-channel="apns"]')[0]
        self.assertEqual(apns.get_attribute("data-available"), "false")
        self.assertIn("not available", text(apns), "a server without APNs credentials says so")
        self.assertEqual(css(d, '[data-test="notify-channels"] [data-channel="web_push"]')[0].get_attribute("data-available"), "true")
        self.assertTrue(css(d, test_id("notify-no-devices")), "no devices yet")
        self.assertIn("Notifications", text(card))

    def test_02_subscribe_with_permission_granted(self):
        d = self.driver
        self.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": self.server.base, "permissions": ["notifications"]})
        d.refresh()
        wait(d, lambda _: css(d, test_id("notify-permission")) and self.by_test("notify-permission").get_attribute("data-value") == "granted",
             message="the permission shows as granted")
        click(self.by_test("notify-subscribe"))
        # Headless Chromium has no push service: subscribing fails at that step, and says so. (A browser with one
        # registers the device: then the server lists it.)
        def settled(_):
            error = css(d, test_id("notify-error"))
            if error and error[0].is_displayed():
                return "error"
            subscribed = css(d, test_id("notify-subscribed"))
            return "subscribed" if subscribed and subscribed[0].get_attribute("data-value") == "subscribed" else None
        outcome = wait(d, settled, timeout=40, message="subscribing succeeds or says why not")
        devices = self.server.api("GET", "/api/notifications/devices")[1]["devices"]
        if outcome == "subscribed":
            self.assertEqual([dev["channel"] for dev in devices], ["web_push"])
            type(self).subscribed = True
        else:
            problem = text(self.by_test("notify-error"))
            self.assertIn("push service did not give a subscription", problem)
            self.assertEqual(devices, [], "nothing was registered")
            type(self).subscribed = False
        # The service worker was installed on the way (before the push service was asked): it is what shows pushes.
        state = d.execute_async_script("""const done = arguments[0];
            navigator.serviceWorker.ready.then((r) => done({scope: r.scope, active: Boolean(r.active), script: r.active && r.active.scriptURL}))""")
        self.assertEqual(state, {"scope": self.server.base + "/", "active": True, "script": self.server.base + "/sw.js"})
        type(self).cdp = CDP.for_page(d)
        self.cdp.send("ServiceWorker.enable")
        event = self.cdp.wait_event(lambda e: e["method"] == "ServiceWorker.workerRegistrationUpdated" and any(
            r["scopeURL"] == self.server.base + "/" and not r["isDeleted"] for r in e["params"]["registrations"]))
        type(self).registration_id = next(r["registrationId"] for r in event["params"]["registrations"] if r["scopeURL"] == self.server.base + "/")

    def test_02b_with_a_push_service_settings_subscribe_and_the_server_pushes_to_it(self):
        if not self.registration_id:
            self.skipTest("needs the service worker test_02 installs")
        d = self.driver
        subscription = self.push_service.call("POST", "/control/subscription", {})
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_PUSH_MANAGER_JS.replace("SUBSCRIPTION", json.dumps(subscription))})
        d.refresh()
        click(self.by_test("notify-subscribe"))
        wait(d, lambda _: css(d, test_id("notify-subscribed")) and self.by_test("notify-subscribed").get_attribute("data-value") == "subscribed",
             timeout=30, message="subscribed")
        self.assertFalse(self.by_test("notify-error").is_displayed())
        devices = self.server.api("GET", "/api/notifications/devices")[1]["devices"]
        self.assertEqual([(dev["channel"], dev["target"]) for dev in devices], [("web_push", "127.0.0.1")], devices)
        device = devices[0]
        self.assertEqual(d.execute_script("return localStorage.getItem('ralph.notify.device')"), device["id"], "the page remembers its device")
        self.assertEqual(device["name"], "Chrome on Linux")
        row = one(d, f'{test_id("notify-device")}[data-id="{device["id"]}"]')
        self.assertIn("this browser", text(row))
        # Send test: the server encrypts for the subscription, the receiver checks VAPID and decrypts; delivered to the
        # service worker, it is shown.
        click(row.find_element("css selector", test_id("notify-test")))
        outcome = row.find_element("css selector", test_id("notify-test-outcome"))
        wait(d, lambda _: outcome.is_displayed(), timeout=20, message="the test's outcome")
        self.assertEqual(outcome.get_attribute("data-outcome"), "delivered", text(outcome))
        pushed = [r for r in self.push_service.received(1) if r["channel"] == "web_push"]
        self.assertEqual(len(pushed), 1, pushed)
        self.assertNotIn("error", pushed[0], pushed[0])
        test_message = pushed[0]["payload"]
        self.assertEqual(test_message["subject"], "test")
        self.push(test_message)
        shown = self.wait_notifications(lambda s: len(s) == 1, "the test notification is shown", test_message["tag"])[0]
        self.assertEqual((shown["title"], shown["body"]), ("Ralph Mobile test", "Notifications reach Chrome on Linux."))
        self.assertEqual(shown["data"]["path"], "/#/settings")
        type(self).web_push_device = device["id"]

    def test_03_a_push_is_shown_replaced_and_withdrawn(self):
        if not self.registration_id:
            self.skipTest("needs the service worker test_02 installs")
        self.push(message("run-r1", "Run finished: docs"))
        shown = self.wait_notifications(lambda s: len(s) == 1, "the notification is shown", "run-r1")[0]
        self.assertEqual((shown["title"], shown["body"], shown["tag"]), ("Run finished: docs", "The run ended.", "run-r1"))
        self.assertEqual(shown["data"]["path"], "/#/sessions/r1", "the message is the notification's data")
        self.assertEqual(shown["actions"], [])
        self.assertFalse(shown["renotify"])
        # The same tag again: replaced (one notification), and it buzzes again.
        self.push(message("run-r1", "Run finished again"))
        shown = self.wait_notifications(lambda s: len(s) == 1 and s[0]["title"] == "Run finished again", "the notification is replaced", "run-r1")[0]
        self.assertTrue(shown["renotify"])
        # Quiet hours: silent.
        self.push(message("run-r2", "Quiet one", quiet=True))
        quiet = self.wait_notifications(lambda s: len(s) == 1, "the quiet notification", "run-r2")[0]
        self.assertTrue(quiet["silent"])
        # A question: Answer takes typed text in Chromium.
        answer = {"action": "answer", "title": "Answer", "token": "rmact_x", "url": "/api/notifications/actions", "input": True}
        self.push(message("question-q1", "Which branch?", kind="question", actions=[answer]))
        asked = self.wait_notifications(lambda s: len(s) == 1, "the question", "question-q1")[0]
        self.assertEqual(asked["actions"], [{"action": "answer", "title": "Answer", "type": "text"}])
        self.assertTrue(asked["requireInteraction"])
        # Withdrawn: closed, nothing else shown.
        self.push(message("run-r1", "x", withdraw=True))
        self.wait_notifications(lambda s: not s, "the withdrawn notification is closed", "run-r1")
        tags = [n["tag"] for n in self.notifications()]
        self.assertNotIn("run-r1", tags)
        self.assertIn("question-q1", tags, "the withdraw closed only its own tag")
        self.assertIn("run-r2", tags)
        # Something that is not a message is still shown, saying what is wrong.
        self.push({"nothing": True})
        bad = self.wait_notifications(lambda s: len(s) == 1, "the unreadable push", "ralph-unreadable")[0]
        self.assertIn("no tag", bad["body"])

    def test_04_a_real_approval_is_shown_allowed_from_its_button_and_withdrawn(self):
        if not self.registration_id:
            self.skipTest("needs the service worker test_02 installs")
        d = self.driver
        status, hook = self.server.api("POST", "/api/notifications/devices", {"name": "test hook", "channel": "webhook", "webhook": {"url": self.sink.url}})
        self.assertEqual(status, 201, hook)
        status, conversation = self.server.api("POST", "/api/conversations", {"cwd": ".", "title": "Notify me"})
        self.assertEqual(status, 201, conversation)
        cid = conversation["id"]
        type(self).conversation_id = cid
        target = os.path.join(self.workspace.ws, "notified.txt")
        status, _ = self.server.api("POST", f"/api/conversations/{cid}/messages",
                                    {"text": model(["bash touch notified.txt"], ["say Done from the lock screen."])})
        self.assertEqual(status, 202)
        approval = self.sink.wait_for(lambda m: m["kind"] == "approval" and not m.get("withdraw"), what="the approval")
        self.assertEqual([a["action"] for a in approval["actions"]], ["allow", "deny"])
        self.assertEqual(approval["path"], f"/#/chats/{cid}")
        self.push(approval)
        shown = self.wait_notifications(lambda s: len(s) == 1, "the approval is shown", approval["tag"])[0]
        self.assertEqual(shown["title"], approval["title"])
        self.assertEqual(shown["actions"], [{"action": "allow", "title": "Allow", "type": "button"},
                                            {"action": "deny", "title": "Deny", "type": "button"}])
        self.assertTrue(shown["requireInteraction"])
        self.assertFalse(os.path.exists(target), "nothing runs before the allow")
        # Allow, as the service worker does it: the token alone, no key, no cookie.
        done = d.execute_async_script(ACTION_JS, approval["tag"], "allow", None)
        self.assertEqual(done.get("result", {}).get("ok"), True, done)
        self.assertTrue(done["result"]["detail"].startswith("Allowed"), done)
        self.assertEqual(done["outcome"]["title"], done["result"]["detail"])
        wait(d, lambda _: os.path.exists(target), timeout=30, message="the allowed command ran")
        # The same button again: refused, with words for the notification.
        again = d.execute_async_script(ACTION_JS, approval["tag"], "allow", None)
        self.assertEqual((again["result"]["ok"], again["result"]["code"]), (False, "action_token_used"), again)
        self.assertEqual(again["outcome"]["title"], "Already done")
        logged = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
        self.assertTrue(all("/api/notifications/actions" in m and "409" in m for m in logged), f"only the refused replay is logged: {logged}")
        # Decided: the server withdraws the approval's notification; delivered to the worker, it closes it.
        withdraw = self.sink.wait_for(lambda m: m.get("withdraw") and m["tag"] == approval["tag"], what="the approval's withdrawal")
        self.push(withdraw)
        self.wait_notifications(lambda s: not s, "the approval's notification is withdrawn", approval["tag"])

    def test_04b_the_conversation_on_screen_is_not_notified(self):
        if not getattr(type(self), "conversation_id", None):
            self.skipTest("needs the conversation test_04 starts")
        d = self.driver
        cid = self.conversation_id
        d.get(self.server.base + f"/#/chats/{cid}")
        one(d, test_id("composer"))
        told = len(self.sink.messages)
        status, _ = self.server.api("POST", f"/api/conversations/{cid}/messages", {"text": model(["bash touch watched.txt"], ["say Seen on screen."])})
        self.assertEqual(status, 202)
        # The page reported that it shows this conversation: the approval is logged as skipped, not sent.
        def skipped(_):
            log = self.server.api("GET", "/api/notifications/deliveries?limit=50")[1]["deliveries"]
            return [e for e in log if e["kind"] == "approval" and e["outcome"] == "skipped"]
        entries = wait(d, skipped, timeout=30, message="the approval is skipped for the person looking at it")
        self.assertEqual(entries[0]["detail"], "the person was looking at it")
        click(self.by_test("approve", timeout=30))
        wait(d, lambda _: os.path.exists(os.path.join(self.workspace.ws, "watched.txt")), timeout=30, message="allowed from the page")
        self.assertFalse([m for m in self.sink.messages[told:] if m["kind"] == "approval" and not m.get("withdraw")],
                         "no approval notification while the conversation is on screen")

    def test_05_device_settings_test_and_remove(self):
        d = self.driver
        devices = self.server.api("GET", "/api/notifications/devices")[1]["devices"]
        hook = next((dev for dev in devices if dev["channel"] == "webhook"), None)
        if not hook:
            status, hook = self.server.api("POST", "/api/notifications/devices", {"name": "test hook", "channel": "webhook", "webhook": {"url": self.sink.url}})
            self.assertEqual(status, 201, hook)
        d.get(self.server.base + "/#/settings")
        row = one(d, f'{test_id("notify-device")}[data-id="{hook["id"]}"]')
        self.assertEqual(text(row.find_element("css selector", test_id("notify-device-key"))), "Key cli", "an admin sees whose device it is")
        click(row.find_element("css selector", test_id("notify-device-settings-toggle")))
        form = row.find_element("css selector", test_id("notify-device-form"))
        wait(d, lambda _: form.is_displayed(), message="the device's settings open")
        for kind in ["run_silent", "turn_stalled"]:
            click(form.find_element("css selector", f'[data-kind="{kind}"]'))
        click(form.find_element("css selector", '[data-privacy="private"]'))
        zone = d.execute_script("return Intl.DateTimeFormat().resolvedOptions().timeZone")
        start = form.find_element("css selector", test_id("notify-quiet-start"))
        d.execute_script("arguments[0].value = '22:00'; arguments[1].value = '07:30'", start, form.find_element("css selector", test_id("notify-quiet-end")))
        click(form.find_element("css selector", test_id("notify-save")))
        wait(d, lambda _: form.find_element("css selector", test_id("notify-settings-saved")).is_displayed(), message="saved")
        saved = next(dev for dev in self.server.api("GET", "/api/notifications/devices")[1]["devices"] if dev["id"] == hook["id"])
        self.assertEqual(saved["kinds"], ["approval", "question", "run_finished", "auto_reply", "run_suspended"])
        self.assertEqual(saved["privacy"], "private")
        self.assertEqual(saved["quiet_hours"], {"start": "22:00", "end": "07:30", "time_zone": zone})
        # A half-typed window is refused before anything is sent.
        d.execute_script("arguments[0].value = ''", start)
        click(form.find_element("css selector", test_id("notify-save")))
        error = form.find_element("css selector", test_id("notify-settings-error"))
        wait(d, lambda _: error.is_displayed(), message="the quiet hours problem is shown")
        self.assertIn("both", text(error))
        # Send test: the outcome in words.
        before = len(self.sink.messages)
        click(row.find_element("css selector", test_id("notify-test")))
        outcome = row.find_element("css selector", test_id("notify-test-outcome"))
        wait(d, lambda _: outcome.is_displayed(), timeout=20, message="the test's outcome")
        self.assertEqual(outcome.get_attribute("data-outcome"), "delivered", text(outcome))
        self.assertIn("Test sent", text(outcome))
        self.sink.wait_for(lambda m: m["subject"] == "test", what="the test message")
        self.assertGreater(len(self.sink.messages), before)
        # The whole card in one picture: a phone's width, tall enough for it.
        height = d.execute_script("return document.querySelector('[data-test=notifications]').getBoundingClientRect().height")
        d.set_window_size(390, int(height) + 300)
        d.execute_script("arguments[0].scrollIntoView({block: 'start'})", self.by_test("notifications"))
        screenshot(d, "21-notifications")
        d.set_window_size(390, 844)
        self.assertEqual(d.execute_script(UNLABELLED_JS), [], "controls without an accessible name")
        low = [c for c in d.execute_script(CONTRAST_JS, '[data-test="notifications"] *') if c["ratio"] < c["need"]]
        self.assertEqual(low, [], "text below the WCAG AA contrast ratio")
        # Remove, confirmed: gone from the page and the server.
        click(row.find_element("css selector", test_id("notify-remove")))
        click(self.by_test("confirm"))
        wait(d, lambda _: not css(d, f'{test_id("notify-device")}[data-id="{hook["id"]}"]'), message="the device is gone from the list")
        self.assertNotIn(hook["id"], [dev["id"] for dev in self.server.api("GET", "/api/notifications/devices")[1]["devices"]])

    def test_05b_unsubscribe(self):
        device = getattr(type(self), "web_push_device", None)
        if not device:
            self.skipTest("needs the subscription test_02b makes")
        d = self.driver
        d.get(self.server.base + "/#/settings")
        click(self.by_test("notify-unsubscribe"))
        wait(d, lambda _: self.by_test("notify-subscribed").get_attribute("data-value") == "unsubscribed", message="unsubscribed")
        self.assertNotIn(device, [dev["id"] for dev in self.server.api("GET", "/api/notifications/devices")[1]["devices"]])
        self.assertIsNone(d.execute_script("return localStorage.getItem('ralph.notify.device')"))
        self.assertIsNone(d.execute_script("return localStorage.getItem('test.push')"), "the browser's subscription was dropped")

    def test_05c_add_a_webhook_from_settings(self):
        d = self.driver
        d.get(self.server.base + "/#/settings")
        click(self.by_test("notify-add-toggle"))
        form = self.by_test("notify-add")
        wait(d, lambda _: form.is_displayed(), message="the add form opens")
        from selenium.webdriver.support.ui import Select
        Select(self.by_test("notify-add-channel")).select_by_value("webhook")
        self.by_test("notify-add-name").send_keys("CI hook")
        self.by_test("notify-add-url").send_keys(self.sink.url)
        click(form.find_element("css selector", "button[type=submit]"))
        secret = self.by_test("notify-webhook-secret", timeout=20)
        self.assertTrue(len(text(secret)) >= 16, "the generated secret is shown once")
        added = [dev for dev in self.server.api("GET", "/api/notifications/devices")[1]["devices"] if dev["name"] == "CI hook"]
        self.assertEqual([(dev["channel"], dev["target"]) for dev in added], [("webhook", self.sink.url)])
        wait(d, lambda _: css(d, f'{test_id("notify-device")}[data-id="{added[0]["id"]}"]'), message="the list shows it")
        # A URL the server refuses: its sentence is shown.
        self.by_test("notify-add-name").send_keys("bad")
        url = self.by_test("notify-add-url")
        d.execute_script("arguments[0].type = 'text'", url)
        url.send_keys("ftp://example.com/x")
        click(form.find_element("css selector", "button[type=submit]"))
        problem = self.by_test("notify-add-error")
        wait(d, lambda _: problem.is_displayed(), message="the refusal is shown")
        self.assertIn("Not added: invalid_body", text(problem))
        logged = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
        self.assertTrue(all("/api/notifications/devices" in m and "400" in m for m in logged), f"only the refused URL is logged: {logged}")

    def test_06_a_viewer_cannot_add_a_webhook_and_is_told_why(self):
        viewer = self.viewer_key
        status, body = self.server.api("POST", "/api/notifications/devices", {"name": "v", "channel": "webhook", "webhook": {"url": self.sink.url}}, key=viewer)
        self.assertEqual(status, 403, body)
        d = self.driver
        d.get(self.server.base + "/#/settings")
        click(self.by_test("logout"))
        key = one(d, "#login-key")
        key.send_keys(viewer)
        click(one(d, "form.login button[type=submit]"))
        wait(d, lambda _: css(d, "#tabbar:not([hidden])"), message="logged in as viewer")
        d.get(self.server.base + "/#/settings")
        card = self.by_test("notifications")
        wait(d, lambda _: "needs an operator key" in text(card), message="the viewer is told why there is no form")
        self.assertFalse(css(d, test_id("notify-add")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
