/// BDAY as the node takes it: `YYYY-MM-DD`, or `--MM-DD` when the year is not known.
///
/// Reads the forms the three versions and their exporters write: `1996-04-15` and `19960415`
/// (2.1, 3.0, 4.0), with or without a time after `T` (the date is taken as written, never moved
/// to another zone: a birthday is a calendar date), `--0415` and `--04-15` (4.0, Google's 3.0),
/// and Apple's year 1604 with `X-APPLE-OMIT-YEAR=1604`. A reduced date with no day (`1996`,
/// `1996-04`, `---15`) or a text value cannot be sent as a date.
enum VCardBirthday {
    static func parse(_ text: String, appleOmitYear: String? = nil) -> String? {
        var digits: [UInt8] = []
        var yearless = false
        var utf8 = Substring(text).utf8
        if let t = utf8.firstIndex(of: UInt8(ascii: "T")) { utf8 = utf8[..<t] }     // date-time: keep the date
        if utf8.starts(with: "--".utf8) { yearless = true; utf8 = utf8.dropFirst(2) }
        for b in utf8 {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(b - UInt8(ascii: "0"))
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            default: return nil
            }
        }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(digits[$1]) } }
        let year: Int?, month: Int, day: Int
        switch (yearless, digits.count) {
        case (true, 4): year = nil; month = number(0..<2); day = number(2..<4)
        case (false, 8): year = number(0..<4); month = number(4..<6); day = number(6..<8)
        default: return nil
        }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        let mmdd = pad(month) + "-" + pad(day)
        guard let year, appleOmitYear.flatMap(Int.init) != year else { return "--" + mmdd }
        return String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year) + "-" + mmdd
    }

    private static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func daysIn(month: Int, year: Int?) -> Int {
        switch month {
        case 2:
            guard let year else { return 29 }
            return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
