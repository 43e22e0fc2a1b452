import AgentRunner
import Hummingbird
import RalphAPI

/// Host figures: CPU, memory, disk and network rates, and the busiest processes.
struct HostRoutes {
    let sampler: HostSampler

    func register(on routes: Routes) {
        routes.viewer.get("/api/host/metrics") { _, _ in
            return JSONResponse.make(try await reading().metrics)
        }
        routes.viewer.get("/api/host/processes") { _, _ in
            return JSONResponse.make(HostProcessesResponse(processes: try await reading().processes))
        }
    }

    func reading() async throws -> HostSampler.Reading {
        do {
            return try await sampler.reading()
        } catch let error as HostSampler.SampleError {
            throw APIError.other(.serviceUnavailable, .unavailable, error.description)
        }
    }
}
