extension BraidClient {
    /// This client's version: the `info.version` of the OpenAPI document it was generated from
    /// (CHANGELOG.md says what each version changed).
    public static let version = "1.0.0"
}
