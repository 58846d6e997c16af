import Synchronization

/// The rooms of one playback coming near their end: `nearEnd` is called once, when each has
/// either come within `nearEndLead` of its last sound or ended otherwise (failed, stopped), with
/// `whole` true only when all came near the end.
final class EndWatch: Sendable {
    private let state: Mutex<(left: Int, whole: Bool)>
    private let nearEnd: @Sendable (_ whole: Bool) -> Void

    init(members: Int, nearEnd: @escaping @Sendable (_ whole: Bool) -> Void) {
        state = Mutex((members, true))
        self.nearEnd = nearEnd
    }

    private func arrived(whole: Bool) {
        let last: Bool? = state.withLock { state in
            guard state.left > 0 else { return nil }
            state.left -= 1
            state.whole = state.whole && whole
            return state.left == 0 ? state.whole : nil
        }
        if let last { nearEnd(last) }
    }

    /// One room's part: its first report counts, the others are ignored (the near-end timer and
    /// the end of its stream may both report).
    final class Room: Sendable {
        private let watch: EndWatch
        private let reported = Mutex(false)

        init(_ watch: EndWatch) { self.watch = watch }

        func report(whole: Bool) {
            guard !reported.withLock({ reported in defer { reported = true }; return reported }) else { return }
            watch.arrived(whole: whole)
        }
    }
}
