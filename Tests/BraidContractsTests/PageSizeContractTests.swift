import BraidContracts
import BraidTestSupport
import Foundation
import Testing

/// The page-size range is written once in Swift (``PageSize``); the OpenAPI document states it
/// wherever a page size is a parameter or a field, and must state the same.
@Suite("Page size in the contract")
struct PageSizeContractTests {
    @Test func theOpenAPIDocumentStatesTheRangeOfPageSize() throws {
        let document = try String(contentsOf: OpenAPIValidator.document, encoding: .utf8)
        let pattern = /(?:name: (?:per_page|size), in: query, (?:description: "[^"]*", )?schema: |per_page: )\{ type: integer, minimum: (\d+), maximum: (\d+)/
        let stated = document.matches(of: pattern).map { (Int($0.output.1) ?? -1)...(Int($0.output.2) ?? -1) }
        #expect(stated.count >= 3, "per_page (parameter and field) and the console's size: found \(stated.count)")
        for range in stated { #expect(range == PageSize.range, "the document states \(range), Swift \(PageSize.range)") }
    }
}
