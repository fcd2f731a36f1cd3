import FenceStore
import Foundation
import PostgresNIO

/// Where a ``PostgresStorage`` connects: host, port, user, password and database, read from a
/// `postgres://user[:password]@host[:port]/database` URL (`postgresql://` too; the password
/// and user percent-decoded; port 5432 by default). TLS is not used: the server is expected on
/// a trusted network or loopback.
public struct PostgresSettings: Hashable, Sendable {
  public var host: String
  public var port: Int
  public var username: String
  public var password: String?
  public var database: String

  public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String) {
    self.host = host
    self.port = port
    self.username = username
    self.password = password
    self.database = database
  }

  /// Reads a `postgres://` URL.
  ///
  /// - Throws: ``StoreError/invalidCommand(_:)`` naming what is missing or malformed.
  public init(url text: String) throws {
    guard let url = URLComponents(string: text), let scheme = url.scheme,
      scheme == "postgres" || scheme == "postgresql"
    else {
      throw StoreError.invalidCommand(
        "not a PostgreSQL URL (postgres://user[:password]@host[:port]/database): \(Self.redact(text))")
    }
    guard let host = url.host, !host.isEmpty else {
      throw StoreError.invalidCommand("the PostgreSQL URL has no host: \(Self.redact(text))")
    }
    guard let user = url.user, !user.isEmpty else {
      throw StoreError.invalidCommand("the PostgreSQL URL has no user: \(Self.redact(text))")
    }
    let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
    guard !database.isEmpty, !database.contains("/") else {
      throw StoreError.invalidCommand("the PostgreSQL URL names no database: \(Self.redact(text))")
    }
    self.init(
      host: host, port: url.port ?? 5432, username: user, password: url.password,
      database: database)
  }

  /// The URL without its password, for messages and logs.
  public var redacted: String {
    "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
  }

  /// These settings with another database (tests make one database per test).
  public func with(database: String) -> PostgresSettings {
    var copy = self
    copy.database = database
    return copy
  }

  var connectionConfiguration: PostgresConnection.Configuration {
    PostgresConnection.Configuration(
      host: host, port: port, username: username, password: password, database: database,
      tls: .disable)
  }

  static func redact(_ text: String) -> String {
    guard var url = URLComponents(string: text), url.password != nil else { return text }
    url.password = "***"
    return url.string ?? text
  }
}
