import Foundation
import HeraldCalendar
import HeraldCore
import Speech

/// What a calendar's firing says, in the calendar's language (`lang`, else `speech.language`):
/// "In 30 minutes: Cardiology, Dr. Weber, at 10:30"; "Now: ..." at or after the start; "Today:
/// ..." and "Tomorrow: ..." for an all-day event. The time to the event is ICU's words for it,
/// the clock time the language's own (12 or 24 hours).
enum CalendarWording {
    static func text(for firing: CalendarFiring, calendar: CalendarSettings, speech: SpeechSettings, zone: TimeZone) -> String {
        let language = calendar.language ?? speech.language
        let phrases = speech.phrases(for: language)
        let locale = Locale(identifier: language)
        let occurrence = firing.occurrence
        var event = occurrence.summary.isEmpty ? "?" : occurrence.summary
        if calendar.sayLocation, let location = occurrence.location { event += ", " + location }
        // The event's own words go in last: a summary holding "{time}" stays as written.
        func fill(_ template: String, _ values: [String: String]) -> String {
            values.sorted { ($0.key == "{event}" ? 1 : 0, $0.key) < ($1.key == "{event}" ? 1 : 0, $1.key) }
                .reduce(template) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        }
        var clock = Calendar(identifier: .gregorian)
        clock.timeZone = zone
        if let day = occurrence.allDayDate, let date = clock.date(from: day) {
            let days = clock.dateComponents([.day], from: clock.startOfDay(for: firing.at), to: date).day ?? 0
            switch days {
            case ...0: return fill(phrases.appointmentToday, ["{event}": event])
            case 1: return fill(phrases.appointmentTomorrow, ["{event}": event])
            default:
                var weekday = Date.FormatStyle().weekday(.wide).locale(locale)
                weekday.timeZone = zone
                return fill(phrases.appointmentSoon, ["{when}": words(Duration.seconds(days * 86_400), locale), "{event}": event,
                                                      "{time}": date.formatted(weekday)])
            }
        }
        let ahead = occurrence.start.timeIntervalSince(firing.at)
        // Under a minute ahead is now: "In 0 minutes" is no sentence.
        guard ahead >= 60 else { return fill(phrases.appointmentNow, ["{event}": event]) }
        var time = Date.FormatStyle(date: .omitted, time: .shortened).locale(locale)
        time.timeZone = zone
        return fill(phrases.appointmentSoon, ["{when}": words(.seconds((ahead / 60).rounded() * 60), locale), "{event}": event,
                                              "{time}": occurrence.start.formatted(time)])
    }

    /// "30 minutes", "1 hour, 30 minutes", "2 days" in `locale`'s words.
    static func words(_ duration: Duration, _ locale: Locale) -> String {
        duration.formatted(.units(allowed: [.days, .hours, .minutes], width: .wide).locale(locale))
    }
}
