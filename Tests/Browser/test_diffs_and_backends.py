"""Diffs of file edits and the second agent backend, in headless Chromium on a phone (390×844), against the real
server running the real Claude Code CLI (fake-anthropic) and the real Codex CLI (fake-openai).

- An edit approval shows its diff in the sheet (path, kind, counts, numbered lines, added green and removed red, long
  lines scrolling inside the diff, never the page), in every theme; allowing it shows the applied diff on the tool
  call in the transcript, and again after a reload (the stored call).
- The New conversation sheet lists both backends with their own permission modes; a Codex conversation is created
  from the page and replies; its row and header name it; Settings lists every agent.
- A Codex patch waits in the approvals inbox with its diff folded into the row and into the batch confirmation.
- A diff too long to show whole says how many lines it leaves out; an edit outside the workspace roots says why it has
  no diff; a denied edit shows no applied diff.
- A server that cannot run Codex shows it greyed out with the reason, in the picker and in Settings.

Run alone: `/usr/bin/python3 -m unittest Tests/Browser/test_diffs_and_backends.py -v` (after `swift build`, with
`eval "$(scripts/agent-clis)"`). `RALPH_MOBILE_WEB_ROOT=Sources/RalphMobileServer/Resources/web` serves the dashboard
as it is in the tree instead of the built copy.
"""

import os
import time
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from dashboard_base import click, read, text
from harness import (CONTRAST_JS, UNLABELLED_JS, FakeAnthropic, FakeOpenAI, Server, Workspace, css, make_driver, model, one,
                     screenshot, severe_console_errors, test_id, wait)

# A file with a line long enough to need sideways scrolling on a phone, right next to the line the edit changes.
NOTES = "".join(f"line {n}\n" for n in range(1, 9)) + "beta\n" + ("a long line " * 20).strip() + "\n" + "".join(
    f"line {n}\n" for n in range(11, 16))

# The computed colours of a diff's rows, by kind.
ROW_COLOURS_JS = r"""
const out = {};
for (const tr of arguments[0].querySelectorAll('tr[data-kind]')) {
  const td = tr.querySelector('.diff-code');
  const m = getComputedStyle(td).backgroundColor.match(/\d+(\.\d+)?/g).map(Number);
  out[tr.dataset.kind] = m.slice(0, 3);
}
return out;
"""


