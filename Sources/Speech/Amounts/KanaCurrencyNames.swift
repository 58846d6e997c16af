/// Japanese currency names in kana, for the names CLDR writes with kanji (円, 米ドル, 英国ポンド):
/// espeak-ng reads kana but says "Chinese letter" for every kanji. Machine-written, unchecked.
enum KanaCurrencyNames {
    /// The kana name of `code`; for a currency this table lacks, its ISO code letter by letter.
    static func name(_ code: String) -> String {
        names[code] ?? code.uppercased().map { letters[$0] ?? "" }.joined()
    }

    /// True when `text` has no kanji (CLDR's katakana names, ユーロ, are kept as they are).
    static func isKana(_ text: String) -> Bool {
        !text.unicodeScalars.contains { (0x3400...0x4DBF).contains($0.value) || (0x4E00...0x9FFF).contains($0.value) }
    }

    private static let names: [String: String] = [
        "JPY": "えん", "USD": "べいドル", "GBP": "えいこくポンド", "CNY": "じんみんげん", "KRW": "かんこくウォン",
        "TWD": "しんたいわんドル", "HKD": "ホンコンドル", "INR": "インドルピー", "RUB": "ロシアルーブル",
        "MXN": "メキシコペソ", "BRL": "ブラジルレアル", "TRY": "トルコリラ", "EGP": "エジプトポンド",
        "NGN": "ナイジェリアナイラ", "KES": "ケニアシリング", "VND": "ベトナムドン", "IDR": "インドネシアルピア",
    ]

    private static let letters: [Character: String] = [
        "A": "エー", "B": "ビー", "C": "シー", "D": "ディー", "E": "イー", "F": "エフ", "G": "ジー", "H": "エイチ",
        "I": "アイ", "J": "ジェー", "K": "ケー", "L": "エル", "M": "エム", "N": "エヌ", "O": "オー", "P": "ピー",
        "Q": "キュー", "R": "アール", "S": "エス", "T": "ティー", "U": "ユー", "V": "ブイ", "W": "ダブリュー",
        "X": "エックス", "Y": "ワイ", "Z": "ゼット",
    ]
}
