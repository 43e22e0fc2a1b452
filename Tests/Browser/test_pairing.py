"""Pairing a phone by QR code (issue 26), in real Chromium: an admin makes a pairing code in Settings → Pair a phone;
the QR code on the page, as the screen shows it, is read by an independent decoder (`zbarimg`, Debian's zbar-tools);
a fresh phone-sized browser with no key opens the decoded URL, pairs, and uses the dashboard with the new key; the same
URL opened again says the code was already used.

The server listens on every interface (`--bind-all`, with a key), so the QR code holds one of the machine's own
network addresses — what a phone on the network would use — and the phone's browser opens exactly that."""

import os
import subprocess
import tempfile
import types
import unittest

from harness import ADMIN_KEY, Server, Workspace, css, make_driver, one, screenshot, severe_console_errors, test_id, wait
from dashboard_base import click, text

ZBARIMG = "/usr/bin/zbarimg"


def decode_qr(png):
    """The text of the QR code in a PNG image, read by zbarimg."""
    if not os.access(ZBARIMG, os.X_OK):
        raise AssertionError("zbarimg is not installed: apt-get install zbar-tools (.ci/run installs it)")
    with tempfile.NamedTemporaryFile(suffix=".png") as image:
        image.write(png)
        image.flush()
        out = subprocess.run([ZBARIMG, "--raw", "-q", image.name], capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(f"zbarimg read no QR code (status {out.returncode}): {out.stderr}")
    return out.stdout.strip()


class Pairing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workspace = Workspace()
        cls.server = Server(cls.workspace, types.SimpleNamespace(base="http://127.0.0.1:9"), extra_args=["--bind-all"]).start()
        cls.admin = make_driver()
        cls.phone = None
        cls.url = None

    @classmethod
    def tearDownClass(cls):
        try:
            cls.admin.quit()
            if cls.phone:
                cls.phone.quit()
        finally:
            cls.server.stop()
            cls.workspace.cleanup()

    def test_1_admin_makes_a_code_and_the_qr_code_on_screen_decodes_to_its_url(self):
        d = self.admin
        d.get(self.server.base + "/")
        one(d, "#login-key").send_keys(ADMIN_KEY)
        click(one(d, "form.login button[type=submit]"))
        wait(d, lambda _: not one(d, "#tabbar").get_attribute("hidden"), message="logged in")
        d.get(self.server.base + "/#/settings")
        card = one(d, test_id("pairing"))
        name = card.find_element("css selector", test_id("pair-name"))
        name.clear()
        name.send_keys("e2e-phone")
        self.assertEqual(card.find_element("css selector", test_id("pair-role")).get_attribute("value"), "operator", "operator by default")
        click(card.find_element("css selector", test_id("pair-create")))
        qr = one(d, test_id("pair-qr"))
        wait(d, lambda _: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", qr), message="the QR image loaded")
        shown_url = text(one(d, test_id("pair-url")))
        code = text(one(d, test_id("pair-code")))
        self.assertRegex(code, r"^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$")
        self.assertTrue(shown_url.endswith("/pair#code=" + code), shown_url)
        self.assertNotIn(ADMIN_KEY, shown_url)
        self.assertRegex(text(one(d, test_id("pair-countdown"))), r"^Valid for (5:00|4:[45]\d) more, once\.$", "about five minutes left")
        # The QR code as the screen shows it, read by another program than the one that drew it.
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", qr)
        decoded = decode_qr(qr.screenshot_as_png)
        self.assertEqual(decoded, shown_url)
        # --bind-all: a network address of this machine, not the loopback address the admin's browser used.
        self.assertFalse(decoded.startswith("http://127.0.0.1"), f"{decoded}: a phone could not open this")
        self.assertTrue(decoded.startswith("http://") and f":{self.server.port}/pair#code=" in decoded, decoded)
        screenshot(d, "pairing-settings")
        type(self).url = decoded
        self.assertEqual(severe_console_errors(d), [])

    def test_2_a_fresh_phone_opens_the_url_pairs_and_uses_the_dashboard(self):
        if not self.url:
            self.skipTest("needs the URL test_1 decodes (it failed)")
        phone = make_driver()
        type(self).phone = phone
        phone.get(self.url)
        done = one(phone, test_id("pair-done"))
        self.assertEqual(done.get_attribute("data-role"), "operator")
        self.assertIn("logged in as operator", text(done))
        self.assertNotIn("#code=", phone.current_url, "the code leaves the address bar")
        screenshot(phone, "pairing-phone")
        click(one(phone, test_id("pair-open")))
        wait(phone, lambda _: not one(phone, "#tabbar").get_attribute("hidden"), message="the dashboard, logged in")
        self.assertEqual(css(phone, "#login-key"), [], "no login asked for")
        me = phone.execute_async_script(
            "const done = arguments[0]; fetch('/api/whoami').then(r => r.json()).then(done, e => done({error: String(e)}))")
        self.assertEqual((me.get("role"), me.get("via")), ("operator", "cookie"), me)
        # The key the phone is logged in with: made by the pairing, named as asked, of the role asked.
        status, keys = self.server.api("GET", "/api/keys")
        self.assertEqual(status, 200)
        paired = [k for k in keys["keys"] if k["id"] == me.get("key_id")]
        self.assertEqual([(k["name"], k["role"]) for k in paired], [("e2e-phone", "operator")])
        # An operator's dashboard: the sessions screen works, the admins' cards are not there.
        phone.get(self.url.split("/pair")[0] + "/#/settings")
        one(phone, test_id("server-version"))
        self.assertEqual(css(phone, test_id("pairing")) + css(phone, test_id("keys")), [])
        self.assertEqual(severe_console_errors(phone), [])

    def test_3_the_same_url_again_says_the_code_was_used(self):
        if not self.url:
            self.skipTest("needs the URL test_1 decodes (it failed)")
        again = make_driver()
        try:
            again.get(self.url)
            error = one(again, test_id("pair-error"))
            wait(again, lambda _: "already used" in text(error), message="the error says the code was used")
            self.assertTrue(text(error).startswith("This pairing code was already used"), text(error))
            self.assertIsNotNone(one(again, "#pair-code"), "a code can be typed instead")
            screenshot(again, "pairing-used")
            # Only the refused exchange in the console: the page shows it, nothing else failed.
            errors = [e for e in severe_console_errors(again) if "/api/pairing/exchange" not in e]
            self.assertEqual(errors, [])
        finally:
            again.quit()


if __name__ == "__main__":
    unittest.main()
