import HeraldCore
import Speech
import Testing

@Suite struct SpeechNamesTests {
    @Test(arguments: ["en", "zh", "zh-cmn", "en-gb-x-rp", "cmn-latn-pinyin", "de"])
    func languageTags(tag: String) { #expect(SpeechNames.isLanguageTag(tag)) }

    @Test(arguments: ["", "../../etc", "en.us", "en/us", "-en", "en-", "1en", "en us", "日本",
                      String(repeating: "a", count: 36)])
    func notLanguageTags(text: String) { #expect(!SpeechNames.isLanguageTag(text)) }

    @Test(arguments: ["en-us", "en-us+f3", "cmn", "en_US-lessac-medium", "v1.2", "9x"])
    func voiceNames(name: String) { #expect(SpeechNames.isVoiceName(name)) }

    @Test(arguments: ["", "-w/tmp/x", "../../../etc/passwd", "a/b", "+f3", "en us", "{text}", String(repeating: "a", count: 65)])
    func notVoiceNames(text: String) { #expect(!SpeechNames.isVoiceName(text)) }
}

/// The checks the API and the CLI run on `lang` and `voice`, with the real espeak-ng library.
@Suite(.serialized) struct SpeechIntakeTests {
    let settings = SpeechSettings()

    func languageError(_ language: String, forPayment: Bool = false, settings: SpeechSettings? = nil) async -> SpeechFieldError? {
        do {
            try await (settings ?? self.settings).checkLanguage(language, forPayment: forPayment)
            return nil
        } catch { return error }
    }

    func voiceError(_ voice: String, settings: SpeechSettings? = nil) async -> SpeechFieldError? {
        do {
            try await (settings ?? self.settings).checkVoice(voice)
            return nil
        } catch { return error }
    }

    @Test func espeakNGListsItsLanguagesVoicesAndVariants() async throws {
        let catalog = try await EspeakSynthesizer.shared.catalog()
        #expect(catalog.knows(language: "en") && catalog.knows(language: "zh") && catalog.knows(language: "EN-us"))
        #expect(catalog.knows(voice: "en-us") && catalog.knows(voice: "en-us+f3") && catalog.knows(voice: "cmn"))
        #expect(!catalog.knows(language: "xx-nope"))
        #expect(!catalog.knows(voice: "nonexistent-voice") && !catalog.knows(voice: "en-us+nonexistent"))
        #expect(catalog.suggestedLanguages.prefix(2) == ["en", "zh"])
    }

    @Test func languagesHeraldSpeaksPass() async {
        for language in ["en", "zh", "de", "en-gb"] { #expect(await languageError(language) == nil, "\(language)") }
        #expect(await languageError("zh", forPayment: true) == nil)
        #expect(await languageError("en-us", forPayment: true) == nil)
    }

    @Test func aLanguageEspeakNGLacksIsNamedWithWhatToUse() async throws {
        let error = try #require(await languageError("xx-nope"))
        #expect(error.field == "lang")
        #expect(error.message.contains("'xx-nope' is not a language espeak-ng speaks"))
        #expect(error.message.contains("use one of en, zh, de") && error.message.hasSuffix("or omit it"))
    }

    @Test func aPathOrAHugeValueIsNotATagAndIsNotEchoedWhole() async throws {
        let path = try #require(await languageError("../../etc"))
        #expect(path.message.contains("is not a language tag"))
        let huge = try #require(await languageError(String(repeating: "e", count: 5000)))
        #expect(huge.message.contains("(5000 characters)") && huge.message.count < 300)
    }

    /// ICU spells no numbers in Assamese and it is not among the languages whose numbers the
    /// voice reads (`LanguageSources`): a payment in it is refused, naming the languages that work.
    @Test(arguments: ["as", "xx"]) func paymentsNeedAGrammar(language: String) async throws {
        let error = try #require(await languageError(language, forPayment: true))
        #expect(error.message.contains("amounts cannot be spoken in '\(language)'"), "\(error)")
        #expect(error.message.contains("de, en, es"), "\(error)")
        #expect(await languageError("de", forPayment: true) == nil, "German amounts come from CLDR")
    }

    @Test func theCommandEngineChecksOnlyTheShape() async {
        var command = SpeechSettings()
        command.engine = .command
        #expect(await languageError("xx-nope", settings: command) == nil)
        #expect(await languageError("../x", settings: command) != nil)
        #expect(await voiceError("en_US-lessac-medium", settings: command) == nil)
        #expect(await voiceError("--output=/tmp/x", settings: command) != nil)
    }

    @Test func voicesAreAliasesOrEspeakNGVoices() async throws {
        for voice in ["nova", "Alloy", "en-us", "en-us+f3", "cmn"] { #expect(await voiceError(voice) == nil, "\(voice)") }
        let unknown = try #require(await voiceError("nonexistent-voice"))
        #expect(unknown.field == "voice")
        #expect(unknown.message.contains("alloy, echo, fable, nova, onyx, shimmer"))
        let path = try #require(await voiceError("../../../etc/passwd"))
        #expect(path.message.contains("is not a voice name"))
    }
}