class DiffsAndBackends(unittest.TestCase):
    """One trusted loopback server (no login) that runs both agents, and one browser; the tests run in order."""

    @classmethod
    def setUpClass(cls):
        cls.workspace = Workspace()
        cls.anthropic = FakeAnthropic(cls.workspace.dir)
        cls.openai = FakeOpenAI(cls.workspace.dir)
        cls.server = Server(cls.workspace, cls.anthropic, api_key=None, openai=cls.openai).start()
        cls.driver = make_driver()
        cls.others = []

    @classmethod
    def tearDownClass(cls):
        try:
            cls.driver.quit()
        finally:
            for server in [cls.server, *cls.others]:
                server.stop()
            cls.anthropic.stop()
            cls.openai.stop()
            if os.environ.get("KEEP_BROWSER_WORKSPACE"):
                print("workspace kept at", cls.workspace.dir)
            else:
                cls.workspace.cleanup()

    def tearDown(self):
        self.assertEqual(severe_console_errors(self.driver), [], "the browser console has errors")

    # Helpers

    def go(self, hash_path, server=None):
        self.driver.get((server or self.server).base + "/#" + hash_path)

    def by_test(self, name, timeout=15):
        return one(self.driver, test_id(name), timeout)

    def replies(self):
        return "\n".join(text(m) for m in css(self.driver, f'{test_id("message")}[data-role="assistant"]'))

    def create(self, backend, title):
        status, c = self.server.api("POST", "/api/conversations", {"cwd": ".", "backend": backend, "title": title})
        self.assertEqual(status, 201, c)
        return c["id"]

    def send(self, message):
        composer = self.by_test("composer")
        self.driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))",
                                   composer, message)
        click(self.by_test("send"))
        wait(self.driver, lambda _: composer.get_attribute("value") == "", message="the message was sent")

    def wait_idle(self, conversation, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            c = self.server.api("GET", f"/api/conversations/{conversation}")[1]
            if c["status"] == "idle" and not c["queued"]:
                return c
            time.sleep(0.2)
        raise AssertionError(f"the conversation is still busy after {timeout}s")

    def check_accessible(self, name):
        self.assertEqual(self.driver.execute_script(UNLABELLED_JS), [], f"{name}: controls without an accessible name")
        low = [c for c in self.driver.execute_script(CONTRAST_JS, "body *:not(svg):not(path)") if c["ratio"] < c["need"]]
        self.assertEqual(low, [], f"{name}: text below the WCAG AA contrast ratio")

    def page_fits(self):
        """The page never scrolls sideways (a diff scrolls inside itself)."""
        return self.driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")

    def diff_rows(self, file_element):
        """[kind, old number, new number, text] of each line of a diff-file element."""
        return self.driver.execute_script("""
            return [...arguments[0].querySelectorAll('tr.diff-line')].map((tr) => [tr.dataset.kind,
              tr.querySelector('.diff-ln-old').textContent, tr.querySelector('.diff-ln-new').textContent,
              [...tr.querySelector('.diff-code').childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('')]);
        """, file_element)

    def check_colours(self, file_element, where):
        colours = self.driver.execute_script(ROW_COLOURS_JS, file_element)
        add, delete, context = colours["add"], colours["del"], colours["context"]
        self.assertGreater(add[1], add[0], f"{where}: added lines are green: {colours}")
        self.assertGreater(delete[0], delete[1], f"{where}: removed lines are red: {colours}")
        self.assertNotEqual(add, context, f"{where}: added lines stand out")
        self.assertNotEqual(delete, context, f"{where}: removed lines stand out")

    def set_theme(self, name):
        self.driver.execute_script("document.documentElement.dataset.theme = arguments[0]", name)

    # The walk

    def test_1_the_new_conversation_sheet_offers_both_agents_and_a_codex_conversation_replies(self):
        d = self.driver
        status, health = self.server.api("GET", "/api/health")
        self.assertEqual([(a["name"], a.get("error")) for a in health["agents"]], [("claude", None), ("codex", None)])
        self.assertIn("chat_backends:claude,codex", health["capabilities"])
        self.go("/chats")
        click(self.by_test("new-chat"))
        wait(d, lambda _: len(css(d, test_id("chat-backend-option"))) == 2, message="both agents are offered")
        options = css(d, test_id("chat-backend-option"))
        self.assertEqual([o.get_attribute("data-backend") for o in options], ["claude", "codex"])
        self.assertIn("Claude Code", text(options[0]))
        self.assertIn("Codex", text(options[1]))
        self.assertEqual([o.get_attribute("data-usable") for o in options], ["true", "true"])
        radios = css(d, test_id("chat-backend"))
        self.assertTrue(radios[0].is_selected(), "Claude is chosen first")
        select = Select(self.by_test("chat-permission-mode"))
        claude_modes = [m for m in health["agents"][0]["permission_modes"] if m != "default"]
        self.assertEqual([o.get_attribute("value") for o in select.options], ["default"] + claude_modes)
        click(options[1])
        wait(d, lambda _: [o.get_attribute("value") for o in Select(self.by_test("chat-permission-mode")).options]
             == ["untrusted", "on-request", "never"], message="Codex's own modes")
        select = Select(self.by_test("chat-permission-mode"))
        self.assertEqual(select.first_selected_option.get_attribute("value"), "untrusted", "its default first")
        self.assertIn("Codex", self.by_test("chat-first-message").get_attribute("placeholder"))
        screenshot(d, "22-new-chat-backends")
        self.check_accessible("new conversation sheet")
        self.by_test("chat-title").send_keys("Codex notes")
        click(self.by_test("chat-create"))
        wait(d, lambda _: "#/chats/" in d.current_url, message="the conversation opens")
        conversation = d.current_url.split("#/chats/")[1]
        self.assertEqual(self.server.api("GET", f"/api/conversations/{conversation}")[1]["backend"], "codex")
        badge = self.by_test("chat-backend")
        self.assertEqual((badge.get_attribute("data-backend"), text(badge)), ("codex", "Codex"))
        self.send(model(["say Hello from Codex."]))
        wait(d, lambda _: "Hello from Codex." in self.replies(), timeout=60, message="Codex replies")
        self.assertTrue(self.openai.requests(), "the reply came from fake-openai, through the real Codex")
        self.assertFalse([r for r in self.anthropic.requests() if "Hello from Codex" in str(r)], "not through Claude")
        self.go("/chats")
        row = one(d, f'{test_id("chat-row")}[data-id="{conversation}"]')
        wait(d, lambda _: row.find_elements(By.CSS_SELECTOR, test_id("chat-row-backend")), message="the row names the agent")
        self.assertEqual(text(row.find_element(By.CSS_SELECTOR, test_id("chat-row-backend"))), "Codex")
        screenshot(d, "27-chats-codex")

    def test_2_an_edit_approval_shows_its_diff_and_the_transcript_what_it_changed(self):
        d = self.driver
        self.workspace.write("notes.txt", NOTES)
        conversation = self.create("claude", "Edit notes")
        self.go("/chats/" + conversation)
        self.by_test("composer")
        self.send(model(["say Changing one line.", "edit notes.txt :: beta :: BETA"], ["say Edited."]))
        sheet = self.by_test("approval-sheet", timeout=60)
        files = wait(d, lambda _: sheet.find_elements(By.CSS_SELECTOR, test_id("diff-file")), message="the diff in the sheet")
        self.assertEqual(len(files), 1)
        file = files[0]
        self.assertEqual(file.get_attribute("data-kind"), "update")
        self.assertEqual(text(file.find_element(By.CSS_SELECTOR, test_id("diff-path"))), "notes.txt")
        self.assertEqual(text(file.find_element(By.CSS_SELECTOR, test_id("diff-kind"))), "modified")
        self.assertIn("+1 \u22121", text(file.find_element(By.CSS_SELECTOR, test_id("diff-counts"))))
        rows = self.diff_rows(file)
        self.assertIn(["del", "9", "", "beta"], rows)
        self.assertIn(["add", "", "9", "BETA"], rows)
        self.assertIn(["context", "8", "8", "line 8"], rows)
        self.assertTrue(file.find_element(By.CSS_SELECTOR, "tr.diff-hunk-head").is_displayed())
        self.check_colours(file, "approval sheet")
        scroller = file.find_element(By.CSS_SELECTOR, ".diff-scroll")
        self.assertTrue(d.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", scroller),
                        "the long line scrolls inside the diff")
        self.assertTrue(self.page_fits(), "the page itself does not scroll sideways")
        self.assertFalse(css(d, test_id("approval-sheet") + " .approval-input[open]"), "the full input stays folded")
        self.assertIn("Message to Claude if you deny", text(sheet))
        screenshot(d, "23-approval-diff")
        self.check_accessible("approval sheet with a diff")
        try:
            for theme in ["light", "contrast"]:
                self.set_theme(theme)
                self.check_colours(file, f"approval sheet, {theme}")
                self.check_accessible(f"approval sheet with a diff, {theme}")
                if theme == "light":
                    screenshot(d, "24-approval-diff-light")
        finally:
            self.set_theme("cyberpunk")
        self.assertEqual(read(os.path.join(self.workspace.ws, "notes.txt")), NOTES, "nothing changed before the allow")
        click(self.by_test("approve"))
        wait(d, lambda _: "Edited." in self.replies(), timeout=60, message="the turn goes on after the allow")
        self.assertIn("BETA\n", read(os.path.join(self.workspace.ws, "notes.txt")))
        self.check_applied(d, "transcript")
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", self.by_test("tool-diffs"))
        screenshot(d, "25-chat-applied-diff")
        self.check_accessible("transcript with a diff")
        # Read back from the server: the stored tool call has the diff too.
        d.refresh()
        wait(d, lambda _: "Edited." in self.replies(), message="the transcript again")
        self.check_applied(d, "transcript after a reload")

    def check_applied(self, d, where):
        box = wait(d, lambda _: [b for b in css(d, test_id("tool-diffs")) if b.is_displayed()], timeout=30,
                   message=f"{where}: the applied diff on the tool call")[0]
        file = box.find_element(By.CSS_SELECTOR, test_id("diff-file"))
        self.assertEqual(text(file.find_element(By.CSS_SELECTOR, test_id("diff-path"))), "notes.txt")
        self.assertEqual(file.get_attribute("open"), "true", f"{where}: a small diff is open")
        rows = self.diff_rows(file)
        self.assertIn(["del", "9", "", "beta"], rows)
        self.assertIn(["add", "", "9", "BETA"], rows)
        self.check_colours(file, where)
        self.assertTrue(self.page_fits(), f"{where}: the page does not scroll sideways")
        tool = box.find_element(By.XPATH, "./ancestor::*[@data-test='tool-call']")
        self.assertEqual(tool.get_attribute("data-state"), "done")

    def test_3_a_codex_patch_waits_in_the_inbox_with_its_diff_folded(self):
        d = self.driver
        conversation = self.create("codex", "Codex writes")
        status, _ = self.server.api("POST", f"/api/conversations/{conversation}/messages",
                                    {"text": model(["write hello.txt :: hi there"], ["say Wrote it."])})
        self.assertEqual(status, 202)
        self.go("/approvals")
        row = self.by_test("approval-row", timeout=60)
        self.assertIn("apply_patch", text(row))
        fold = wait(d, lambda _: row.find_elements(By.CSS_SELECTOR, test_id("diff-fold")), message="the diff folded into the row")[0]
        self.assertIsNone(fold.get_attribute("open"), "folded at first")
        summary = fold.find_element(By.TAG_NAME, "summary")
        self.assertEqual(text(summary), "Diff hello.txt +1 \u22120")
        click(summary)
        file = fold.find_element(By.CSS_SELECTOR, test_id("diff-file"))
        wait(d, lambda _: file.is_displayed(), message="the fold opens")
        self.assertEqual(file.get_attribute("data-kind"), "add")
        self.assertEqual(text(file.find_element(By.CSS_SELECTOR, test_id("diff-kind"))), "new file")
        self.assertEqual(self.diff_rows(file), [["add", "", "1", "hi there"]])
        self.assertTrue(self.page_fits())
        screenshot(d, "26-approvals-diff")
        self.check_accessible("approvals with a diff")
        # Its sheet names Codex, and shows the diff.
        click(row.find_element(By.CSS_SELECTOR, ".approval-open"))
        sheet = self.by_test("approval-sheet")
        self.assertIn("Message to Codex if you deny", text(sheet))
        self.assertEqual(text(sheet.find_element(By.CSS_SELECTOR, test_id("diff-path"))), "hello.txt")
        self.assertEqual(text(self.by_test("approve-session")), "Allow apply_patch(hello.txt) for this session")
        sheet.send_keys(Keys.ESCAPE)
        wait(d, lambda _: not css(d, test_id("approval-sheet")), message="the sheet closes")
        # Allowed with the batch: its confirmation folds the diff under the call too.
        click(row.find_element(By.CSS_SELECTOR, test_id("approval-select")))
        click(self.by_test("approve-selected"))
        item = self.by_test("batch-item")
        self.assertEqual(text(item.find_element(By.CSS_SELECTOR, test_id("diff-fold") + " summary")), "Diff hello.txt +1 \u22120")
        click(self.by_test("batch-confirm"))
        wait(d, lambda _: not css(d, test_id("approval-row")), timeout=15, message="the row leaves the inbox")
        self.wait_idle(conversation)
        self.assertEqual(read(os.path.join(self.workspace.ws, "hello.txt")), "hi there\n")
        self.go("/chats/" + conversation)
        wait(d, lambda _: "Wrote it." in self.replies(), message="Codex went on")
        box = wait(d, lambda _: [b for b in css(d, test_id("tool-diffs")) if b.is_displayed()], message="the applied patch")[0]
        self.assertEqual(self.diff_rows(box.find_element(By.CSS_SELECTOR, test_id("diff-file"))), [["add", "", "1", "hi there"]])

    def test_3b_a_long_diff_says_what_it_leaves_out_and_a_path_outside_the_roots_has_none(self):
        d = self.driver
        outside = os.path.join(self.workspace.dir, "outside", "x.txt")
        os.makedirs(os.path.dirname(outside), exist_ok=True)
        big = "\\n".join(f"row {n}" for n in range(1, 1201))
        conversation = self.create("claude", "Big and outside")
        self.go("/chats/" + conversation)
        self.by_test("composer")
        self.send(model([f"write big.txt :: {big}"], [f"write {outside} :: nope"], ["say Both refused."]))
        sheet = self.by_test("approval-sheet", timeout=60)
        file = wait(d, lambda _: sheet.find_elements(By.CSS_SELECTOR, test_id("diff-file")), message="the long diff")[0]
        self.assertEqual(file.get_attribute("data-truncated"), "true")
        self.assertIn("+1200 \u22120", text(file.find_element(By.CSS_SELECTOR, test_id("diff-counts"))), "the counts are of the whole diff")
        cut = text(file.find_element(By.CSS_SELECTOR, test_id("diff-truncated")))
        self.assertRegex(cut, r"^The diff is too long to show whole: \d+ more lines are left out\.$")
        rows = file.find_elements(By.CSS_SELECTOR, "tr.diff-line")
        # The whole diff: its hunk header, 1200 lines and the missing newline's marker.
        self.assertEqual(len(rows) + 1 + int(cut.split(": ")[1].split(" ")[0]), 1202, "shown and left out make the whole diff")
        self.assertTrue(self.page_fits())
        first = sheet.get_attribute("data-id")
        self.by_test("deny-message").send_keys("Too big")
        click(self.by_test("deny"))
        wait(d, lambda _: [s for s in css(d, test_id("approval-sheet")) if s.get_attribute("data-id") != first], timeout=60,
             message="the second call asks")
        sheet = self.by_test("approval-sheet")
        file = sheet.find_element(By.CSS_SELECTOR, test_id("diff-file"))
        self.assertEqual(file.get_attribute("data-error"), "true")
        self.assertEqual(text(file.find_element(By.CSS_SELECTOR, test_id("diff-path"))), outside)
        message = text(file.find_element(By.CSS_SELECTOR, test_id("diff-message")))
        self.assertTrue(message.startswith("No diff: ") and "outside the workspace roots" in message, message)
        self.assertFalse(file.find_elements(By.CSS_SELECTOR, "tr"), "no lines")
        self.by_test("deny-message").send_keys("Not there")
        click(self.by_test("deny"))
        wait(d, lambda _: "Both refused." in self.replies(), timeout=60, message="the turn ends")
        self.assertFalse(os.path.exists(os.path.join(self.workspace.ws, "big.txt")))
        self.assertFalse([b for b in css(d, test_id("tool-diffs")) if b.is_displayed()], "a denied edit changed nothing")

    def test_4_settings_lists_every_agent(self):
        d = self.driver
        self.go("/settings")
        agents = wait(d, lambda _: css(d, test_id("agent")), message="the agents")
        self.assertEqual([(a.get_attribute("data-agent"), a.get_attribute("data-usable")) for a in agents],
                         [("claude", "true"), ("codex", "true")])
        self.assertIn("Codex 0.147.0", text(agents[1]))
        self.assertIn("untrusted, on-request, never", text(agents[1]))
        self.assertIn("Claude Code 2.1.330", text(agents[0]))

    def test_5_a_server_that_cannot_run_codex_shows_it_greyed_out_with_the_reason(self):
        d = self.driver
        workspace = Workspace()
        self.addCleanup(workspace.cleanup)
        other = Server(workspace, self.anthropic, api_key=None, extra_args=["--codex-command", "/nonexistent/codex"]).start()
        self.others.append(other)
        codex = other.api("GET", "/api/health")[1]["agents"][1]
        self.assertEqual(codex["name"], "codex")
        self.assertTrue(codex["error"])
        self.go("/chats", other)
        click(self.by_test("new-chat"))
        option = one(d, f'{test_id("chat-backend-option")}[data-backend="codex"]')
        self.assertEqual(option.get_attribute("data-usable"), "false")
        self.assertFalse(option.find_element(By.CSS_SELECTOR, "input").is_enabled())
        self.assertIn("Not available: " + codex["error"], text(option))
        self.assertTrue(css(d, test_id("chat-backend"))[0].is_selected(), "Claude is chosen")
        screenshot(d, "28-new-chat-codex-unavailable")
        self.check_accessible("new conversation sheet, Codex unavailable")
        self.go("/settings", other)
        agent = one(d, f'{test_id("agent")}[data-agent="codex"]')
        self.assertEqual(agent.get_attribute("data-usable"), "false")
        self.assertIn(codex["error"], text(agent.find_element(By.CSS_SELECTOR, test_id("agent-error"))))


if __name__ == "__main__":
    unittest.main(verbosity=2)
