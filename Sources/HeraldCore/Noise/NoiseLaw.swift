import Foundation

/// The pure arithmetic of noise compensation: the gain a floor earns, and the volumes that gain
/// makes of a room's safeguard settings.
///
/// PulseAudio's software volume is cubic: a volume `v` (1.0 = 100%) scales the samples by `v³`,
/// so it is `60 x log10(v)` dB. Raising by `g` dB multiplies the volume by `10^(g/60)`: +10 dB
/// takes 40% to 58.7%, not to 50%.
public enum NoiseLaw {
    /// `clamp((floor - threshold) x ratio, 0, max_gain)` dB.
    public static func gainDB(floorDBFS: Double, settings: NoiseSettings) -> Double {
        min(max((floorDBFS - settings.thresholdDB) * settings.ratio, 0), settings.maxGainDB)
    }

    /// The volume's level in dB on PulseAudio's cubic curve (0 dB at 100%, -inf at 0%).
    public static func decibels(of volume: Volume) -> Double {
        60 * log10(Double(volume.raw) / Double(Volume.norm.raw))
    }

    /// `volume` raised by `gainDB` on the cubic curve, rounded to the raw unit.
    public static func raised(_ volume: Volume, byDB gainDB: Double) -> Volume {
        let raw = (Double(volume.raw) * pow(10, gainDB / 60)).rounded()
        return Volume(raw: UInt32(min(raw, Double(UInt32.max))))
    }

    /// `settings` with the target and the floor of the raise lifted by `gainDB`, neither above
    /// `max_volume`: a sink under the lifted floor is raised to the lifted target; one someone
    /// set louder is left as it is.
    public static func applied(_ gainDB: Double, to settings: SafeguardSettings) -> SafeguardSettings {
        guard gainDB > 0 else { return settings }
        var settings = settings
        settings.targetVolume = min(raised(settings.targetVolume, byDB: gainDB), settings.maxVolume)
        settings.minVolume = min(raised(settings.minVolume, byDB: gainDB), settings.targetVolume)
        return settings
    }
}
