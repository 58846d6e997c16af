import HeraldCore

/// The fixed sentences Herald speaks around an amount, in one language (issue: "Phrases per language").
///
/// Counts are said in words by ICU, which cannot make them agree with a noun (ru "два платежа" but
/// "пять платежей", ar, sw, bn classifiers). Where the noun would have to agree, the summary names the
/// count after a colon instead ("Получено платежей: {count}"), so one template is right for every count.
public struct PhraseTable: Sendable, Equatable {
    /// The base language code: `es`, `zh`.
    public var language: String
    /// True once a speaker of the language has checked it; false: machine-written.
    public var checkedBySpeaker: Bool
    /// A payment: `{amount}` is the spoken amount. "Payment received: {amount}".
    public var paymentReceived: String
    /// Payments said as one: `{count}` is the count in words, `{amount}` the total. "{count} payments received, total {amount}".
    public var paymentsSummary: String
    /// Before the texts quiet hours held, said together when they end: "While it was quiet:".
    public var whileItWasQuiet: String
    /// The test sentence (`POST /v1/test`): "Herald is ready."
    public var test: String
    /// Between the major and the minor part of an amount: "{major} and {minor}".
    public var majorAndMinor: String
    /// A calendar's event ahead: `{when}` the time to it, `{event}` its summary (and location),
    /// `{time}` its start in the language's clock. "In {when}: {event}, at {time}". From
    /// `AppointmentPhrases`, machine-written but English's.
    public var appointmentSoon: String
    /// A calendar's event now: "Now: {event}".
    public var appointmentNow: String
    /// An all-day event on its morning: "Today: {event}".
    public var appointmentToday: String
    /// An all-day event the day before (its alarm said so): "Tomorrow: {event}".
    public var appointmentTomorrow: String
    /// What a button's press is answered with (`ButtonPhrases`): "Thank you.", "Payments today:
    /// {count}, total {amount}", "Help is needed: {where}", ...
    public var thankYou: String
    public var nothingWaiting: String
    public var nothingToRepeat: String
    public var paymentsToday: String
    public var noPaymentsToday: String
    public var helpCall: String
    public var quietFor: String
    public var volume: String

    /// A table; every template must hold exactly the placeholders its property names.
    public init(
        language: String, checkedBySpeaker: Bool, paymentReceived: String, paymentsSummary: String,
        whileItWasQuiet: String, test: String, majorAndMinor: String
    ) {
        self.language = language
        self.checkedBySpeaker = checkedBySpeaker
        self.paymentReceived = paymentReceived
        self.paymentsSummary = paymentsSummary
        self.whileItWasQuiet = whileItWasQuiet
        self.test = test
        self.majorAndMinor = majorAndMinor
        let appointments = AppointmentPhrases.of(language)
        (appointmentSoon, appointmentNow, appointmentToday, appointmentTomorrow) =
            (appointments.soon, appointments.now, appointments.today, appointments.tomorrow)
        let buttons = ButtonPhrases.of(language)
        (thankYou, nothingWaiting, nothingToRepeat, paymentsToday, noPaymentsToday, helpCall, quietFor, volume) =
            (buttons.thankYou, buttons.nothingWaiting, buttons.nothingToRepeat, buttons.paymentsToday, buttons.noPaymentsToday,
             buttons.helpCall, buttons.quietFor, buttons.volume)
    }

    /// The tables Herald ships, by base language code.
    public static let builtIn: [String: PhraseTable] = Dictionary(
        (all + indian).map { ($0.language, $0) }, uniquingKeysWith: { first, _ in first })

