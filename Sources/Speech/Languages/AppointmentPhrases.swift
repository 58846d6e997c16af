/// The sentences a calendar's events are said in, per language (issue 45). Kept apart from the
/// payment tables because their review state differs: only English's is checked by a speaker;
/// the rest are machine-written and await review, whatever their language's payment table says.
/// `speech.phrases.<lang>.appointment` (and `appointment_now`, `appointment_today`) replace them.
enum AppointmentPhrases {
    static func of(_ language: String) -> (soon: String, now: String, today: String, tomorrow: String) {
        all[language] ?? all["en"]!
    }

    /// `{when}` is a duration in the language's words from ICU ("30 minutes", "1 Stunde und 30
    /// Minuten"), `{time}` a clock time in its style (12 or 24 hours).
    private static let all: [String: (soon: String, now: String, today: String, tomorrow: String)] = [
        "en": ("In {when}: {event}, at {time}", "Now: {event}", "Today: {event}", "Tomorrow: {event}"),
        "zh": ("{when}后：{event}，{time}", "现在：{event}", "今天：{event}", "明天：{event}"),
        "es": ("Dentro de {when}: {event}, a las {time}", "Ahora: {event}", "Hoy: {event}", "Mañana: {event}"),
        "pt": ("Daqui a {when}: {event}, às {time}", "Agora: {event}", "Hoje: {event}", "Amanhã: {event}"),
        "fr": ("Dans {when} : {event}, à {time}", "Maintenant : {event}", "Aujourd'hui : {event}", "Demain : {event}"),
        "de": ("In {when}: {event}, um {time}", "Jetzt: {event}", "Heute: {event}", "Morgen: {event}"),
        "hi": ("{when} में: {event}, {time} बजे", "अभी: {event}", "आज: {event}", "कल: {event}"),
        "ta": ("{when} இல்: {event}, {time} மணிக்கு", "இப்போது: {event}", "இன்று: {event}", "நாளை: {event}"),
        "bn": ("{when} পরে: {event}, {time}-এ", "এখন: {event}", "আজ: {event}", "আগামীকাল: {event}"),
        "id": ("Dalam {when}: {event}, pukul {time}", "Sekarang: {event}", "Hari ini: {event}", "Besok: {event}"),
        "vi": ("Sau {when} nữa: {event}, lúc {time}", "Bây giờ: {event}", "Hôm nay: {event}", "Ngày mai: {event}"),
        "sw": ("Baada ya {when}: {event}, saa {time}", "Sasa: {event}", "Leo: {event}", "Kesho: {event}"),
        "ar": ("بعد {when}: {event}، الساعة {time}", "الآن: {event}", "اليوم: {event}", "غدًا: {event}"),
        "tr": ("{when} sonra: {event}, saat {time}", "Şimdi: {event}", "Bugün: {event}", "Yarın: {event}"),
        "ru": ("Через {when}: {event}, в {time}", "Сейчас: {event}", "Сегодня: {event}", "Завтра: {event}"),
        "ja": ("{when}ご：{event}、{time}", "いま：{event}", "きょう：{event}", "あした：{event}"),
        "mr": ("{when} नंतर: {event}, {time} वाजता", "आता: {event}", "आज: {event}", "उद्या: {event}"),
        "te": ("{when} తర్వాత: {event}, {time}కి", "ఇప్పుడు: {event}", "ఈరోజు: {event}", "రేపు: {event}"),
        "kn": ("{when} ನಂತರ: {event}, {time}ಕ್ಕೆ", "ಈಗ: {event}", "ಇಂದು: {event}", "ನಾಳೆ: {event}"),
        "ml": ("{when} കഴിഞ്ഞ്: {event}, {time}ന്", "ഇപ്പോൾ: {event}", "ഇന്ന്: {event}", "നാളെ: {event}"),
        "pa": ("{when} ਬਾਅਦ: {event}, {time} ਵਜੇ", "ਹੁਣ: {event}", "ਅੱਜ: {event}", "ਕੱਲ੍ਹ: {event}"),
        "or": ("{when} ପରେ: {event}, {time}ରେ", "ଏବେ: {event}", "ଆଜି: {event}", "କାଲି: {event}"),
        "gu": ("{when} પછી: {event}, {time} વાગ્યે", "હવે: {event}", "આજે: {event}", "આવતીકાલે: {event}"),
        "ur": ("{when} بعد: {event}، {time} بجے", "ابھی: {event}", "آج: {event}", "کل: {event}"),
    ]
}
