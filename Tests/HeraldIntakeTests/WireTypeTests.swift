import Foundation
import HeraldCore
import HeraldIntake
import Testing

/// The CLI writes the body and reads the error with the types the server reads and writes.
struct WireTypeTests {
    @Test func aNativeBodyIsWrittenAsTheAPIReadsIt() throws {
        let body = NativeAnnouncement(payment: .init(amount: AmountText("25.30"), currency: "USD"), audioUrl: nil,
                                      priority: "high", lang: "en", requestId: "till-7/1")
        let json = String(decoding: try JSONEncoder.api.encode(body), as: UTF8.self)
        #expect(json == #"{"lang":"en","payment":{"amount":"25.30","currency":"USD"},"priority":"high","request_id":"till-7\/1"}"#)
        let back = try decodeJSON(NativeAnnouncement.self, from: Array(json.utf8))
        #expect(back.payment?.amount.text == "25.30" && back.requestId == "till-7/1")
        #expect(String(decoding: try JSONEncoder.api.encode(NativeAnnouncement(audioUrl: "https://a.example/x.wav")), as: UTF8.self)
            == #"{"audio_url":"https:\/\/a.example\/x.wav"}"#)
    }

    @Test func aNumberAmountIsReadFromItsDigits() throws {
        let body = try decodeJSON(NativeAnnouncement.self, from: Array(#"{"payment": {"amount": 0.1}}"#.utf8))
        #expect(body.payment?.amount.text == "0.1")
    }

    @Test func theErrorBodyReadsWithAndWithoutAField() throws {
        let withField = try JSONDecoder().decode(ErrorBody.self, from: Data(#"{"error":{"field":"text","message":"is empty"}}"#.utf8))
        #expect(withField.error == .init(field: "text", message: "is empty"))
        let whole = try JSONDecoder().decode(ErrorBody.self, from: Data(#"{"error":{"message":"the queue is full"}}"#.utf8))
        #expect(whole.error.field == nil && whole.error.message == "the queue is full")
    }
}
