import Foundation
import RalphAPI
import Testing

/// Turns as the real CLI runs them: user message uuids and their lifecycle, init per turn, running cost, interrupts,
/// replays, API retries and the turns the CLI starts by itself.
extension FakeClaudeTests {
    @Test("a user line with a uuid is reported queued, started and completed, and its turn's lines name it")
    func userMessageLifecycle() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script("say Hello.", "say Again.", uuid: "u-1"))
        var outputs = await claude.turn()
        outputs += await claude.collect { $0.is("command_lifecycle") }
        #expect(outputs.lifecycle == ["u-1 queued", "u-1 started", "u-1 completed"])
        #expect(Array(outputs.prefix(3).map(\.type)) == ["command_lifecycle", "command_lifecycle", "system"])
        let initLine = try #require(outputs.first { $0.is("system", "init") })
        #expect(initLine["user_message_uuids"] == ["u-1"] && initLine["user_message_uuid"] == nil)
        #expect(outputs.filter { $0.is("system", "status") }.allSatisfy { $0["user_message_uuids"] == ["u-1"] })
        // The turn's first message_start and first assistant line name it; later ones do not.
        let assistants = outputs.assistants
        #expect(assistants.count == 2)
        #expect(assistants[0]["user_message_uuid"] == "u-1" && assistants[0]["user_message_uuids"] == ["u-1"])
        #expect(assistants[1]["user_message_uuid"] == nil)
        let starts = outputs.filter { $0.is("stream_event") && $0["event"]?.objectValue?["type"] == "message_start" }
        #expect(starts.first?["user_message_uuid"] == "u-1")
        let result = try #require(outputs.result)
        #expect(result["user_message_uuid"] == "u-1" && result["user_message_uuids"] == ["u-1"])
        #expect(outputs.last?["state"] == "completed")

        claude.send(Input.user("no uuid"))
        let plain = await claude.turn()
        #expect(plain.lifecycle.isEmpty && !plain.nameUserMessages)
        await claude.process.terminate()
    }

    @Test("every turn starts with an init that names the double's version, the mode and the msg_lifecycle_v1 capability")
    func initEveryTurn() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start(FakeClaudeHome.streamFlags + ["--permission-mode", "plan"])
        for text in ["one", "two"] {
            claude.send(Input.user(text))
            let outputs = await claude.turn()
            let initLine = try #require(outputs.first)
            #expect(initLine.is("system", "init"))
            #expect(initLine["claude_code_version"] == "0.0.1-fake" && initLine["permissionMode"] == "plan")
            #expect(initLine["cwd"] == .string(home.cwd) && initLine["model"] == "claude-sonnet-4-5-20250929")
            #expect(initLine["session_id"] == outputs.result?["session_id"])
            guard case .array(let capabilities)? = initLine["capabilities"], case .array(let tools)? = initLine["tools"] else {
                Issue.record("init without capabilities or tools")
                continue
            }
            #expect(capabilities.contains("msg_lifecycle_v1") && tools.contains("Bash"))
            #expect(outputs.count { $0.is("system", "init") } == 1)
        }
        await claude.process.terminate()
    }

    @Test("total_cost_usd is the process's running total; usage, model_usage_since_last_result and result_index are per turn")
    func runningCost() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.user("one"))
        let first = try #require(await claude.turn().result)
        claude.send(Input.script("say two", "cost 0.25"))
        let second = try #require(await claude.turn().result)
        let model = "claude-sonnet-4-5-20250929"
        #expect(first["total_cost_usd"]?.doubleValue == 0.001 && first["result_index"] == 0)
        #expect(abs((second["total_cost_usd"]?.doubleValue ?? 0) - 0.251) < 1e-9 && second["result_index"] == 1)
        #expect(second["terminal_reason"] == "completed")
        let sinceLast = try #require(second["model_usage_since_last_result"]?.objectValue?[model]?.objectValue)
        #expect(sinceLast["costUSD"]?.doubleValue == 0.25 && sinceLast["outputTokens"]?.intValue == second["usage"]?.objectValue?["output_tokens"]?.intValue)
        let cumulative = try #require(second["modelUsage"]?.objectValue?[model]?.objectValue)
        #expect(abs((cumulative["costUSD"]?.doubleValue ?? 0) - 0.251) < 1e-9)
        let firstTokens = first["usage"]?.objectValue?["output_tokens"]?.intValue ?? 0
        let secondTokens = second["usage"]?.objectValue?["output_tokens"]?.intValue ?? 0
        #expect(cumulative["outputTokens"]?.intValue == firstTokens + secondTokens)
        await claude.process.terminate()

        // A new process starts at 0 again.
        var again = try home.start()
        again.send(Input.user("three"))
        let third = try #require(await again.turn().result)
        #expect(third["total_cost_usd"]?.doubleValue == 0.001 && third["result_index"] == 0)
        await again.process.terminate()
    }

    @Test("an interrupt is answered with what is still queued and ends the turn as aborted_streaming; the queued message runs next")
    func interruptDuringSleep() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script("sleep 30", "say never said", uuid: "u-1"))
        _ = await claude.collect { $0.is("system", "status") }
        claude.send(Input.user("after", uuid: "u-2"))
        _ = await claude.collect { $0["command_uuid"] == "u-2" }
        let started = ContinuousClock.now
        claude.send(Input.interrupt("c-42"))
        var outputs = await claude.turn()
        outputs += await claude.collect { $0.is("command_lifecycle") }
        #expect(ContinuousClock.now - started < .seconds(10))
        let response = try #require(outputs.first { $0.is("control_response") }?["response"]?.objectValue)
        #expect(response["subtype"] == "success" && response["request_id"] == "c-42" && response["response"] == ["still_queued": ["u-2"]])
        #expect(outputs.texts.isEmpty)
        let marker = try #require(outputs.last { $0.is("user") })
        #expect(marker["message"] == ["role": "user", "content": [["type": "text", "text": "[Request interrupted by user]"]]])
        let result = try #require(outputs.result)
        #expect(result["subtype"] == "error_during_execution" && result["is_error"] == true && result["stop_reason"] == .null)
        #expect(result["terminal_reason"] == "aborted_streaming" && result["result"] == nil)
        #expect(result["errors"] == ["[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null"])
        #expect(result["user_message_uuid"] == "u-1" && result["total_cost_usd"]?.doubleValue == 0)
        #expect(outputs.lifecycle.last == "u-1 cancelled")

        let next = await claude.turn()
        #expect(next.lifecycle == ["u-2 started"] && next.result?["result"] == "Echo: after")
        claude.send(Input.interrupt("c-43"))
        let idle = try #require(await claude.collect { $0.is("control_response") }.last)
        #expect(idle["response"]?.objectValue?["response"] == ["still_queued": []])
        await claude.process.terminate()
    }

    @Test("--replay-user-messages echoes each user line after its turn's init and status")
    func replayUserMessages() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start(FakeClaudeHome.streamFlags + ["--replay-user-messages"])
        claude.send(Input.user("echo me", uuid: "u-7"))
        let outputs = await claude.turn()
        let replay = try #require(outputs.firstIndex { $0.is("user") })
        #expect(outputs[replay - 1].is("system", "status") && outputs[replay - 2].is("system", "init"))
        let line = outputs[replay]
        #expect(line["isReplay"] == true && line["uuid"] == "u-7" && line["parent_tool_use_id"] == .null)
        #expect(line["message"] == ["role": "user", "content": "echo me"] && line["session_id"] == outputs.result?["session_id"])
        #expect(line["timestamp"]?.stringValue.flatMap(Timestamp.parse) != nil)
        await claude.process.terminate()
    }

    @Test("retry prints api_retry lines after the request's status, then the turn goes on")
    func apiRetries() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script("retry 3", "say made it"))
        let outputs = await claude.turn()
        let retries = outputs.filter { $0.is("system", "api_retry") }
        #expect(retries.map { $0["attempt"] } == [1, 2, 3])
        #expect(retries.allSatisfy { $0["max_retries"] == 10 && $0["error_status"] == 529 && $0["error"] == "overloaded" })
        #expect(retries.allSatisfy { ($0["retry_delay_ms"]?.intValue ?? 0) > 0 && $0["session_id"] == outputs.result?["session_id"] })
        let firstRetry = try #require(outputs.firstIndex { $0.is("system", "api_retry") })
        #expect(outputs[firstRetry - 1].is("system", "status") && outputs[firstRetry - 1]["status"] == "requesting")
        #expect(outputs.texts == ["made it"] && outputs.result?["subtype"] == "success")
        await claude.process.terminate()
    }

    @Test("a message sent while a tool runs joins the turn's next request; it completes before the result")
    func messageJoinsRunningTurn() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script(#"tool Bash {"command":"make"}"#, "say built", uuid: "u-1"))
        let permission = try #require(await claude.untilPermission())
        claude.send(Input.user("also this", uuid: "u-2"))
        _ = await claude.collect { $0["command_uuid"] == "u-2" }
        claude.send(Input.allow(permission.id, input: permission.request["input"] ?? [:]))
        var outputs = await claude.turn()
        outputs += await claude.collect { $0.is("command_lifecycle") }
        #expect(outputs.lifecycle == ["u-2 started", "u-2 completed", "u-1 completed"])
        #expect(outputs.texts == ["built"])
        let status = try #require(outputs.last { $0.is("system", "status") })
        #expect(status["user_message_uuids"] == ["u-1", "u-2"])
        #expect(outputs.result?["user_message_uuid"] == "u-1" && outputs.result?["user_message_uuids"] == ["u-1", "u-2"])
        await claude.process.terminate()
    }

    @Test("agent: a background Agent call, then after its delay a notification and a turn of the CLI's own; a user line waits for it")
    func backgroundAgentTurn() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        // A long report, so that the CLI's own turn is still streaming when the next user line arrives.
        let report = (1...150).map { "w\($0)" }.joined(separator: " ")
        claude.send(Input.script("say Starting a helper.", "agent 0.3 \(report)", "say Helper started.", uuid: "u-1"))
        var first = await claude.turn()
        first += await claude.collect { $0.is("command_lifecycle") }
        let agentUse = try #require(first.toolUses.first)
        #expect(agentUse.name == "Agent" && agentUse.input.objectValue?["prompt"] == .string(report))
        let started = try #require(first.first { $0.is("system", "task_started") })
        #expect(started["tool_use_id"] == .string(agentUse.id))
        let launched = try #require(first.toolResults.first)
        #expect(launched.id == agentUse.id && !launched.isError)
        #expect(JSONWriter.string(launched.content).contains("Async agent launched successfully"))
        #expect(first.texts == ["Starting a helper.", "Helper started."] && first.result?["subtype"] == "success")
        #expect(first.lifecycle == ["u-1 queued", "u-1 started", "u-1 completed"])

        var own = await claude.collect { $0.is("system", "init") }
        claude.send(Input.user("meanwhile", uuid: "u-2"))
        own += await claude.turn()
        let notification = try #require(own.first { $0.is("system", "task_notification") })
        #expect(notification["task_id"] == started["task_id"] && notification["tool_use_id"] == .string(agentUse.id))
        #expect(notification["status"] == "completed" && notification["summary"] == .string(report))
        #expect(own.contains { $0.is("system", "task_updated") })
        #expect(own.texts == [report] && own.deltas == report)
        #expect(own.result?["result_index"] == 1 && own.result?["origin"]?.objectValue?["kind"] == "task-notification")
        #expect(!own.filter { !$0.is("command_lifecycle") }.nameUserMessages)
        #expect(own.lifecycle == ["u-2 queued"])

        let next = await claude.turn()
        #expect(next.lifecycle == ["u-2 started"] && next.result?["result"] == "Echo: meanwhile")
        await claude.process.terminate()
    }

    @Test("at end of input the CLI still runs the turn of a background agent, then exits 0")
    func backgroundAgentAtEndOfInput() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script("agent 0.2 done in the background"))
        claude.process.closeStdin()
        #expect(await claude.turn().result?["result_index"] == 0)
        #expect(await claude.turn().result?["result"] == "done in the background")
        #expect(await claude.next() == nil)
        #expect(await claude.process.waitForExit() == .exited(0))
    }
}
