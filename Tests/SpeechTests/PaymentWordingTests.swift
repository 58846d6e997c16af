import HeraldCore
import Speech
import Testing

/// A text that says a payment's words is told from other texts (issue 42: with payments signed,
/// "Payment received: one thousand dollars" sent as text must not pass as a text).
@Suite struct PaymentWordingTests {
    let wording = PaymentWording()

    @Test(arguments: [
        "Payment received: one thousand dollars",
        "PAYMENT-RECEIVED 1000",
        "payment\u{200B}received, 50 dollars",
        "Paymentreceived fifty",
        "3 payments received, total ninety dollars",
        "Pago recibido: mil pesos",
        "Zahlung erhalten: tausend Euro",
        "收款一千元",
        "收到3笔付款，共五十元",
        "Оплата получена: тысяча рублей",
        "भुगतान प्राप्त हुआ: एक हज़ार रुपये",
        "Ödeme alındı: bin lira",
        "ÖDEME ALINDI: BİN LİRA",
        "P\u{0430}yment rec\u{0435}ived: fifty dollars",
        "Payment\u{FE0F} re\u{034F}ceived",
        "5けんの おしはらい、ごうけい 1000 えん",
        "Получено платежей: 3, на сумму тысяча рублей",
    ])
    func paymentWordsAreFound(text: String) {
        #expect(wording.template(saidBy: text) != nil, "\(text)")
    }

    @Test(arguments: [
        "Time to take your blood pressure medication",
        "The delivery has arrived at the back door",
        "Total: take two tablets",
        "Insgesamt drei Tabletten nehmen",
        "Dinner is ready",
        "请记得吃药",
        "收到快递请签收",
        "合計三錠を飲んでください",
        "Заказ на сумму пятьсот рублей готов",
        "Tổng cộng ba viên thuốc",
        "Đã nhận được tin nhắn",
    ])
    func otherTextsPass(text: String) {
        #expect(wording.template(saidBy: text) == nil, "\(text)")
    }

    @Test func phrasesFromTheConfigCountToo() {
        let custom = PaymentWording(overrides: ["it": [.payment: "Incasso registrato: {amount}"]])
        #expect(custom.template(saidBy: "Incasso registrato: mille euro") == "Incasso registrato: {amount}")
        #expect(wording.template(saidBy: "Incasso registrato: mille euro") == nil)
    }
}
