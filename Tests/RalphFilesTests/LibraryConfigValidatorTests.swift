import Foundation
import Testing

@testable import RalphFiles

/// A config with exactly one thing ralph refuses, and a word the problem must mention.
struct LibraryConfigCase: Sendable, CustomTestStringConvertible {
    let label: String
    let yaml: String
    let mentions: String

    var testDescription: String { label }
}

@Suite("Library: ralph config validation")
struct LibraryConfigValidatorTests {
    static let realistic = """
        # Feature Development Preset
        event_loop:
          prompt_file: PROMPT.md
          completion_promise: LOOP_COMPLETE
          starting_event: build.start
          max_iterations: 100
          max_runtime_seconds: 14400
          max_cost_usd: 25.5
          max_consecutive_failures: 5
          cooldown_delay_seconds: 0
          persistent: false
          checkpoint_interval: 5
        cli:
          backend: claude
          prompt_mode: arg
          default_mode: autonomous
          idle_timeout_secs: 30
          args: ["--verbose", "--model", "opus"]
        core:
          scratchpad: .ralph/agent/scratchpad.md
          specs_dir: .ralph/specs/
          guardrails:
            - Run the tests before publishing build.done
        hats:
          planner:
            name: "📋 Planner"
            description: Plans the work and hands out one task at a time
            triggers: [build.start, build.blocked]
            publishes: [build.task]
          builder:
            name: Builder
            description: Implements one task
            triggers: [build.task, review.changes_requested]
            publishes: [build.done, build.blocked]
            default_publishes: build.done
            max_activations: 10
            instructions: |
              Build exactly one task.
              Publish build.done when the tests pass.
            extra_instructions:
              - Keep commits small
            backend:
              type: kiro
              agent: builder
          reviewer:
            name: Reviewer
            description: >
              Reviews the change.
            triggers: [build.done]
            publishes: [review.approved, review.changes_requested]
            backend: claude
        events:
          build.done:
            description: A task is built
        memories:
          enabled: true
          inject: auto
          budget: 2000
        tasks:
          enabled: true
        skills:
          enabled: true
          dirs: []
        features:
          parallel: true
          auto_merge: false
        RObot:
          enabled: true
          timeout_seconds: 300
          checkin_interval_seconds: 60
          telegram:
            bot_token: "123:abc"
        """

    @Test("a realistic valid config has no problems")
    func realisticConfig() {
        #expect(RalphConfigValidator.problems(in: Self.realistic) == [])
    }

    @Test("minimal configs ralph accepts have no problems")
    func minimalConfigs() {
        for yaml in [
            "cli:\n  backend: claude\n",
            "event_loop:\n  max_iterations: 1\n",
            "event_loop:\n  prompt: Do the thing\n",
            "event_loop:\n  prompt: Do the thing\n  prompt_file: PROMPT.md\n",
            "cli:\n  backend: custom\n  command: my-agent\n",
            "RObot:\n  enabled: false\n",
            "hats: {}\n",
            "max_iterations: 20\n",
            "{}\n",
        ] {
            #expect(RalphConfigValidator.problems(in: yaml) == [], "\(yaml)")
        }
    }

    @Test("unknown keys are allowed, as ralph ignores them")
    func unknownKeys() {
        let yaml = """
            some_future_key:
              nested: [1, 2, 3]
            event_loop:
              max_iterations: 10
              brand_new_option: true
            cli:
              backend: claude
              experimental: {a: 1}
            hats:
              builder:
                name: Builder
                description: Builds
                triggers: [build.task]
                color: red
                wave: {size: 3}
            """
        #expect(RalphConfigValidator.problems(in: yaml) == [])
    }

