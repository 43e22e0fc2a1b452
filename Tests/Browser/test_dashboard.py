"""The web dashboard in headless Chromium against the real server, as a person on a phone (390×844) uses it.

Chats run the real Claude Code CLI against fake-anthropic: a message starting with `#model` scripts the model's replies
(see the header of Sources/fake-anthropic/FakeAnthropic.swift), so what a test checks is what the CLI really did (a
file written after an allow, the model told of a deny).

Run: `eval "$(scripts/agent-clis)"` once (the pinned claude), then `/usr/bin/python3 -m unittest discover -s
Tests/Browser -v` after `swift build --build-tests` (scripts/test does all of it). Screenshots of every screen are
written to docs/screenshots/.
"""

import unittest

from dashboard_base import DashboardBase
from walk_admin import AdminWalk
from walk_chat import ChatWalk
from walk_runs import RunsWalk


class Dashboard(RunsWalk, ChatWalk, AdminWalk, DashboardBase, unittest.TestCase):
    """One server, one live ralph run and one browser, walked through in order (the tests are numbered; the steps are
    in walk_runs.py, walk_chat.py and walk_admin.py, the set-up and helpers in dashboard_base.py)."""


if __name__ == "__main__":
    unittest.main(verbosity=2)
