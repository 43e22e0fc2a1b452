"""The dashboard walk, steps 10-11: a conversation with the real Claude Code CLI against fake-anthropic (streaming,
approvals from the sheet, a failed turn, session rules, API retries, a turn the agent starts by itself, auto-reply)."""

import os
import re
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from harness import css, model, one, screenshot, test_id, wait
from dashboard_base import click, text


class ChatWalk:
    """Steps of the ordered walk (a mixin of test_dashboard.Dashboard)."""

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