    static let oneProblem: [LibraryConfigCase] = [
        LibraryConfigCase(label: "invalid YAML", yaml: "event_loop:\n  max_iterations: [1, 2\n", mentions: "not valid YAML"),
        LibraryConfigCase(label: "invalid YAML (bad indentation)", yaml: "cli:\n  backend: claude\n bad: x\n", mentions: "not valid YAML"),
        LibraryConfigCase(label: "a list at the root", yaml: "- event_loop\n- cli\n", mentions: "YAML mapping"),
        LibraryConfigCase(label: "a scalar at the root", yaml: "just a sentence\n", mentions: "YAML mapping"),
        LibraryConfigCase(label: "a number at the root", yaml: "42\n", mentions: "YAML mapping"),
        LibraryConfigCase(
            label: "a hat without name", yaml: "hats:\n  builder:\n    description: Builds\n    triggers: [build.task]\n", mentions: "hats.builder.name"
        ),
        LibraryConfigCase(
            label: "a hat without description", yaml: "hats:\n  builder:\n    name: Builder\n    triggers: [build.task]\n",
            mentions: "hats.builder.description"
        ),
        LibraryConfigCase(
            label: "a hat with a blank description", yaml: "hats:\n  builder:\n    name: Builder\n    description: \"  \"\n",
            mentions: "hats.builder.description"
        ),
        LibraryConfigCase(
            label: "a hat triggered by task.start", yaml: "hats:\n  planner:\n    name: Planner\n    description: Plans\n    triggers: [task.start]\n",
            mentions: "task.start"
        ),
        LibraryConfigCase(
            label: "a hat triggered by task.resume",
            yaml: "hats:\n  planner:\n    name: Planner\n    description: Plans\n    triggers: [plan.start, task.resume]\n", mentions: "task.resume"
        ),
        LibraryConfigCase(
            label: "the same trigger in two hats",
            yaml: """
                hats:
                  builder:
                    name: Builder
                    description: Builds
                    triggers: [build.task]
                  other:
                    name: Other
                    description: Also builds
                    triggers: [other.start, build.task]
                """,
            mentions: "build.task"
        ),
        LibraryConfigCase(
            label: "prompt and a custom prompt_file", yaml: "event_loop:\n  prompt: Do it\n  prompt_file: custom.md\n", mentions: "prompt_file"
        ),
        LibraryConfigCase(label: "an empty completion_promise", yaml: "event_loop:\n  completion_promise: \"\"\n", mentions: "completion_promise"),
        LibraryConfigCase(label: "a blank completion_promise", yaml: "event_loop:\n  completion_promise: \"   \"\n", mentions: "completion_promise"),
        LibraryConfigCase(label: "a custom backend without command", yaml: "cli:\n  backend: custom\n", mentions: "cli.command"),
        LibraryConfigCase(label: "a custom backend with an empty command", yaml: "cli:\n  backend: custom\n  command: \"\"\n", mentions: "cli.command"),
        LibraryConfigCase(label: "RObot enabled without timeout_seconds", yaml: "RObot:\n  enabled: true\n", mentions: "timeout_seconds"),
        LibraryConfigCase(label: "max_iterations as a word", yaml: "event_loop:\n  max_iterations: \"ten\"\n", mentions: "max_iterations"),
        LibraryConfigCase(label: "max_iterations as a plain word", yaml: "event_loop:\n  max_iterations: ten\n", mentions: "max_iterations"),
        LibraryConfigCase(label: "max_iterations 0", yaml: "event_loop:\n  max_iterations: 0\n", mentions: "max_iterations"),
        LibraryConfigCase(label: "max_iterations negative", yaml: "event_loop:\n  max_iterations: -5\n", mentions: "max_iterations"),
        LibraryConfigCase(label: "hats as a list", yaml: "hats:\n  - builder\n  - reviewer\n", mentions: "hats"),
        LibraryConfigCase(label: "a hat that is not a mapping", yaml: "hats:\n  builder: just a string\n", mentions: "hats.builder"),
        LibraryConfigCase(
            label: "triggers not a list", yaml: "hats:\n  builder:\n    name: Builder\n    description: Builds\n    triggers: build.task\n",
            mentions: "triggers"
        ),
        LibraryConfigCase(
            label: "publishes with a non-string", yaml: "hats:\n  builder:\n    name: Builder\n    description: Builds\n    publishes: [build.done, {x: 1}]\n",
            mentions: "publishes"
        ),
        LibraryConfigCase(label: "event_loop not a mapping", yaml: "event_loop: 5\n", mentions: "event_loop"),
        LibraryConfigCase(label: "cli.args not a list of strings", yaml: "cli:\n  args: --verbose\n", mentions: "cli.args"),
        LibraryConfigCase(label: "persistent not a boolean", yaml: "event_loop:\n  persistent: sometimes\n", mentions: "persistent"),
        LibraryConfigCase(label: "max_cost_usd not a number", yaml: "event_loop:\n  max_cost_usd: lots\n", mentions: "max_cost_usd"),
        LibraryConfigCase(label: "RObot.timeout_seconds not an integer", yaml: "RObot:\n  enabled: true\n  timeout_seconds: soon\n", mentions: "timeout_seconds"),
    ]

