/// The `piper` engine's part of the config (`speech.piper`).
public struct PiperSettings: Sendable, Equatable, Hashable {
    /// Herald's Piper folder: the virtual environment `scripts/install-voice.sh` makes, and
    /// `voices/` for voices downloaded by hand.
    public var folder: String = ""
    /// The program that runs Piper: the virtual environment's `bin/python3` by default.
    public var python: String = ""
    /// The default voice's `.onnx` (its `.onnx.json` beside it): the first installed voice by default.
    public var model: String = ""
    /// Threads for the neural network (onnxruntime's intra-op threads).
    public var threads: Int = 2
    /// A sentence with no audio for this long: the process is taken for hung, killed and
    /// restarted, and espeak-ng says the rest.
    public var timeoutMilliseconds: Int = 10_000
    /// How long the process may take to load its model before it is taken for hung.
    public var loadTimeoutMilliseconds: Int = 60_000
    /// Alias (`nova`, `alloy`...) -> an installed voice's name or a model path.
    public var voices: [String: String] = [:]

    public init() {}

    /// The settings for the Piper folder `folder`: its Python; the model is found by `resolved()`.
    public init(folder: String) {
        self.folder = folder
        python = folder + "/bin/python3"
    }
}
