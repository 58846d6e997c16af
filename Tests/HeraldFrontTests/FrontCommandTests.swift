@testable import HeraldFront
import Testing

/// What the lean front takes on itself and what it leaves to herald-full.
@Suite struct FrontCommandTests {
    func parsed(_ words: [String], config: String? = nil) -> FrontCommand? {
        FrontCommand(arguments: words, environmentConfig: config)
    }

    @Test func sayAndPayWithTheOptionsTheAPITakes() throws {
        let say = try #require(parsed(["say", "Counter three", "--lang", "en", "--voice=nova", "--chime", "none"]))
        #expect(say.verb == .say && say.argument == "Counter three")
        #expect(say.options == ["lang": "en", "voice": "nova", "chime": "none"])
        let pay = try #require(parsed(["pay", "--currency", "EUR", "12.50", "--config", "/etc/h.yaml"], config: "/other.yaml"))
        #expect(pay.argument == "12.50" && pay.options == ["currency": "EUR"])
        #expect(pay.configPath == "/etc/h.yaml", "--config wins over HERALD_CONFIG")
        #expect(parsed(["say", "hi"], config: "/x.yaml")?.configPath == "/x.yaml")
        #expect(parsed(["say", "hi"], config: "")?.configPath == nil, "an empty HERALD_CONFIG is no config, as in herald-full")
    }

    @Test(arguments: [
        ["status"], ["play", "a.wav"], ["say"], ["say", "a", "b"], ["say", "hi", "--json"], ["say", "hi", "--local"],
        ["say", "hi", "-v"], ["say", "--help"], ["say", "hi", "--lang"], ["say", "hi", "--lang", "en", "--lang", "zh"],
        ["say", "hi", "--currency", "EUR"], ["pay", "5", "--voice", "nova"], ["say", "--", "-5 degrees"],
        ["say", "hi", "--lang", "--json"], ["say", "   \n"], [],
        ["say", "hi", "--priority", "HIGH"],
        // herald-full refuses these itself, in its own words (and a negative amount as such, not
        // as an unknown option).
        ["say", "bell\u{7}"], ["say", "\u{1B}[31mred"], ["say", "del\u{7F}"], ["say", "next\u{85}line"],
        ["pay", "-5"], ["pay", "-5.50", "--currency", "EUR"],
    ])
    func whatHeraldFullMustParse(_ words: [String]) {
        #expect(parsed(words) == nil, "\(words) goes to herald-full")
    }

    @Test func theBodyIsTheOneHeraldFullSends() throws {
        #expect(try #require(parsed(["say", "Tea \"now\"\\\n\té"])).requestBody
            == #"{"text": "Tea \"now\"\\\n\té", "priority": "normal"}"#)
        #expect(FrontCommand.quoted("\u{1}") == #""\u0001""#, "escaped all the same, should one ever be sent")
        #expect(try #require(parsed(["pay", "25.30"])).requestBody
            == #"{"payment": {"amount": "25.30"}, "priority": "high"}"#, "the daemon's config names the currency")
        #expect(try #require(parsed(["pay", "7", "--currency", "JPY", "--priority", "critical", "--lang", "zh"])).requestBody
            == #"{"payment": {"amount": "7", "currency": "JPY"}, "priority": "critical", "lang": "zh"}"#)
    }

    @Test func tabsAndLineBreaksAreNotControlCharactersToRefuse() throws {
        #expect(parsed(["say", "line one\nline two\r\n\tindented"]) != nil)
    }

    @Test func anAnswerIsReadByLengthOrByChunks() throws {
        let plain = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 6\r\n\r\nplayed".utf8)
        #expect(HTTPAnswer(Array(plain.dropLast(2)))?.isComplete == false)
        let whole = try #require(HTTPAnswer(plain))
        #expect(whole.isComplete && whole.outcome == .answered(status: 200, body: "played", isText: true))
        let json = try #require(HTTPAnswer(Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".utf8)))
        #expect(json.outcome == .answered(status: 200, body: "{}", isText: false), "an older daemon's JSON is not printed as the line")
        let negative = try #require(HTTPAnswer(Array("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nx".utf8)))
        #expect(negative.contentLength == nil && negative.text == "x", "a negative length is no length (and no trap)")
        let badChunk = try #require(HTTPAnswer(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nab\r\n".utf8)))
        #expect(badChunk.dechunked == nil)
        let chunked = Array("HTTP/1.1 400 Bad Request\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\n".utf8)
        #expect(HTTPAnswer(Array(chunked.dropLast(5)))?.isComplete == false, "not before the last chunk")
        let joined = try #require(HTTPAnswer(chunked))
        #expect(joined.status == 400 && joined.text == "abcde")
        #expect(HTTPAnswer(Array("SSH-2.0\r\n\r\n".utf8)) == nil)
    }

    @Test func noDaemonIsKnownAtOnceAndNothingIsSent() {
        #expect(DaemonExchange.post(socketPath: "/nonexistent/herald.sock", path: "/", body: "{}") == .notSent)
    }
}
