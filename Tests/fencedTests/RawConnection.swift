import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP connection driven byte by byte, for clients no HTTP library would be: slow, half-closed,
/// or sending what they should not.
final class RawConnection {
  let socket: Int32

  init(port: Int) throws {
    socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw DaemonFailure("socket: \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      close(socket)
      throw DaemonFailure("connect: \(errno)")
    }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  func send(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  }

  /// Closes the sending half: the server reads end of stream.
  func shutdownWriting() { shutdown(socket, Int32(SHUT_WR)) }

  /// Everything the server sends until it closes the connection or 5 s pass.
  func readAll() -> String {
    var data = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = recv(socket, &buffer, buffer.count, 0)
      if count <= 0 { break }
      data += buffer[0..<count]
    }
    return String(decoding: data, as: UTF8.self)
  }

  /// What the server sends until `marker` arrived, the connection closed, or 5 s passed.
  func read(until marker: String) -> String {
    var data = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !String(decoding: data, as: UTF8.self).contains(marker) {
      let count = recv(socket, &buffer, buffer.count, 0)
      if count <= 0 { break }
      data += buffer[0..<count]
    }
    return String(decoding: data, as: UTF8.self)
  }

  deinit { close(socket) }
}
