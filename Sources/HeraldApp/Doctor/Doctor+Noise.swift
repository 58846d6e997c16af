import HeraldCore
import PulseAudio

extension Doctor {
    /// Each room's microphone (`rooms.<room>.noise`): found, unmuted, and hearing something
    /// (3 s are measured, enough for a floor; no audio is kept).
    func noiseChecks(sound: PulseConnection) async -> [DoctorFinding] {
        let rooms = (context.configuration.configuredRooms?.rooms ?? []).compactMap { room in room.noise.map { (room.name, $0) } }
        guard !rooms.isEmpty else { return [] }
        let sources: [SourceState]
        do { sources = try await sound.sources() } catch {
            return [DoctorFinding("noise", .problem, "the sources (microphones) could not be listed: \(error)")]
        }
        var findings: [DoctorFinding] = []
        for (room, noise) in rooms {
            let check = "noise \(room)"
            let fallback = "announcements there keep the room's plain safeguard (no raise for noise)"
            let source: SourceState
            switch noise.pick(among: sources) {
            case .success(let picked): source = picked
            case .failure(let problem):
                findings.append(DoctorFinding(check, .warning, "\(noise.describe(problem)); \(fallback)",
                                              action: "plug the microphone in, or make rooms.\(room).noise name one source `pactl list sources` shows"))
                continue
            }
            if let problem = source.problem {
                findings.append(DoctorFinding(check, .warning, "\(problem); \(fallback)", action: "unmute it and set its volume (pavucontrol's Input Devices)"))
                continue
            }
            do {
                let blocks = try await SourceMeter.listen(to: source.name, on: sound, for: .seconds(3))
                if blocks.isEmpty {
                    findings.append(DoctorFinding(check, .warning, "\(source.name) sent nothing in 3 s; \(fallback)",
                                                  action: "check that the device works: parecord -d \(source.name) /tmp/check.wav"))
                } else if blocks.allSatisfy(\.digitalSilence) {
                    findings.append(DoctorFinding(check, .warning, "\(source.name) reads digital silence (exact zeros): muted in hardware or dead; \(fallback)",
                                                  action: "check the microphone's own mute switch and `alsamixer -c CARD` capture levels"))
                } else {
                    var floor = NoiseFloor(window: noise.window)
                    for block in blocks { floor.add(block.dBFS) }
                    let level = floor.floor.map { "\(NoiseReading.tenth($0)) dBFS" } ?? "no level yet"
                    findings.append(DoctorFinding(check, .ok, "\(source.name) hears the room at \(level) (threshold \(noise.thresholdDB) dB)"))
                }
            } catch {
                findings.append(DoctorFinding(check, .warning, "cannot record from \(source.name): \(error); \(fallback)"))
            }
        }
        return findings
    }
}
