@testable import IngestCore
import Testing

/// docs/node-api.md's status table, row by row: an HTTP reply as `NodeClient` reads it, then
/// what the gate decides for it.
struct GateDecisionTests {
    /// A drain that has waited 10 s of its 60, with no failed connection yet; a failure would wait 2 s.
    static let fresh = DrainFacts(waited: 10, maxWait: 60, connectFailures: 0, backoff: 2)

    static func decide(status: Int, body: String = "", headers: [String: String] = [:], batchSize: Int = 10,
                       endpoint: Endpoint = .photos, credential: CredentialKind = .deviceToken, facts: DrainFacts = fresh) -> GateAction {
        let reply = NodeClient.reply(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)), expectedItems: batchSize)
        return decide(reply, batchSize: batchSize, endpoint: endpoint, credential: credential, facts: facts)
    }

    static func decide(_ reply: NodeReply, batchSize: Int = 10, endpoint: Endpoint = .photos,
                       credential: CredentialKind = .deviceToken, facts: DrainFacts = fresh) -> GateAction {
        GateAction.decide(reply, batchSize: batchSize, endpoint: endpoint, credential: credential, facts: facts)
    }

    // MARK: - 200

    @Test func a200WithCountsDelivers() {
        #expect(Self.decide(status: 200, body: #"{"accepted": 7, "duplicates": 3}"#) == .deliver(accepted: 7, duplicates: 3))
    }

    @Test func a200WhoseCountsDoNotAddUpStillDelivers() {
        #expect(Self.decide(status: 200, body: #"{"accepted": 2, "duplicates": 0}"#) == .deliver(accepted: 2, duplicates: 0))
    }

    @Test func a200WithoutCountsIsRetriedAfterTheBackoff() {
        #expect(Self.decide(status: 200, body: "{}") == .retry(after: 2, .failed("the node answered 200 without counts")))
    }

    // MARK: - 400

    @Test func a400WithAnIndexDeliversWhatCameBeforeThenIsolatesTheItemThenTheRest() {
        #expect(Self.decide(status: 400, body: #"{"error": "bad lat", "index": 4}"#) == .split([0..<4, 4..<5, 5..<10]))
    }

    @Test func a400WithAnIndexAtEitherEndSplitsInTwo() {
        #expect(Self.decide(status: 400, body: #"{"error": "bad lat", "index": 0}"#) == .split([0..<1, 1..<10]))
        #expect(Self.decide(status: 400, body: #"{"error": "bad lat", "index": 9}"#) == .split([0..<9, 9..<10]))
    }

    @Test func a400WithoutAnIndexOrWithOneOutsideTheBatchBisects() {
        #expect(Self.decide(status: 400, body: #"{"error": "malformed"}"#) == .split([0..<5, 5..<10]))
        #expect(Self.decide(status: 400, body: #"{"error": "malformed", "index": 10}"#) == .split([0..<5, 5..<10]))
        #expect(Self.decide(status: 400, body: #"{"error": "malformed", "index": -1}"#, batchSize: 7) == .split([0..<3, 3..<7]))
    }

    @Test func a400OnASingleItemDeadLettersItWithTheNodesMessage() {
        #expect(Self.decide(status: 400, body: #"{"error": "bad lat", "index": 0}"#, batchSize: 1) == .deadLetter(.refused("bad lat")))
        #expect(Self.decide(status: 400, body: "not json", batchSize: 1, endpoint: .capture) == .deadLetter(.refused("not json")))
    }

    // MARK: - 401, 403

    @Test func a401OnTheDeviceTokenStops() {
        #expect(Self.decide(status: 401) == .stop(.unauthorized))
        #expect(Self.decide(status: 401, endpoint: .capture) == .stop(.unauthorized))
    }

    @Test func a401OnTheCaptureKeyResendsWithTheDeviceToken() {
        #expect(Self.decide(status: 401, endpoint: .capture, credential: .captureKey) == .resendWithDeviceToken)
    }

    @Test func a403OnTheCaptureKeyResendsWithTheDeviceToken() {
        #expect(Self.decide(status: 403, body: #"{"error": "no scope"}"#, endpoint: .capture, credential: .captureKey) == .resendWithDeviceToken)
    }

    @Test func a403OnTheDeviceTokenParksTheEndpoint() {
        #expect(Self.decide(status: 403, body: #"{"error": "no ingest scope"}"#, endpoint: .health)
            == .park(reason: "the token may not send health (403: no ingest scope)"))
    }

    // MARK: - 404, 413

    @Test func a404ParksTheEndpointAsTooOld() {
        #expect(Self.decide(status: 404, endpoint: .capture) == .park(reason: "node too old for capture (404); its items stay queued"))
    }

    @Test func a413OnManyItemsSplitsInHalves() {
        #expect(Self.decide(status: 413) == .split([0..<5, 5..<10]))
        #expect(Self.decide(status: 413, batchSize: 2) == .split([0..<1, 1..<2]))
    }

    @Test func a413OnASingleItemDeadLettersIt() {
        #expect(Self.decide(status: 413, batchSize: 1) == .deadLetter(.tooLarge))
        #expect(GateAction.DeadLetterCause.tooLarge.error == "larger than the node accepts (413)")
    }

    // MARK: - 429, 503

    @Test(arguments: [429, 503])
    func busyWithRetryAfterWithinTheBudgetWaitsAsAsked(status: Int) {
        #expect(Self.decide(status: status, headers: ["retry-after": "30"]) == .retry(after: 30, .busyAsAsked))
        #expect(Self.decide(status: status, headers: ["retry-after": "50"]) == .retry(after: 50, .busyAsAsked), "10 s waited + 50 is the whole budget")
    }

    @Test func aRetryAfterOfZeroStillWaitsAMoment() {
        #expect(Self.decide(status: 429, headers: ["retry-after": "0"]) == .retry(after: 0.05, .busyAsAsked))
    }

    @Test(arguments: [429, 503])
    func busyWithRetryAfterBeyondTheBudgetStopsAndRemembersIt(status: Int) {
        #expect(Self.decide(status: status, headers: ["retry-after": "3600"]) == .stop(.busy(retryAfter: 3600)))
        #expect(Self.decide(status: status, headers: ["retry-after": "51"]) == .stop(.busy(retryAfter: 51)))
    }

    @Test(arguments: [429, 503])
    func busyWithoutRetryAfterWaitsTheBackoff(status: Int) {
        #expect(Self.decide(status: status) == .retry(after: 2, .busy))
    }

    @Test(arguments: [429, 503])
    func busyWithoutRetryAfterBeyondTheBudgetStops(status: Int) {
        let spent = DrainFacts(waited: 59, maxWait: 60, connectFailures: 0, backoff: 2)
        #expect(Self.decide(status: status, facts: spent) == .stop(.stayedBusy))
    }

    @Test func onlyABackoffWaitGrowsTheBackoff() {
        #expect(GateAction.RetryCause.busy.usedBackoff)
        #expect(GateAction.RetryCause.failed("HTTP 502").usedBackoff)
        #expect(GateAction.RetryCause.unreachable("refused").usedBackoff)
        #expect(!GateAction.RetryCause.busyAsAsked.usedBackoff)
    }

    // MARK: - Other 5xx, timeouts, resets

    @Test(arguments: [500, 502, 504])
    func otherServerErrorsAreRetriedAfterTheBackoff(status: Int) {
        #expect(Self.decide(status: status) == .retry(after: 2, .failed("HTTP \(status)")))
    }

    @Test func aServerErrorBeyondTheBudgetStops() {
        let spent = DrainFacts(waited: 59, maxWait: 60, connectFailures: 2, backoff: 2)
        #expect(Self.decide(status: 500, facts: spent) == .stop(.unreachable("HTTP 500")))
    }

    @Test func timeoutsAndResetsDoNotCountAsFailedConnections() {
        let twoFailed = DrainFacts(waited: 10, maxWait: 60, connectFailures: 2, backoff: 2)
        #expect(Self.decide(.transient(message: "timed out"), facts: twoFailed) == .retry(after: 2, .failed("timed out")))
    }

    // MARK: - No connection, untrusted TLS

    @Test func aFailedConnectionIsRetriedAfterTheBackoff() {
        #expect(Self.decide(.unreachable(message: "connection refused")) == .retry(after: 2, .unreachable("connection refused")))
        let oneFailed = DrainFacts(waited: 10, maxWait: 60, connectFailures: 1, backoff: 2)
        #expect(Self.decide(.unreachable(message: "connection refused"), facts: oneFailed) == .retry(after: 2, .unreachable("connection refused")))
    }

    @Test func theThirdFailedConnectionInARowStops() {
        let twoFailed = DrainFacts(waited: 1, maxWait: 60, connectFailures: 2, backoff: 2)
        #expect(Self.decide(.unreachable(message: "connection refused"), facts: twoFailed) == .stop(.unreachable("connection refused")))
    }

    @Test func aFailedConnectionBeyondTheBudgetStops() {
        let spent = DrainFacts(waited: 59, maxWait: 60, connectFailures: 0, backoff: 2)
        #expect(Self.decide(.unreachable(message: "no route"), facts: spent) == .stop(.unreachable("no route")))
    }

    @Test func anUntrustedCertificateStopsAtOnce() {
        #expect(Self.decide(.untrusted(message: "self-signed certificate")) == .stop(.untrusted("self-signed certificate")))
    }
}
