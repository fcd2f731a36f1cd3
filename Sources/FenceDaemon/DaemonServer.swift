import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// What both kinds of `fenced` (one process, or scaled out) serve with: the `/metrics` route,
/// the HTTP server on the settings' address, and the daemon's other services, in one
/// `ServiceGroup` that SIGTERM or SIGINT stops gracefully.
enum DaemonServer {
  /// Serves until SIGTERM or SIGINT (or a service fails: then it throws).
  ///
  /// - Parameters:
  ///   - refreshMetrics: sets the gauges before `/metrics` answers `metricsText()`.
  ///   - onListening: called with the bound port once the server accepts connections.
  static func serve(
    router: Router<BasicRequestContext>, settings: DaemonSettings, logger: Logger,
    metricsText: @escaping @Sendable () -> String, refreshMetrics: @escaping @Sendable () -> Void,
    onListening: @escaping @Sendable (Int) async -> Void, services: [any Service]
  ) async throws {
    router.get("/metrics") { _, _ in
      refreshMetrics()
      return Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: metricsText())))
    }
    let app = Application(
      router: router,
      server: .http1(configuration: .init(idleTimeout: .seconds(75))),
      configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "fenced"),
      onServerRunning: { channel in
        await onListening(channel.localAddress?.port ?? 0)
      },
      logger: logger)
    let group = ServiceGroup(
      configuration: .init(
        services: ([app] + services).map { .init(service: $0) },
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
  }
}
