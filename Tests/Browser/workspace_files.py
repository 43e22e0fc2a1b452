"""The browser tests' temporary workspace: ralph's configuration, a preset, prompts and a skill, and the server's
data directory beside it."""

import os
import shutil
import tempfile


def hats(*team):
    """The `hats:` section of a ralph configuration; each hat is (key, name, description, triggers, publishes)."""
    lines = ["hats:"]
    for key, name, description, triggers, publishes in team:
        lines += [f"  {key}:", f"    name: {name}", f"    description: {description}", f"    triggers: [{', '.join(triggers)}]",
                  f"    publishes: [{', '.join(publishes)}]"]
    return "\n".join(lines) + "\n"


def fake_ralph(iterations):
    """How many iterations `fake-ralph` runs, one a second."""
    return f"fake_ralph:\n  iterations: {iterations}\n  pace: 1\n"


# The workspace's own team: the names and topics the walks see in the run screens and the config editor.
RALPH_YML = ("# Browser test workspace\ncli:\n  backend: claude\nevent_loop:\n  max_iterations: 1000\n"
             + hats(("planner", '"Planner"', "Plans the work and hands out one task at a time", ["build.start", "build.blocked"], ["build.task"]),
                    ("builder", "Builder", "Implements one task", ["build.task"], ["build.done", "build.blocked"]),
                    ("reviewer", "Reviewer", "Reviews a change", ["build.done"], ["review.approved"]))
             + "skills:\n  dirs: [skills]\n" + fake_ralph(1000))

# A preset the walks start a run from.
FEATURE_YML = ("# Feature Development Preset\nevent_loop:\n  max_iterations: 40\n"
               + hats(("architect", "Architect", "Designs the change before anyone builds it", ["build.start"], ["design.done"]))
               + fake_ralph(40))


class Workspace:
    """A temporary workspace with ralph's files, and the server's data directory beside it."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="rm-browser-")
        self.ws = os.path.join(self.dir, "ws")
        self.data = os.path.join(self.dir, "data")
        for sub in ["presets", "prompts", "skills/deploy"]:
            os.makedirs(os.path.join(self.ws, sub), exist_ok=True)
        os.makedirs(self.data, exist_ok=True)
        self.write("ralph.yml", RALPH_YML)
        self.write("presets/feature.yml", FEATURE_YML)
        self.write("prompts/docs.md", "# Write the docs\nDocument every public function.\n")
        self.write("prompts/refactor.md", "Refactor the payment module so that it uses the new client.\n")
        self.write("skills/deploy/SKILL.md", "---\nname: deploy\ndescription: How to deploy\ntags: [ops]\nhats: [builder]\n---\n# Deploy\nRun make deploy.\n")

    def write(self, relative, text):
        with open(os.path.join(self.ws, relative), "w") as f:
            f.write(text)

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)
