import HeraldCore
import HeraldIntake
import Testing

/// One strict pass per body: it checks the syntax and says whether the top-level object is a
/// push payload's (`message` or `action`), so nothing parses the body again to find out.
struct StrictJSONTests {
    @Test(arguments: [
        (#"{"message": {"data": {"text": "hi"}}}"#, true),
        (#"{"action": "speak_tts", "text": "hi"}"#, true),
        (#"{"message": null}"#, true),
        (#"{"text": "hi"}"#, false),
        (#"{"text": "hi", "metadata": {"message": "x", "action": "y"}}"#, false),
        (#"[{"message": 1}]"#, false),
        (#""message""#, false),
    ])
    func theCheckSaysWhetherTheTopLevelHoldsMessageOrAction(body: String, push: Bool) throws {
        #expect(try StrictJSON.check(Array(body.utf8)).holdsMessageOrAction == push)
    }

    @Test func aSyntaxErrorIsABadRequestNamingWhere() {
        do {
            try checkSyntax(Array(#"{"text": "hi", "lang": x}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.reason == .badRequest && error.field == "lang" && error.message.hasPrefix("not valid JSON at line 1"))
        }
    }

    @Test func decodingNamesTheFieldAtFault() {
        #expect(throws: IntakeError.badRequest("payment.amount", "must be an amount: a string like \"25.30\" or a number")) {
            try decodeJSON(NativeAnnouncement.self, from: Array(#"{"payment": {"amount": true}}"#.utf8))
        }
    }
}
