import Foundation
@testable import HeraldFleet
import Testing

/// `GET /v1/hubs`'s query: which of its three answers, and a 400 naming the parameter for
/// every bad value.
@Suite struct HubListRequestTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func parse(_ parameters: [String: String]) throws(FleetAPIError) -> HubListRequest {
        try HubListRequest.parse(parameters, now: now)
    }

    func refusal(_ parameters: [String: String]) -> FleetAPIError? {
        do {
            _ = try parse(parameters)
            return nil
        } catch {
            return error
        }
    }

    @Test func withoutPagingParametersItIsEveryHubAsBefore() throws {
        #expect(try parse([:]) == .all(HubFilter()))
        #expect(try parse(["state": "offline", "group": "north"]) == .all(HubFilter(group: "north", state: .offline)))
    }

    @Test func aLimitOrANameAsksForOnePage() throws {
        #expect(try parse(["limit": "50"]) == .page(HubFilter(), after: nil, limit: 50))
        #expect(try parse(["q": " Shop-0"]) == .page(HubFilter(text: "shop-0"), after: nil, limit: 100))
        #expect(try parse(["after": "shop-0099", "state": "stale"]) == .page(HubFilter(state: .stale), after: "shop-0099", limit: 100))
        // An empty group or name is no filter (the page's "all").
        #expect(try parse(["limit": "1000", "group": "", "q": ""]) == .page(HubFilter(), after: nil, limit: 1000))
    }

    @Test func sinceAsksForTheChangesAndItsCursorRoundTrips() throws {
        let then = now.addingTimeInterval(-5)
        let cursor = HubListRequest.cursor(then)
        #expect(cursor == "1799999995000")
        #expect(try parse(["since": cursor, "group": "north"]) == .changes(HubFilter(group: "north"), since: then, limit: 1000))
        #expect(try parse(["since": cursor, "limit": "10"]) == .changes(HubFilter(), since: then, limit: 10))
    }

    @Test func aBadLimitIsRefusedNamingIt() {
        for bad in ["0", "1001", "-5", "ten", "", "1e3"] {
            let error = refusal(["limit": bad])
            #expect(error?.status == .badRequest && error?.field == "limit", "limit=\(bad)")
            #expect(error?.message.contains("'\(bad)'") == true, "\(String(describing: error?.message))")
        }
    }

    @Test func aBadStateIsRefusedNamingIt() {
        let error = refusal(["state": "asleep", "limit": "10"])
        #expect(error?.field == "state" && error?.message.contains("'asleep'") == true)
    }

    @Test func aBadCursorIsRefusedNamingIt() {
        for bad in ["", "shop 1", "a/b", "x#", String(repeating: "a", count: 65)] {
            #expect(refusal(["after": bad])?.field == "after", "after=\(bad)")
        }
        // Not a number, negative, far in the future (a minute of another console's clock is fine).
        for bad in ["", "yesterday", "-1", "99999999999999999", HubListRequest.cursor(now.addingTimeInterval(3600))] {
            let error = refusal(["since": bad])
            #expect(error?.field == "since" && error?.status == .badRequest, "since=\(bad)")
        }
        #expect(refusal(["since": HubListRequest.cursor(now.addingTimeInterval(30))]) == nil)
    }

    @Test func sinceGoesWithNeitherAfterNorState() {
        let since = HubListRequest.cursor(now)
        #expect(refusal(["since": since, "after": "shop-1"])?.field == "after")
        #expect(refusal(["since": since, "state": "online"])?.field == "state")
    }

    @Test func aNameLongerThanAHubNameIsRefused() {
        #expect(refusal(["q": String(repeating: "x", count: 65)])?.field == "q")
    }
}
