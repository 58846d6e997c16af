/// The short sentences a button's press is answered with, per language (issue 46). English's is
/// checked; the rest are machine-written and await review, as `AppointmentPhrases`.
/// `speech.phrases.<lang>.<key>` replaces any of them.
struct ButtonPhrases: Sendable, Equatable {
    /// `ack`: "Thank you."
    var thankYou: String
    /// `ack` with no reminder waiting: "Nothing is waiting."
    var nothingWaiting: String
    /// `repeat` with nothing said yet: "Nothing to repeat."
    var nothingToRepeat: String
    /// `total`, per currency: "Payments today: {count}, total {amount}". The count after a colon
    /// needs no agreement with a noun (ru, ar, sw).
    var paymentsToday: String
    /// `total` with none: "No payments today."
    var noPaymentsToday: String
    /// `help`: "Help is needed: {where}".
    var helpCall: String
    /// `quiet`: "Quiet for {when}." (`{when}` in ICU's words).
    var quietFor: String
    /// `volume_up` / `volume_down`, said at the new level: "Volume {level}." (`{level}` a percentage).
    var volume: String

    static func of(_ language: String) -> ButtonPhrases { all[language] ?? all["en"]! }

    private static let all: [String: ButtonPhrases] = [
        "en": .init(thankYou: "Thank you.", nothingWaiting: "Nothing is waiting.", nothingToRepeat: "Nothing to repeat.",
                    paymentsToday: "Payments today: {count}, total {amount}", noPaymentsToday: "No payments today.",
                    helpCall: "Help is needed: {where}", quietFor: "Quiet for {when}.", volume: "Volume {level}."),
        "zh": .init(thankYou: "谢谢。", nothingWaiting: "没有待确认的提醒。", nothingToRepeat: "没有可重复的内容。",
                    paymentsToday: "今天收款{count}笔，共{amount}", noPaymentsToday: "今天还没有收款。",
                    helpCall: "需要帮助：{where}", quietFor: "静音{when}。", volume: "音量{level}。"),
        "es": .init(thankYou: "Gracias.", nothingWaiting: "No hay nada pendiente.", nothingToRepeat: "No hay nada que repetir.",
                    paymentsToday: "Pagos de hoy: {count}, total {amount}", noPaymentsToday: "Hoy no hay pagos.",
                    helpCall: "Se necesita ayuda: {where}", quietFor: "Silencio durante {when}.", volume: "Volumen {level}."),
        "pt": .init(thankYou: "Obrigado.", nothingWaiting: "Nada pendente.", nothingToRepeat: "Nada para repetir.",
                    paymentsToday: "Pagamentos de hoje: {count}, total {amount}", noPaymentsToday: "Nenhum pagamento hoje.",
                    helpCall: "Precisa-se de ajuda: {where}", quietFor: "Silêncio por {when}.", volume: "Volume {level}."),
        "fr": .init(thankYou: "Merci.", nothingWaiting: "Rien en attente.", nothingToRepeat: "Rien à répéter.",
                    paymentsToday: "Paiements du jour : {count}, total {amount}", noPaymentsToday: "Aucun paiement aujourd'hui.",
                    helpCall: "Besoin d'aide : {where}", quietFor: "Silence pendant {when}.", volume: "Volume {level}."),
        "de": .init(thankYou: "Danke.", nothingWaiting: "Nichts wartet.", nothingToRepeat: "Nichts zu wiederholen.",
                    paymentsToday: "Zahlungen heute: {count}, insgesamt {amount}", noPaymentsToday: "Heute keine Zahlungen.",
                    helpCall: "Hilfe wird gebraucht: {where}", quietFor: "Ruhe für {when}.", volume: "Lautstärke {level}."),
        "hi": .init(thankYou: "धन्यवाद।", nothingWaiting: "कुछ भी बाकी नहीं है।", nothingToRepeat: "दोहराने के लिए कुछ नहीं है।",
                    paymentsToday: "आज के भुगतान: {count}, कुल {amount}", noPaymentsToday: "आज कोई भुगतान नहीं।",
                    helpCall: "मदद चाहिए: {where}", quietFor: "{when} के लिए शांत।", volume: "आवाज़ {level}।"),
        "ta": .init(thankYou: "நன்றி.", nothingWaiting: "நிலுவையில் எதுவும் இல்லை.", nothingToRepeat: "மீண்டும் சொல்ல எதுவும் இல்லை.",
                    paymentsToday: "இன்றைய பணம்: {count}, மொத்தம் {amount}", noPaymentsToday: "இன்று பணம் எதுவும் இல்லை.",
                    helpCall: "உதவி தேவை: {where}", quietFor: "{when} அமைதி.", volume: "ஒலி அளவு {level}."),
        "bn": .init(thankYou: "ধন্যবাদ।", nothingWaiting: "কিছুই অপেক্ষায় নেই।", nothingToRepeat: "আবার বলার মতো কিছু নেই।",
                    paymentsToday: "আজকের পেমেন্ট: {count}, মোট {amount}", noPaymentsToday: "আজ কোনো পেমেন্ট নেই।",
                    helpCall: "সাহায্য দরকার: {where}", quietFor: "{when} চুপ।", volume: "ভলিউম {level}।"),
        "id": .init(thankYou: "Terima kasih.", nothingWaiting: "Tidak ada yang menunggu.", nothingToRepeat: "Tidak ada yang diulang.",
                    paymentsToday: "Pembayaran hari ini: {count}, total {amount}", noPaymentsToday: "Belum ada pembayaran hari ini.",
                    helpCall: "Butuh bantuan: {where}", quietFor: "Tenang selama {when}.", volume: "Volume {level}."),
        "vi": .init(thankYou: "Cảm ơn.", nothingWaiting: "Không có gì đang chờ.", nothingToRepeat: "Không có gì để nhắc lại.",
                    paymentsToday: "Thanh toán hôm nay: {count}, tổng cộng {amount}", noPaymentsToday: "Hôm nay chưa có thanh toán.",
                    helpCall: "Cần giúp đỡ: {where}", quietFor: "Yên lặng trong {when}.", volume: "Âm lượng {level}."),
        "sw": .init(thankYou: "Asante.", nothingWaiting: "Hakuna kinachosubiri.", nothingToRepeat: "Hakuna cha kurudia.",
                    paymentsToday: "Malipo ya leo: {count}, jumla {amount}", noPaymentsToday: "Hakuna malipo leo.",
                    helpCall: "Msaada unahitajika: {where}", quietFor: "Kimya kwa {when}.", volume: "Sauti {level}."),
        "ar": .init(thankYou: "شكرًا.", nothingWaiting: "لا شيء بانتظار التأكيد.", nothingToRepeat: "لا شيء لإعادته.",
                    paymentsToday: "مدفوعات اليوم: {count}، المجموع {amount}", noPaymentsToday: "لا مدفوعات اليوم.",
                    helpCall: "مطلوب مساعدة: {where}", quietFor: "هدوء لمدة {when}.", volume: "مستوى الصوت {level}."),
        "tr": .init(thankYou: "Teşekkürler.", nothingWaiting: "Bekleyen bir şey yok.", nothingToRepeat: "Tekrarlanacak bir şey yok.",
                    paymentsToday: "Bugünkü ödemeler: {count}, toplam {amount}", noPaymentsToday: "Bugün ödeme yok.",
                    helpCall: "Yardım gerekiyor: {where}", quietFor: "{when} sessiz.", volume: "Ses {level}."),
        "ru": .init(thankYou: "Спасибо.", nothingWaiting: "Ничего не ждёт ответа.", nothingToRepeat: "Нечего повторить.",
                    paymentsToday: "Платежей сегодня: {count}, на сумму {amount}", noPaymentsToday: "Сегодня платежей нет.",
                    helpCall: "Нужна помощь: {where}", quietFor: "Тишина на {when}.", volume: "Громкость {level}."),
        // ja in kana: espeak-ng says "Chinese letter" for every kanji.
        "ja": .init(thankYou: "ありがとうございます。", nothingWaiting: "まっているものは ありません。", nothingToRepeat: "くりかえすものは ありません。",
                    paymentsToday: "ほんじつの おしはらい：{count}けん、ごうけい {amount}", noPaymentsToday: "ほんじつの おしはらいは ありません。",
                    helpCall: "たすけが ひつようです：{where}", quietFor: "{when} しずかにします。", volume: "おんりょう {level}。"),
        "mr": .init(thankYou: "धन्यवाद.", nothingWaiting: "काहीही बाकी नाही.", nothingToRepeat: "पुन्हा सांगण्यासारखे काही नाही.",
                    paymentsToday: "आजची पेमेंट: {count}, एकूण {amount}", noPaymentsToday: "आज कोणतेही पेमेंट नाही.",
                    helpCall: "मदत हवी आहे: {where}", quietFor: "{when} शांत.", volume: "आवाज {level}."),
        "te": .init(thankYou: "ధన్యవాదాలు.", nothingWaiting: "ఏదీ మిగిలి లేదు.", nothingToRepeat: "మళ్ళీ చెప్పడానికి ఏమీ లేదు.",
                    paymentsToday: "ఈరోజు చెల్లింపులు: {count}, మొత్తం {amount}", noPaymentsToday: "ఈరోజు చెల్లింపులు లేవు.",
                    helpCall: "సహాయం కావాలి: {where}", quietFor: "{when} నిశ్శబ్దం.", volume: "శబ్దం {level}."),
        "kn": .init(thankYou: "ಧನ್ಯವಾದಗಳು.", nothingWaiting: "ಯಾವುದೂ ಬಾಕಿ ಇಲ್ಲ.", nothingToRepeat: "ಮತ್ತೆ ಹೇಳಲು ಏನೂ ಇಲ್ಲ.",
                    paymentsToday: "ಇಂದಿನ ಪಾವತಿಗಳು: {count}, ಒಟ್ಟು {amount}", noPaymentsToday: "ಇಂದು ಯಾವುದೇ ಪಾವತಿ ಇಲ್ಲ.",
                    helpCall: "ಸಹಾಯ ಬೇಕು: {where}", quietFor: "{when} ಶಾಂತ.", volume: "ಧ್ವನಿ {level}."),
        "ml": .init(thankYou: "നന്ദി.", nothingWaiting: "ഒന്നും ബാക്കിയില്ല.", nothingToRepeat: "ആവർത്തിക്കാൻ ഒന്നുമില്ല.",
                    paymentsToday: "ഇന്നത്തെ പണമിടപാടുകൾ: {count}, ആകെ {amount}", noPaymentsToday: "ഇന്ന് പണമിടപാടുകളൊന്നുമില്ല.",
                    helpCall: "സഹായം വേണം: {where}", quietFor: "{when} നിശ്ശബ്ദം.", volume: "ശബ്ദം {level}."),
        "pa": .init(thankYou: "ਧੰਨਵਾਦ।", nothingWaiting: "ਕੁਝ ਵੀ ਬਾਕੀ ਨਹੀਂ।", nothingToRepeat: "ਦੁਹਰਾਉਣ ਲਈ ਕੁਝ ਨਹੀਂ।",
                    paymentsToday: "ਅੱਜ ਦੇ ਭੁਗਤਾਨ: {count}, ਕੁੱਲ {amount}", noPaymentsToday: "ਅੱਜ ਕੋਈ ਭੁਗਤਾਨ ਨਹੀਂ।",
                    helpCall: "ਮਦਦ ਚਾਹੀਦੀ ਹੈ: {where}", quietFor: "{when} ਲਈ ਸ਼ਾਂਤ।", volume: "ਆਵਾਜ਼ {level}।"),
        "or": .init(thankYou: "ଧନ୍ୟବାଦ।", nothingWaiting: "କିଛି ବାକି ନାହିଁ।", nothingToRepeat: "ପୁଣି କହିବାକୁ କିଛି ନାହିଁ।",
                    paymentsToday: "ଆଜିର ଦେୟ: {count}, ମୋଟ {amount}", noPaymentsToday: "ଆଜି କୌଣସି ଦେୟ ନାହିଁ।",
                    helpCall: "ସାହାଯ୍ୟ ଦରକାର: {where}", quietFor: "{when} ଶାନ୍ତ।", volume: "ସ୍ୱର {level}।"),
        "gu": .init(thankYou: "આભાર.", nothingWaiting: "કંઈ બાકી નથી.", nothingToRepeat: "ફરી કહેવા માટે કંઈ નથી.",
                    paymentsToday: "આજની ચુકવણીઓ: {count}, કુલ {amount}", noPaymentsToday: "આજે કોઈ ચુકવણી નથી.",
                    helpCall: "મદદ જોઈએ છે: {where}", quietFor: "{when} માટે શાંત.", volume: "અવાજ {level}."),
        "ur": .init(thankYou: "شکریہ۔", nothingWaiting: "کچھ بھی باقی نہیں۔", nothingToRepeat: "دہرانے کے لیے کچھ نہیں۔",
                    paymentsToday: "آج کی ادائیگیاں: {count}، کل {amount}", noPaymentsToday: "آج کوئی ادائیگی نہیں۔",
                    helpCall: "مدد چاہیے: {where}", quietFor: "{when} کے لیے خاموشی۔", volume: "آواز {level}۔"),
    ]
}
