import Foundation
import RalphAPI
import Testing

/// Permission requests and decisions as the real CLI makes them.
extension FakeClaudeTests {
    @Test("a tool turn answered allow: the request is the real CLI's, the original input is sent back and the tool runs")
    func allowTool() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script("say Let me write.", #"tool Bash {"command":"touch notes.txt","description":"Create notes"}"#, "say All done.", "cost 0.25"))
        let (before, requestID, request) = try #require(await claude.untilPermission())
        #expect(before.texts == ["Let me write."])
        let toolUse = try #require(before.toolUses.first)
        #expect(toolUse.name == "Bash" && toolUse.input == ["command": "touch notes.txt", "description": "Create notes"])
        #expect(UUID(uuidString: requestID) != nil)
        #expect(request["tool_name"] == "Bash" && request["display_name"] == "Bash" && request["tool_use_id"] == .string(toolUse.id))
        #expect(request["input"] == toolUse.input && request["description"] == "Create notes")
        #expect(request["blocked_path"] == .string(home.cwd + "/notes.txt") && request["decision_reason"] == nil)
        #expect(
            request["permission_suggestions"] == [
                ["type": "addRules", "rules": [["toolName": "Bash", "ruleContent": "touch notes.txt *"]], "behavior": "allow", "destination": "localSettings"],
                ["type": "addDirectories", "directories": [.string(home.cwd)], "destination": "session"],
                ["type": "setMode", "mode": "acceptEdits", "destination": "session"],
            ]
        )

