import Foundation

extension RunSnapshot {
    /// A snapshot holding a fold made elsewhere (its summary and its details), for code outside the catalog that
    /// derives the list and detail views from a fold: the state-fold micro-benchmark (Benchmarks/), which cannot use
    /// `@testable import` in a release build.
    public init(location: RunLocation, state: RunState) {
        self.init(location: location)
        adopt(state)
    }
}
