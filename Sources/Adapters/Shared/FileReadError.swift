/// Why a file could not be read as its format (a cut-off zip, a read that failed, a database of
/// another shape), as one line for the warning that names the file; shared by the readers of
/// exports (health, location history) and the byte streams under them.
struct FileReadError: Error, Equatable, CustomStringConvertible {
    var description: String
    /// The file may read fine later (a database another program holds locked): it is not
    /// remembered as read, so the next scan tries again.
    var transient = false
    init(_ description: String, transient: Bool = false) { self.description = description; self.transient = transient }
}