    /// Only en and zh have been checked by a speaker; the rest await review (they are the register
    /// of a shop's payment soundbox: short, neutral, no brand words).
    private static let all: [PhraseTable] = [
        PhraseTable(
            language: "en", checkedBySpeaker: true,
            paymentReceived: "Payment received: {amount}",
            paymentsSummary: "{count} payments received, total {amount}",
            whileItWasQuiet: "While it was quiet:", test: "Herald is ready.",
            majorAndMinor: "{major} and {minor}"),
        PhraseTable(
            language: "zh", checkedBySpeaker: true,
            paymentReceived: "收款{amount}",
            paymentsSummary: "收到{count}笔付款，共{amount}",
            whileItWasQuiet: "安静时段里的消息：", test: "Herald 已就绪。",
            majorAndMinor: "{major}{minor}"),
        PhraseTable(
            language: "es", checkedBySpeaker: false,
            paymentReceived: "Pago recibido: {amount}",
            paymentsSummary: "{count} pagos recibidos, total {amount}",
            whileItWasQuiet: "Durante las horas de silencio:", test: "Herald está listo.",
            majorAndMinor: "{major} con {minor}"),
        PhraseTable(
            language: "pt", checkedBySpeaker: false,
            paymentReceived: "Pagamento recebido: {amount}",
            paymentsSummary: "{count} pagamentos recebidos, total {amount}",
            whileItWasQuiet: "Durante o horário de silêncio:", test: "Herald está pronto.",
            majorAndMinor: "{major} e {minor}"),
        PhraseTable(
            language: "fr", checkedBySpeaker: false,
            paymentReceived: "Paiement reçu : {amount}",
            paymentsSummary: "{count} paiements reçus, total {amount}",
            whileItWasQuiet: "Pendant les heures de silence :", test: "Herald est prêt.",
            majorAndMinor: "{major} et {minor}"),
        PhraseTable(
            language: "de", checkedBySpeaker: false,
            paymentReceived: "Zahlung erhalten: {amount}",
            paymentsSummary: "{count} Zahlungen erhalten, insgesamt {amount}",
            whileItWasQuiet: "Während der Ruhezeit:", test: "Herald ist bereit.",
            majorAndMinor: "{major} und {minor}"),
        // hi: "और" between rupees and paise is common and clearer spoken than juxtaposition.
        PhraseTable(
            language: "hi", checkedBySpeaker: false,
            paymentReceived: "भुगतान प्राप्त हुआ: {amount}",
            paymentsSummary: "{count} भुगतान प्राप्त हुए, कुल {amount}",
            whileItWasQuiet: "शांत समय के दौरान:", test: "Herald तैयार है।",
            majorAndMinor: "{major} और {minor}"),
        // ta: rupees and paise are said side by side ("பத்து ரூபாய் ஐம்பது பைசா").
        PhraseTable(
            language: "ta", checkedBySpeaker: false,
            paymentReceived: "பணம் பெறப்பட்டது: {amount}",
            paymentsSummary: "{count} பரிவர்த்தனைகள் பெறப்பட்டன, மொத்தம் {amount}",
            whileItWasQuiet: "அமைதி நேரத்தில் வந்தவை:", test: "Herald தயார்.",
            majorAndMinor: "{major} {minor}"),
        PhraseTable(
            language: "id", checkedBySpeaker: false,
            paymentReceived: "Pembayaran diterima: {amount}",
            paymentsSummary: "{count} pembayaran diterima, total {amount}",
            whileItWasQuiet: "Selama waktu tenang:", test: "Herald siap.",
            majorAndMinor: "{major} {minor}"),
        PhraseTable(
            language: "vi", checkedBySpeaker: false,
            paymentReceived: "Đã nhận thanh toán: {amount}",
            paymentsSummary: "Đã nhận {count} khoản thanh toán, tổng cộng {amount}",
            whileItWasQuiet: "Trong giờ yên lặng:", test: "Herald đã sẵn sàng.",
            majorAndMinor: "{major} {minor}"),
        // sw: numbers agree with the noun class (malipo mawili), ICU says "mbili"; so the count stands alone.
        PhraseTable(
            language: "sw", checkedBySpeaker: false,
            paymentReceived: "Malipo yamepokelewa: {amount}",
            paymentsSummary: "Idadi ya malipo: {count}, jumla {amount}",
            whileItWasQuiet: "Wakati wa kimya:", test: "Herald iko tayari.",
            majorAndMinor: "{major} na {minor}"),
        // ar: "و" is written joined to the next word; the counted noun's form depends on the count.
        PhraseTable(
            language: "ar", checkedBySpeaker: false,
            paymentReceived: "تم استلام دفعة: {amount}",
            paymentsSummary: "عدد الدفعات: {count}، المجموع {amount}",
            whileItWasQuiet: "خلال فترة الهدوء:", test: "Herald جاهز.",
            majorAndMinor: "{major} و{minor}"),
        // tr: a noun after a number stays singular (üç ödeme), so the count can lead.
        PhraseTable(
            language: "tr", checkedBySpeaker: false,
            paymentReceived: "Ödeme alındı: {amount}",
            paymentsSummary: "{count} ödeme alındı, toplam {amount}",
            whileItWasQuiet: "Sessiz saatlerde gelenler:", test: "Herald hazır.",
            majorAndMinor: "{major} {minor}"),
        PhraseTable(
            language: "ru", checkedBySpeaker: false,
            paymentReceived: "Оплата получена: {amount}",
            paymentsSummary: "Получено платежей: {count}, на сумму {amount}",
            whileItWasQuiet: "Пока было тихо:", test: "Herald готов.",
            majorAndMinor: "{major} {minor}"),
        // ja in kana: espeak-ng says "Chinese letter" for every kanji. The amount's digits are read
        // by the voice ("1500えん": sen gohyaku en).
        PhraseTable(
            language: "ja", checkedBySpeaker: false,
            paymentReceived: "おしはらいを うけとりました：{amount}",
            paymentsSummary: "{count}けんの おしはらい、ごうけい {amount}",
            whileItWasQuiet: "しずかな じかんの あいだに：", test: "Herald の じゅんびが できました。",
            majorAndMinor: "{major} {minor}"),
    ]
}
