internal import CGEOS

/// One GEOS context handle: the state every reentrant (`_r`) GEOS call runs in.
///
/// Not thread-safe: GEOS allows a context to be used by one thread at a time. Make one context
/// per evaluator (or per thread) and build every ``PreparedShape`` and ``GEOSSTRTree`` of that
/// evaluator from it; they keep the context alive for as long as they exist. The type is
/// deliberately not `Sendable`.
///
/// GEOS's error and notice messages are captured and attached to the ``GEOSError`` thrown by
/// the call that failed.
public final class GEOSContext {
  /// The handle; valid for the lifetime of this object.
  let handle: GEOSContextHandle_t
  /// Where the C message handler writes; retained by this object, passed unretained to GEOS.
  private let messages: MessageBox

  /// Creates a context and installs its message handlers.
  ///
  /// - Throws: ``GEOSError`` when GEOS cannot allocate a context.
  public init() throws(GEOSError) {
    guard let handle = GEOS_init_r() else {
      throw GEOSError(function: "GEOS_init_r", message: "GEOS could not create a context")
    }
    self.handle = handle
    self.messages = MessageBox()
    let box = Unmanaged.passUnretained(messages).toOpaque()
    // The handlers are C function pointers: no captures, the box arrives as userdata.
    _ = GEOSContext_setErrorMessageHandler_r(
      handle,
      { message, userdata in
        guard let userdata else { return }
        let box = Unmanaged<MessageBox>.fromOpaque(userdata).takeUnretainedValue()
        box.error = message.map { String(cString: $0) } ?? "GEOS gave no message"
      }, box)
    _ = GEOSContext_setNoticeMessageHandler_r(
      handle,
      { message, userdata in
        guard let userdata else { return }
        let box = Unmanaged<MessageBox>.fromOpaque(userdata).takeUnretainedValue()
        box.notice = message.map { String(cString: $0) }
      }, box)
  }

  deinit {
    GEOS_finish_r(handle)
  }

  /// The GEOS version this process is linked against, such as `"3.11.1-CAPI-1.17.1"`.
  public var version: String {
    GEOSversion().map { String(cString: $0) } ?? "unknown"
  }

  /// The last notice GEOS sent (GEOS uses notices for non-fatal remarks), if any.
  public var lastNotice: String? { messages.notice }

  // MARK: - Checking sentinels

  /// The error for a call that returned its failure sentinel, with GEOS's message if one came.
  func error(_ function: String) -> GEOSError {
    let message = messages.error ?? "GEOS reported failure without a message"
    messages.error = nil
    return GEOSError(function: function, message: message)
  }

  /// The message of an error GEOS reported since the last check, for calls that return no
  /// sentinel (`void` functions); clears it.
  func pendingError() -> String? {
    defer { messages.error = nil }
    return messages.error
  }

  /// Unwraps a pointer result; null is GEOS's failure sentinel.
  func check<Pointer>(_ function: String, _ result: Pointer?) throws(GEOSError) -> Pointer {
    guard let result else { throw error(function) }
    return result
  }

  /// Reads a predicate result: 1 is true, 0 is false, 2 (or anything else) is an exception.
  func predicate(_ function: String, _ result: CChar) throws(GEOSError) -> Bool {
    switch result {
    case 1: return true
    case 0: return false
    default: throw error(function)
    }
  }

  /// Checks a status result of the form "0 on exception, 1 on success".
  func status(_ function: String, _ result: Int32) throws(GEOSError) {
    guard result != 0 else { throw error(function) }
  }
}

/// The last error and notice texts GEOS sent to one context.
private final class MessageBox {
  var error: String?
  var notice: String?
}
