import BraidConfig
import Foundation
import Testing
import BraidCore

/// Secrets from the environment or mounted files, and the settings that only mean something
/// together. Error messages name keys and variables, never values.
@Suite("secrets in the configuration")
struct SecretConfigurationTests {

    @Test func anyVariableCanComeFromAFileWithoutItsTrailingLineBreak() throws {
        let password = try temporaryFile("s3cret pass\n", extension: "secret")
        let key = try temporaryFile("cursor-key-from-a-file\r\n", extension: "secret")
        let configuration = try ConfigurationLoader.load(
            file: nil,
            environment: ["BRAID_REDIS_PASSWORD_FILE": password, "BRAID_GATEWAY_CURSOR_KEY_FILE": key, "BRAID_REDIS_POOL_SIZE_FILE": try temporaryFile("7\n", extension: "secret")])
        #expect(configuration.redis.password == "s3cret pass")
        #expect(configuration.gateway.cursorKey == "cursor-key-from-a-file")
        #expect(configuration.redis.poolSize == 7)
    }

    @Test func aVariableAndItsFileTogetherOrAnUnreadableFileAreErrors() throws {
        let both = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(
                file: nil, environment: ["BRAID_REDIS_PASSWORD": "hunter2", "BRAID_REDIS_PASSWORD_FILE": try temporaryFile("hunter2", extension: "secret")])
        }
        #expect(both?.message == "set BRAID_REDIS_PASSWORD or BRAID_REDIS_PASSWORD_FILE, not both")
        let missing = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(file: nil, environment: ["BRAID_REDIS_PASSWORD_FILE": "/nonexistent/redis-password"])
        }
        #expect(missing?.message == "BRAID_REDIS_PASSWORD_FILE: cannot read '/nonexistent/redis-password'")
    }

    @Test func kafkaPropertiesComeFromTheEnvironmentOverTheFile() throws {
        let file = try temporaryFile("kafka:\n  properties:\n    sasl.username: from-file\n    sasl.password: from-file\n    security.protocol: SASL_SSL\n")
        let configuration = try ConfigurationLoader.load(
            file: file,
            environment: [
                "BRAID_KAFKA_PROPERTY_SASL_PASSWORD_FILE": try temporaryFile("kafka-s3cret\n", extension: "secret"),
                "BRAID_KAFKA_PROPERTY_SASL_USERNAME": "braid", "BRAID_KAFKA_PROPERTY_SASL_MECHANISMS": "SCRAM-SHA-512",
            ])
        #expect(configuration.kafka.properties == [
            "sasl.username": "braid", "sasl.password": "kafka-s3cret", "sasl.mechanisms": "SCRAM-SHA-512", "security.protocol": "SASL_SSL",
        ])
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: nil, environment: ["BRAID_KAFKA_PROPERTY_": "x"]) }
    }

    @Test func aPreviousCursorKeyNeedsAnRFC3339TimeUntilWhichItIsAccepted() throws {
        let rotated = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "BRAID_GATEWAY_CURSOR_KEY": "new-key", "BRAID_GATEWAY_PREVIOUS_CURSOR_KEY": "old-key",
                "BRAID_GATEWAY_PREVIOUS_CURSOR_KEY_UNTIL": "2026-12-01T00:00:00Z",
            ])
        try rotated.validate()
        #expect(rotated.gateway.previousCursorKeyExpiry == Date(timeIntervalSince1970: 1_796_083_200))
        #expect(BraidConfiguration().gateway.previousCursorKeyExpiry == nil)

        for (environment, message) in [
            (["BRAID_GATEWAY_PREVIOUS_CURSOR_KEY": "old-key"], "gateway.previous_cursor_key_until must be an RFC 3339 time"),
            (["BRAID_GATEWAY_PREVIOUS_CURSOR_KEY": "old-key", "BRAID_GATEWAY_PREVIOUS_CURSOR_KEY_UNTIL": "next week"],
             "gateway.previous_cursor_key_until must be an RFC 3339 time"),
            (["BRAID_GATEWAY_PREVIOUS_CURSOR_KEY_UNTIL": "2026-12-01T00:00:00Z"], "neither gateway.previous_cursor_key nor gateway.previous_impression_key is"),
            (["BRAID_GATEWAY_PREVIOUS_IMPRESSION_KEY": "old-key"], "gateway.previous_cursor_key_until must be an RFC 3339 time"),
            (["BRAID_GATEWAY_IMPRESSION_KEY": "same", "BRAID_GATEWAY_CURSOR_KEY": "same"], "gateway.impression_key must differ from gateway.cursor_key"),
            (["BRAID_GATEWAY_CURSOR_KEY": "same", "BRAID_GATEWAY_PREVIOUS_CURSOR_KEY": "same", "BRAID_GATEWAY_PREVIOUS_CURSOR_KEY_UNTIL": "2026-12-01T00:00:00Z"],
             "must differ from gateway.cursor_key"),
            (["BRAID_SEARCH_ELASTICSEARCH_API_KEY": "k3y", "BRAID_SEARCH_ELASTICSEARCH_USERNAME": "braid"], "exclude each other"),
            (["BRAID_SEARCH_ELASTICSEARCH_PASSWORD": "pa55"], "search.elasticsearch.username is not"),
        ] {
            let configuration = try ConfigurationLoader.load(file: nil, environment: environment)
            let error = #expect(throws: ConfigurationError.self) { try configuration.validate() }
            #expect(error?.message.contains(message) == true, "\(String(describing: error))")
            for value in ["old-key", "same", "k3y", "pa55"] { #expect(error?.message.contains(value) == false) }
        }
    }
}
