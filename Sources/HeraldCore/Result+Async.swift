extension Result where Failure == any Error {
    /// `Result(catching:)` for an async body: one room's playback among several, say. Runs on the
    /// caller's actor.
    public init(isolation: isolated (any Actor)? = #isolation, catchingAsync body: () async throws -> sending Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
