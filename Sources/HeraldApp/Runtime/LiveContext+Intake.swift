import HeraldIntake

extension AnnouncementIntake {
    /// The intake of `herald serve`'s edges: each call reads the context in force now, its config
    /// and its log from one snapshot.
    public init(live: LiveContext) {
        self.init {
            let context = live.value
            return Context(configuration: context.configuration, store: context.store)
        }
    }
}
