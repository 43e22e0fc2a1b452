extension ErrorPrefix {
    /// A notification action's token that this server never issued (or whose notification was deleted).
    public static let actionTokenUnknown = ErrorPrefix(rawValue: "action_token_unknown")
    /// A notification action's token that was used already: an action is carried out once.
    public static let actionTokenUsed = ErrorPrefix(rawValue: "action_token_used")
    /// A notification action's token past its lifetime (the thing stopped waiting, or too much time passed).
    public static let actionTokenExpired = ErrorPrefix(rawValue: "action_token_expired")
}
