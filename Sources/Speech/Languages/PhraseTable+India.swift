extension PhraseTable {
    /// The languages of India's counters besides Hindi and Tamil, and Urdu (issue 50): all
    /// machine-written, awaiting a speaker's check. Their amounts are digits the voice reads
    /// (`VoiceNumberAmountGrammar`), Gujarati's ICU's words. Where a count before a noun would
    /// need a classifier or agreement, the summary names the count after a colon.
    static let indian: [PhraseTable] = [
        PhraseTable(
            language: "mr", checkedBySpeaker: false,
            paymentReceived: "पेमेंट मिळाले: {amount}",
            paymentsSummary: "पेमेंटची संख्या: {count}, एकूण {amount}",
            whileItWasQuiet: "शांत वेळेत आलेले:", test: "Herald तयार आहे.",
            majorAndMinor: "{major} आणि {minor}"),
        // bn: a count before a noun takes a classifier (দুটি); "number of payments: {count}" needs none.
        PhraseTable(
            language: "bn", checkedBySpeaker: false,
            paymentReceived: "পেমেন্ট পাওয়া গেছে: {amount}",
            paymentsSummary: "পেমেন্টের সংখ্যা: {count}, মোট {amount}",
            whileItWasQuiet: "নীরব সময়ে যা এসেছে:", test: "Herald প্রস্তুত।",
            majorAndMinor: "{major} {minor}"),
        // te, kn, ml, or: rupees and paise side by side, as on their soundboxes.
        PhraseTable(
            language: "te", checkedBySpeaker: false,
            paymentReceived: "చెల్లింపు అందింది: {amount}",
            paymentsSummary: "చెల్లింపుల సంఖ్య: {count}, మొత్తం {amount}",
            whileItWasQuiet: "నిశ్శబ్ద సమయంలో వచ్చినవి:", test: "Herald సిద్ధంగా ఉంది.",
            majorAndMinor: "{major} {minor}"),
        PhraseTable(
            language: "kn", checkedBySpeaker: false,
            paymentReceived: "ಪಾವತಿ ಸ್ವೀಕರಿಸಲಾಗಿದೆ: {amount}",
            paymentsSummary: "ಪಾವತಿಗಳ ಸಂಖ್ಯೆ: {count}, ಒಟ್ಟು {amount}",
            whileItWasQuiet: "ಶಾಂತ ಸಮಯದಲ್ಲಿ ಬಂದವು:", test: "Herald ಸಿದ್ಧವಾಗಿದೆ.",
            majorAndMinor: "{major} {minor}"),
        PhraseTable(
            language: "ml", checkedBySpeaker: false,
            paymentReceived: "പണം ലഭിച്ചു: {amount}",
            paymentsSummary: "പേയ്മെന്റുകളുടെ എണ്ണം: {count}, ആകെ {amount}",
            whileItWasQuiet: "ശാന്ത സമയത്ത് വന്നവ:", test: "Herald തയ്യാറാണ്.",
            majorAndMinor: "{major} {minor}"),
        PhraseTable(
            language: "pa", checkedBySpeaker: false,
            paymentReceived: "ਭੁਗਤਾਨ ਪ੍ਰਾਪਤ ਹੋਇਆ: {amount}",
            paymentsSummary: "ਭੁਗਤਾਨਾਂ ਦੀ ਗਿਣਤੀ: {count}, ਕੁੱਲ {amount}",
            whileItWasQuiet: "ਸ਼ਾਂਤ ਸਮੇਂ ਦੌਰਾਨ:", test: "Herald ਤਿਆਰ ਹੈ।",
            majorAndMinor: "{major} ਅਤੇ {minor}"),
        PhraseTable(
            language: "or", checkedBySpeaker: false,
            paymentReceived: "ଦେୟ ପ୍ରାପ୍ତ ହେଲା: {amount}",
            paymentsSummary: "ଦେୟ ସଂଖ୍ୟା: {count}, ମୋଟ {amount}",
            whileItWasQuiet: "ଶାନ୍ତ ସମୟରେ ଆସିଥିବା:", test: "Herald ପ୍ରସ୍ତୁତ।",
            majorAndMinor: "{major} {minor}"),
        PhraseTable(
            language: "gu", checkedBySpeaker: false,
            paymentReceived: "ચુકવણી મળી: {amount}",
            paymentsSummary: "ચુકવણીની સંખ્યા: {count}, કુલ {amount}",
            whileItWasQuiet: "શાંત સમય દરમિયાન:", test: "Herald તૈયાર છે.",
            majorAndMinor: "{major} અને {minor}"),
        PhraseTable(
            language: "ur", checkedBySpeaker: false,
            paymentReceived: "ادائیگی موصول ہوئی: {amount}",
            paymentsSummary: "ادائیگیوں کی تعداد: {count}، کل {amount}",
            whileItWasQuiet: "خاموشی کے وقت:", test: "Herald تیار ہے۔",
            majorAndMinor: "{major} اور {minor}"),
    ]
}
