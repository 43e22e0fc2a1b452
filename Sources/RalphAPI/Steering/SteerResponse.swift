/// `200` answer of `POST /api/sessions/{id}/steer` (`202` when ralph did not acknowledge an RPC command in time).
public struct SteerResponse: Codable, Hashable, Sendable {
    /// `delivered`: the `human.guidance` event is in the run's file; ralph adds it to its next iteration's prompt.
    /// `acknowledged`: ralph's RPC `guidance_ack` came. `sent`: the RPC command went out but no acknowledgement came
    /// within the wait (see ``note``). `written`: `.ralph/urgent-steer.json` was written (experimental, discovered runs).
    public var status: String
    public var deliveredAt: String
    /// The `human.guidance` line's id in the events file; empty when the guidance went another way (``via``).
    public var id: String
    /// `current` (this iteration) or `next`.
    public var appliesTo: String?
    /// How it went: `events_file`, `rpc` or `urgent_steer_file`.
    public var via: String?
    /// ralph's acknowledgement text (`guidance_ack`'s message).
    public var acknowledgement: String?
    /// Words for anything the status alone does not say (no acknowledgement in time, what the file does).
    public var note: String?

    public init(
        status: String, deliveredAt: String, id: String, appliesTo: String? = nil, via: String? = nil, acknowledgement: String? = nil,
        note: String? = nil
    ) {
        self.status = status
        self.deliveredAt = deliveredAt
        self.id = id
        self.appliesTo = appliesTo
        self.via = via
        self.acknowledgement = acknowledgement
        self.note = note
    }

    enum CodingKeys: String, CodingKey {
        case status, id, via, acknowledgement, note
        case deliveredAt = "delivered_at"
        case appliesTo = "applies_to"
    }
}
