"""End-to-end harness for the web dashboard: the real server, the real Claude Code CLI (and Codex CLI), headless Chromium.

Everything is real except what cannot run here: `ralph` is replaced by the package's `fake-ralph` (its real file
layout), and the Anthropic Messages API the real `claude` CLI (2.1.330, from `scripts/agent-clis`) talks to is the
package's `fake-anthropic`, whose replies are scripted in the prompt (`#model` …); a server given a `FakeOpenAI` also
runs the real `codex` CLI (0.147.0) against `fake-openai`, scripted the same way. The server runs from the package's
build directory (so it serves the dashboard bundled as SwiftPM resources) on a free port, in a temporary workspace;
it is stopped and started again on the same port to test resuming.

The pieces live in their own modules (products, fake_anthropic, fake_openai, workspace_files, processes, browser,
page_checks); this module gathers them so a test imports everything from one place.
"""

from browser import SCREENSHOTS, css, make_driver, one, screenshot, severe_console_errors, test_id, wait
from fake_anthropic import FakeAnthropic, model
from fake_openai import FakeOpenAI
from page_checks import CONTRAST_JS, UNLABELLED_JS
from processes import ADMIN_KEY, Ralph, Server
from products import BIN, ROOT, claude_path, codex_path, product
from workspace_files import Workspace

__all__ = ["ADMIN_KEY", "BIN", "CONTRAST_JS", "ROOT", "SCREENSHOTS", "UNLABELLED_JS", "FakeAnthropic", "FakeOpenAI", "Ralph", "Server",
           "Workspace", "claude_path", "codex_path", "css", "make_driver", "model", "one", "product", "screenshot", "severe_console_errors",
           "test_id", "wait"]
