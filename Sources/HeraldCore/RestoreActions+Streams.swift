import Logging

extension SoundSystem {
    /// Unmutes and un-ducks the streams of `actions`, each on its own: one that failed (gone
    /// meanwhile, say) is logged and does not stop the others. Returns how many were put back.
    /// - Parameter why: what the streams were changed for, as the log lines say it.
    public func putBackStreams(of actions: RestoreActions, why: String, logger: Logger) async -> Int {
        var putBack = 0
        for index in actions.unmuteStreams {
            do {
                try await setStreamMute(index: index, to: false)
                putBack += 1
            } catch { logger.warning("could not unmute stream \(index), muted by Herald \(why): \(error)") }
        }
        for stream in actions.streams {
            do {
                try await setStreamVolume(index: stream.streamIndex, to: stream.original)
                putBack += 1
            } catch { logger.warning("could not put back stream \(stream.streamIndex), ducked by Herald \(why): \(error)") }
        }
        return putBack
    }
}