        let allow = Input.allow(requestID, input: toolUse.input)
        claude.send(allow)
        let after = await claude.turn()
        let ran = try #require(after.toolResults.first)
        #expect(ran.id == toolUse.id && ran.content == #"ran Bash: {"command":"touch notes.txt","description":"Create notes"}"# && !ran.isError)
        let resultLine = try #require(after.first { $0.is("user") })
        #expect(resultLine["tool_result_meta"] == [["id": .string(toolUse.id), "permission_decision": ["decision": "accept", "source": "user_temporary"]]])
        #expect(after.texts == ["All done."])
        let result = try #require(after.result)
        #expect(result["subtype"] == "success" && result["permission_denials"] == [] && result["total_cost_usd"]?.doubleValue == 0.25)
        #expect(result["num_turns"] == 2)
        #expect(home.stdinLines().last == allow)
        await claude.process.terminate()
    }

    @Test("file tools are asked with the acceptEdits suggestion and their path; outside the working directory also with it")
    func suggestionsForFiles() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        let outside = home.root + "/elsewhere/w.txt"
        claude.send(
            Input.script(
                #"tool Write {"file_path":"\#(home.cwd)/notes/w.txt","content":"hi"}"#, #"tool Edit {"file_path":"\#(outside)"}"#,
                #"tool WebFetch {"url":"https://example.com"}"#
            )
        )
        let acceptEdits: JSONValue = ["type": "setMode", "mode": "acceptEdits", "destination": "session"]
        let write = try #require(await claude.untilPermission())
        #expect(write.request["description"] == "notes/w.txt" && write.request["blocked_path"] == nil && write.request["display_name"] == "Write")
        #expect(write.request["permission_suggestions"] == [acceptEdits] && write.request["decision_reason"] == nil)
        claude.send(Input.allow(write.id, input: write.request["input"] ?? [:]))
        let edit = try #require(await claude.untilPermission())
        #expect(edit.request["description"] == .string(outside))
        #expect(
            edit.request["permission_suggestions"] == [
                acceptEdits, ["type": "addDirectories", "directories": [.string(home.root + "/elsewhere")], "destination": "session"],
            ]
        )
        #expect(edit.request["decision_reason"] == "Path is outside allowed working directories" && edit.request["decision_reason_type"] == "workingDir")
        claude.send(Input.allow(edit.id, input: edit.request["input"] ?? [:]))
        let fetch = try #require(await claude.untilPermission())
        #expect(fetch.request["permission_suggestions"] == [] && fetch.request["description"] == nil)
        await claude.process.terminate()
    }

    @Test("reads run unasked inside the working directory (Read, ls, git status); a Read outside it asks with a directory rule")
    func readsInsideRunUnasked() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(
            Input.script(
                #"tool Read {"file_path":"\#(home.cwd)/a.txt"}"#, #"tool Bash {"command":"ls -la"}"#, #"tool Bash {"command":"git status"}"#,
                #"tool Bash {"command":"ls > list.txt"}"#, #"tool Read {"file_path":"/etc/hostname"}"#, #"tool Read {"file_path":"/etc/hosts"}"#
            )
        )
        let redirect = try #require(await claude.untilPermission())
        #expect(redirect.request["input"]?.objectValue?["command"] == "ls > list.txt")
        #expect(redirect.lines.toolResults.count == 3 && redirect.lines.toolResults.allSatisfy { !$0.isError })
        let meta = redirect.lines.filter { $0.is("user") }.map { $0["tool_result_meta"]?.arrayFirst?.objectValue?["permission_decision"] }
        #expect(
            meta == [
                ["decision": "accept", "source": "config", "reason_type": "mode"], ["decision": "accept", "source": "config", "reason_type": "subcommandResults"],
                ["decision": "accept", "source": "config", "reason_type": "subcommandResults"],
            ]
        )
        claude.send(Input.allow(redirect.id, input: redirect.request["input"] ?? [:]))
        let read = try #require(await claude.untilPermission())
        #expect(read.request["description"] == "/etc/hostname" && read.request["decision_reason_type"] == "workingDir")
        let suggestions = try #require(read.request["permission_suggestions"])
        #expect(suggestions == [["type": "addRules", "rules": [["toolName": "Read", "ruleContent": "//etc/**"]], "behavior": "allow", "destination": "session"]])
        claude.send(Input.allow(read.id, input: read.request["input"] ?? [:], updatedPermissions: suggestions))
        let rest = await claude.turn()
        #expect(rest.permissionRequests == 0 && rest.toolResults.count == 2, "the rule covers /etc/hosts too")
        await claude.process.terminate()
    }

    @Test("tool-auto runs a tool that would be asked about without asking")
    func toolAuto() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script(#"tool-auto Bash {"command":"rm -rf build"}"#, "say gone"))
        let outputs = await claude.turn()
        #expect(outputs.permissionRequests == 0 && outputs.texts == ["gone"])
        #expect(outputs.toolResults.map(\.content) == [#"ran Bash: {"command":"rm -rf build"}"#])
        let line = try #require(outputs.first { $0.is("user") })
        #expect(line["tool_result_meta"]?.arrayFirst?.objectValue?["permission_decision"] == ["decision": "accept", "source": "config"])
        await claude.process.terminate()
    }

    @Test("an allow with changed input runs with it; an empty input is visible as a change")
    func updatedInput() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script(#"tool Write {"file_path":"a.txt"}"#, #"tool Edit {"file_path":"c.txt"}"#))
        let write = try #require(await claude.untilPermission())
        claude.send(Input.allow(write.id, input: ["file_path": "b.txt"]))
        let edit = try #require(await claude.untilPermission())
        #expect(edit.lines.toolResults.map(\.content) == [#"ran Write: {"file_path":"a.txt"} (updated input: {"file_path":"b.txt"})"#])
        // The bug the original input avoids (claude-agent-sdk-python#320): `{}` reaches the tool as empty arguments.
        claude.send(Input.allow(edit.id, input: [:]))
        #expect(await claude.turn().toolResults.map(\.content) == [#"ran Edit: {"file_path":"c.txt"} (updated input: {})"#])
        await claude.process.terminate()
    }

    @Test("a deny gives an error tool result and a denial; a deny with interrupt rejects the tool and ends the turn as aborted_tools")
    func denyTool() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script(#"tool Write {"file_path":"NOTES.md","content":"x"}"#, "say I was not allowed."))
        let write = try #require(await claude.untilPermission())
        claude.send(Input.deny(write.id, message: "User denied on phone"))
        let outputs = await claude.turn()
        #expect(outputs.toolResults.map(\.content) == ["User denied on phone"] && outputs.toolResults.map(\.isError) == [true])
        #expect(outputs.texts == ["I was not allowed."])
        let result = try #require(outputs.result)
        #expect(result["subtype"] == "success" && result["permission_denials"]?.arrayCount == 1)

        claude.send(Input.script(#"tool Bash {"command":"rm -rf build"}"#, "say never said", uuid: "u-9"))
        let bash = try #require(await claude.untilPermission())
        claude.send(Input.deny(bash.id, message: "Stop", interrupt: true))
        var stopped = await claude.turn()
        stopped += await claude.collect { $0.is("command_lifecycle") }
        #expect(stopped.texts.isEmpty)
        #expect(stopped.toolResults.first?.content.stringValue?.hasPrefix("The user doesn't want to proceed with this tool use.") == true)
        let marker = try #require(stopped.last { $0.is("user") && $0["tool_use_result"] == nil })
        #expect(marker["message"] == ["role": "user", "content": [["type": "text", "text": "[Request interrupted by user for tool use]"]]])
        let interrupted = try #require(stopped.result)
        #expect(interrupted["subtype"] == "error_during_execution" && interrupted["is_error"] == true && interrupted["stop_reason"] == "tool_use")
        #expect(interrupted["terminal_reason"] == "aborted_tools")
        #expect(interrupted["errors"] == ["[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=tool_use"])
        #expect(interrupted["permission_denials"]?.arrayCount == 1 && stopped.lifecycle.last == "u-9 cancelled")
        await claude.process.terminate()
    }

    @Test("an interrupt while an approval is pending cancels the request first, then ends the turn as aborted_tools")
    func interruptApproval() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script(#"tool Bash {"command":"make"}"#))
        let permission = try #require(await claude.untilPermission())
        claude.send(Input.interrupt("c-1"))
        let outputs = await claude.turn()
        #expect(outputs.first?.value == ["type": "control_cancel_request", "request_id": .string(permission.id)])
        #expect(outputs.dropFirst().first?["response"] == ["subtype": "success", "request_id": "c-1", "response": ["still_queued": []]])
        #expect(outputs.result?["terminal_reason"] == "aborted_tools")
        // A late answer to the abandoned request changes nothing.
        claude.send(Input.allow(permission.id, input: permission.request["input"] ?? [:]))
        claude.send(Input.user("next"))
        let next = await claude.turn()
        #expect(next.toolResults.isEmpty && next.result?["result"] == "Echo: next")
        await claude.process.terminate()
    }

    @Test("an addRules allow lets matching commands run unasked, is saved to settings.local.json, and the next process reads it")
    func ruleSavedToLocalSettings() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(
            Input.script(
                #"tool Bash {"command":"touch newfile"}"#, #"tool Bash {"command":"touch newfile extra"}"#, #"tool Bash {"command":"touch newfile2"}"#
            )
        )
        let first = try #require(await claude.untilPermission())
        guard case .array(let suggestions)? = first.request["permission_suggestions"] else { throw FakeClaudeTestError("no suggestions") }
        claude.send(Input.allow(first.id, input: first.request["input"] ?? [:], updatedPermissions: [suggestions[0]]))
        let second = try #require(await claude.untilPermission())
        #expect(second.request["input"]?.objectValue?["command"] == "touch newfile2")
        let unasked = try #require(second.lines.last { $0.is("user") })
        #expect(unasked["tool_result_meta"]?.arrayFirst?.objectValue?["permission_decision"] == ["decision": "accept", "source": "config", "reason_type": "subcommandResults"])
        #expect(second.lines.toolResults.map(\.content) == [#"ran Bash: {"command":"touch newfile"}"#, #"ran Bash: {"command":"touch newfile extra"}"#])
        let settings = try String(contentsOfFile: home.cwd + "/.claude/settings.local.json", encoding: .utf8)
        #expect(settings == "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(touch newfile *)\"\n    ]\n  }\n}\n")
        await claude.process.terminate()

        var next = try home.start()
        next.send(Input.script(#"tool Bash {"command":"touch newfile"}"#))
        let outputs = await next.turn()
        #expect(outputs.permissionRequests == 0 && outputs.toolResults.map(\.isError) == [false])
        await next.process.terminate()
    }

    @Test("allowing with every suggestion switches to acceptEdits: a status line, file tools then run unasked, the next init says so")
    func setModeAcceptEdits() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script(#"tool Bash {"command":"touch a"}"#, #"tool Write {"file_path":"w.txt","content":"hi"}"#))
        let permission = try #require(await claude.untilPermission())
        claude.send(Input.allow(permission.id, input: permission.request["input"] ?? [:], updatedPermissions: permission.request["permission_suggestions"]))
        let outputs = await claude.turn()
        let status = try #require(outputs.first { $0.is("system", "status") && $0["permissionMode"] != nil })
        #expect(status["permissionMode"] == "acceptEdits" && status["status"] == .null)
        #expect(outputs.permissionRequests == 0 && outputs.toolResults.count == 2)
        let write = try #require(outputs.last { $0.is("user") })
        #expect(write["tool_result_meta"]?.arrayFirst?.objectValue?["permission_decision"] == ["decision": "accept", "source": "config", "reason_type": "mode"])

        claude.send(Input.user("mode?"))
        let next = await claude.turn()
        #expect(next.first?["permissionMode"] == "acceptEdits" && next.first?["additional_directories"] == [.string(home.cwd)])
        await claude.process.terminate()
    }

    @Test("set_permission_mode and set_model are answered with the new value; the next init shows them")
    func controlRequests() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.control("m-1", ["subtype": "set_permission_mode", "mode": "acceptEdits"]))
        #expect(await claude.next()?.value == ["type": "control_response", "response": ["subtype": "success", "request_id": "m-1", "response": ["mode": "acceptEdits"]]])
        let status = try #require(await claude.next())
        #expect(status.is("system", "status") && status["permissionMode"] == "acceptEdits")
        claude.send(Input.control("m-2", ["subtype": "set_model", "model": "claude-opus-4-1"]))
        #expect(await claude.next()?["response"]?.objectValue?["response"] == ["model": "claude-opus-4-1"])
        claude.send(Input.user("now?"))
        let outputs = await claude.turn()
        #expect(outputs.first?["permissionMode"] == "acceptEdits" && outputs.first?["model"] == "claude-opus-4-1")
        await claude.process.terminate()
    }

    @Test("without a prompt tool, a tool that needs approval is denied automatically; allowed tools and matching rules run")
    func printModeDenial() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start(
            ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--allowedTools", "Read", "Bash(git log:*)"]
        )
        claude.send(
            Input.script(#"tool Write {"file_path":"x"}"#, #"tool Read {"file_path":"x"}"#, #"tool Bash {"command":"git log"}"#, #"tool Bash {"command":"git push"}"#)
        )
        let outputs = await claude.turn()
        #expect(outputs.permissionRequests == 0)
        #expect(outputs.deltas.isEmpty, "no stream events without --include-partial-messages")
        #expect(!outputs.contains { $0.is("system", "status") }, "no status lines without --include-partial-messages")
        #expect(outputs.toolResults.map(\.isError) == [true, false, false, true])
        #expect(outputs.toolResults.first?.content == "Claude requested permissions to write to x, but you haven't granted it yet.")
        #expect(outputs.result?["permission_denials"]?.arrayCount == 2)
        await claude.process.terminate()
    }

    @Test("deny rules and dontAsk deny with the real CLI's messages; a tool disallowed as a whole does not exist at all")
    func denyRulesAndDontAsk() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start(FakeClaudeHome.streamFlags + ["--disallowedTools", "Bash(rm *)", "Write", "--permission-mode", "dontAsk"])
        claude.send(Input.script(#"tool Bash {"command":"rm -rf build"}"#, #"tool Write {"file_path":"x"}"#, #"tool Edit {"file_path":"x"}"#))
        let outputs = await claude.turn()
        guard case .array(let tools)? = outputs.first?["tools"] else { throw FakeClaudeTestError("no tools in init") }
        #expect(tools.contains("Bash") && !tools.contains("Write"))
        #expect(outputs.permissionRequests == 0)
        let results = outputs.toolResults
        #expect(results.map(\.isError) == [true, true, true])
        #expect(results.first?.content == "Permission to use Bash with command rm -rf build has been denied.")
        #expect(
            results.dropFirst().first?.content
                == "<tool_use_error>Error: No such tool available: Write. Write is disabled for this session, in subagents as well as here.</tool_use_error>"
        )
        #expect(results.last?.content.stringValue?.hasPrefix("Permission to use Edit has been denied because Claude Code is running in don't ask mode.") == true)
        let lines = outputs.filter { $0.is("user") }
        #expect(lines.first?["tool_result_meta"]?.arrayFirst?.objectValue?["permission_decision"] == ["decision": "reject", "source": "config", "reason_type": "subcommandResults"])
        #expect(lines.last?["tool_result_meta"]?.arrayFirst?.objectValue?["permission_decision"] == ["decision": "reject", "source": "config", "reason_type": "mode"])
        #expect(outputs.result?["permission_denials"]?.arrayCount == 2, "the unavailable tool is not a denial")
        await claude.process.terminate()
    }
}

/// A test precondition that did not hold.
struct FakeClaudeTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension JSONValue {
    /// The number of elements, if this is an array.
    var arrayCount: Int? {
        if case .array(let items) = self { return items.count }
        return nil
    }

    /// The first element, if this is a non-empty array.
    var arrayFirst: JSONValue? {
        if case .array(let items) = self { return items.first }
        return nil
    }
}