    @Test("a config with one thing ralph refuses has exactly one problem, naming it", arguments: oneProblem)
    func oneProblemEach(_ testCase: LibraryConfigCase) {
        let problems = RalphConfigValidator.problems(in: testCase.yaml)
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.contains(testCase.mentions) == true, "\(problems)")
    }

    @Test("the messages say what is wrong")
    func messages() {
        #expect(RalphConfigValidator.problems(in: "hats:\n  builder:\n    description: Builds\n") == ["hats.builder.name is required (a string)"])
        #expect(RalphConfigValidator.problems(in: "event_loop:\n  max_iterations: \"ten\"\n") == ["event_loop.max_iterations must be an integer, not a string"])
        #expect(RalphConfigValidator.problems(in: "event_loop:\n  max_iterations: 0\n") == ["event_loop.max_iterations must be at least 1"])
        #expect(RalphConfigValidator.problems(in: "cli:\n  backend: custom\n") == ["cli.backend 'custom' needs cli.command"])
        #expect(RalphConfigValidator.problems(in: "RObot:\n  enabled: true\n") == ["RObot.enabled needs RObot.timeout_seconds"])
        #expect(RalphConfigValidator.problems(in: "- a\n") == ["a ralph config is a YAML mapping (key: value), not a list"])
        #expect(RalphConfigValidator.problems(in: "hats:\n  p:\n    name: P\n    description: d\n    triggers: [task.start]\n") == [
            "hats.p cannot be triggered by 'task.start' (reserved for the loop)"
        ])
        #expect(RalphConfigValidator.problems(in: "hats:\n  a:\n    name: A\n    description: d\n    triggers: [x]\n  b:\n    name: B\n    description: d\n    triggers: [x]\n") == [
            "'x' triggers both hats.a and hats.b (ambiguous routing)"
        ])
    }

    @Test("every problem of a config is reported")
    func severalProblems() {
        let yaml = """
            event_loop:
              max_iterations: 0
              completion_promise: ""
            cli:
              backend: custom
            hats:
              builder:
                triggers: [task.start]
            """
        let problems = RalphConfigValidator.problems(in: yaml)
        #expect(problems.count == 6, "\(problems)")
    }

    @Test("_suppress_warnings: true skips the checks")
    func suppressWarnings() {
        let yaml = """
            _suppress_warnings: true
            event_loop:
              max_iterations: 0
            cli:
              backend: custom
            hats:
              builder:
                triggers: [task.start]
            """
        #expect(RalphConfigValidator.problems(in: yaml) == [])
        // Not when it is false; and invalid YAML is still invalid.
        #expect(!RalphConfigValidator.problems(in: yaml.replacingOccurrences(of: "_suppress_warnings: true", with: "_suppress_warnings: false")).isEmpty)
        #expect(RalphConfigValidator.problems(in: "_suppress_warnings: true\nhats: [unclosed\n").count == 1)
    }

    /// Found by Fuzz/preset-yaml: Yams force-unwraps every mapping key as a string, so `[a]: b` trapped the server on a
    /// config import or on listing a workspace whose preset or `ralph.yml` had such a key.
    @Test("a mapping key that is a list or a mapping is invalid YAML, not a crash")
    func nonScalarKeys() {
        for yaml in ["[a]: b\n", "{a: b}: c\n", "hats:\n  ? [builder]\n  : {name: B}\n", "- x: 1\n  ? {y: 2}\n"] {
            let problems = RalphConfigValidator.problems(in: yaml)
            #expect(problems.count == 1 && problems[0].hasPrefix("not valid YAML: a mapping key must be a plain value"), "\(yaml): \(problems)")
            #expect(RalphYAML.mapping(yaml) == nil)
        }
        #expect(RalphConfigValidator.problems(in: "hats:\n  ? [builder]\n  : {name: B}\n") == [
            "not valid YAML: a mapping key must be a plain value, not a list or a mapping (line 2)"
        ])
        // Scalar keys of every kind still load.
        #expect(RalphYAML.mapping("1: a\ntrue: b\n? c\n: d\n")?.count == 3)
    }

    @Test(
        "a whole float for an integer field is refused, as serde refuses it for ralph's integer fields"
    )
    func wholeFloatForInteger() {
        #expect(RalphConfigValidator.problems(in: "event_loop:\n  max_iterations: 10.0\n").count == 1)
    }

    @Test(
        "hat strings that YAML 1.1 reads as booleans (on, off, yes, no) are strings to ralph"
    )
    func yaml11Booleans() {
        let yaml = """
            hats:
              switch:
                name: Switch
                description: No
                triggers: [on, off]
                publishes: [yes]
            """
        #expect(RalphConfigValidator.problems(in: yaml) == [])
    }
}
