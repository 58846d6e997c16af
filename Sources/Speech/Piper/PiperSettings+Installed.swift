import HeraldCore

extension PiperSettings {
    /// With `model` set to the first voice installed in `folder` when none is given. Not done at
    /// every config load: listing the folder would slow every `herald say` of an espeak-ng user.
    public func resolved() -> PiperSettings {
        guard model.isEmpty else { return self }
        var settings = self
        settings.model = PiperVoiceModel.installed(in: folder).first?.modelPath ?? ""
        return settings
    }
}
