"""`fake-openai`, the double of the OpenAI Responses API the real `codex` CLI talks to in the browser tests, and the
Codex home that points the CLI at it."""

import os

from fake_anthropic import ModelDouble

# What Codex needs here (as RealCodex.config in Tests/TestSupport/RealAgents.swift writes it): a custom model provider
# at the double speaking the Responses API, no retries, nothing reached at startup (no plugins, apps or remote plugins),
# and `shell_command` rather than unified exec, so a command's output arrives within its turn.
CODEX_CONFIG = """model = "gpt-5.5"
model_provider = "fake"

[features]
plugins = false
apps = false
remote_plugin = false
unified_exec = false

[model_providers.fake]
name = "fake-openai"
base_url = "{base}/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
"""


class FakeOpenAI(ModelDouble):
    """`fake-openai` on a free port; scripts use the same `#model` language as fake-anthropic (`model(...)`)."""

    def __init__(self, directory):
        super().__init__(directory, "fake-openai", "FAKE_OPENAI_LOG", "openai")

    def codex_home(self, directory):
        """Writes a `CODEX_HOME` whose config.toml points Codex at this double; returns its path."""
        home = os.path.join(directory, "codex-home")
        os.makedirs(home, exist_ok=True)
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write(CODEX_CONFIG.format(base=self.base))
        return home
