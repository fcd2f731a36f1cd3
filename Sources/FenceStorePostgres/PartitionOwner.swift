import FenceEngine
import FenceFormats
import FenceStore
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// One process's part of the scaled-out store (decision 0010): the partitions it owns, each a
/// ``FenceStore`` on a ``PostgresStorage`` under a lease, and the loop that executes their
/// inboxes in order.
///
/// Every pass of the loop (``step()``):
/// - the partitions whose lease ran out by this process's own clock (it was paused, or could not
///   renew) are dropped first: another process may own them now.
/// - a lease pass, every third of the lease time: notes this process as live, renews its
///   leases (dropping the partitions whose lease another process took), and takes or gives
///   partitions so that it holds its fair share, `ceil(P / live processes)`. A partition taken
///   is recovered from its latest snapshot and command log; one given is snapshotted and its
///   lease released.
/// - an inbox pass: for every owned partition whose inbox head is past what it executed, the
///   next commands, each executed as one store command that records its inbox seq in the same
///   transaction (``CommandCommit/inboxSeq``). A command the engine refuses (a zone that does
///   not load, the removal of an absent zone) records its refusal instead, so every owner after
///   this one refuses it at the same place.
///
/// Any error of a partition other than a refusal (a lost lease, a broken connection, a
/// restarted server) closes its store: the next lease pass opens it again from the database,
/// with a new fencing token, when the lease is still this process's.
///
/// The loop runs on a thread of its own (``start()``), woken by `NOTIFY fk_inbox` from any
/// process's ``PartitionInbox/submit(_:idempotencyKey:)`` and by ``wake()``, and otherwise
/// every ``Options/pollSeconds``: correctness never depends on a notification.
public final class PartitionOwner: Sendable {
  public struct Options: Hashable, Sendable {
    /// How long a lease lasts without renewal: a dead process's partitions move after this.
    public var leaseSeconds: Double
    /// The longest wait between inbox passes when no notification comes.
    public var pollSeconds: Double
    /// At most this many commands of one partition per inbox pass.
    public var commandsPerPass: Int
    /// Connections that write, shared by the owned partitions; partitions of different
    /// connections execute concurrently.
    public var writers: Int

    public init(
      leaseSeconds: Double = 5, pollSeconds: Double = 0.05, commandsPerPass: Int = 64, writers: Int = 4
    ) {
      self.leaseSeconds = leaseSeconds
      self.pollSeconds = pollSeconds
      self.commandsPerPass = commandsPerPass
      self.writers = writers
    }
  }

  /// This process's name in `fk_leases` and `fk_owners`: unique per start.
  public let name: String
  public let partitioning: DevicePartitioning
  public let options: Options
  let configuration: ZoneEvaluator.Configuration
  let storeOptions: FenceStore.Options
  let logger: Logger
  let leases: PartitionLeases
  let inbox: PartitionInbox
  let writers: [PostgresConnections]
  let state = LockedValue(State())
  let wakeup = DispatchSemaphore(value: 0)
  /// Signalled when the loop's thread ends.
  let loopEnded = DispatchSemaphore(value: 0)
  let listener = LockedValue<(connection: PostgresConnection, context: PostgresListenContext)?>(nil)
  /// Called with every command's answer and how long it took to execute and commit.
  let onExecuted: (@Sendable (CommandAnswer, Duration) -> Void)?

  struct State {
    var owned: [Int32: OwnedPartition] = [:]
    var nextLeasePass: UInt64 = 0
    var isStopped = false
    var isRunning = false
  }

  /// A partition this process owns.
  struct OwnedPartition: Sendable {
    var lease: PartitionLeases.Lease
    var storage: PostgresStorage
    var store: FenceStore
    /// The last inbox seq executed.
    var progress: Int64
    /// When the lease runs out by this process's own clock (`DispatchTime` uptime
    /// nanoseconds): the lease time after its last renewal was *sent* (one follows every
    /// recovery), so never later than the server's expiry.
    var leaseValidUntil: UInt64
  }

  /// Connects (migrating the schema; creating the partitioning with `partitions` when the store
  /// has none) without taking any partition yet.
  ///
  /// - Throws: ``StoreError`` when the database cannot be used, or was created with another
  ///   partition count.
  public init(
    settings: PostgresSettings, partitions: Int32, name: String? = nil,
    configuration: ZoneEvaluator.Configuration = .default,
    storeOptions: FenceStore.Options = FenceStore.Options(), options: Options = Options(),
    logger: Logger? = nil, onExecuted: (@Sendable (CommandAnswer, Duration) -> Void)? = nil
  ) throws {
    self.onExecuted = onExecuted
    let logger = logger ?? Logger(label: "FenceStore.PartitionOwner")
    self.name =
      name ?? "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UInt32.random(in: 0...UInt32.max))"
    self.options = options
    self.configuration = configuration
    self.storeOptions = storeOptions
    self.logger = logger
    inbox = try PartitionInbox(settings: settings, partitions: partitions, logger: logger)
    partitioning = inbox.partitioning
    // A frozen old owner's transaction is ended by the server after a lease time, and a lease
    // statement waits at most a third of one for it: a takeover is never blocked for long.
    leases = try PartitionLeases(settings: settings, logger: logger, lockTimeout: options.leaseSeconds / 3)
    writers = try (0..<max(1, options.writers)).map { _ in
      try PostgresConnections(
        settings: settings, logger: logger, idleInTransactionTimeout: options.leaseSeconds)
    }
  }

  deinit {
    for writer in writers { writer.close() }
  }

  // MARK: - What it owns

  /// The partitions owned now, ascending.
  public var ownedPartitions: [Int32] {
    state.withLock { $0.owned.keys.sorted() }
  }

  /// The store of an owned partition (for reads: zones, devices, events), `nil` when another
  /// process owns it.
  public func store(of partition: Int32) -> FenceStore? {
    state.withLock { $0.owned[partition]?.store }
  }

  /// Any owned partition's store: every partition holds the same zones.
  public var anyStore: FenceStore? {
    state.withLock { state in state.owned.keys.min().flatMap { state.owned[$0]?.store } }
  }

  // MARK: - The loop

  /// Starts the loop on a thread of its own.
  public func start() {
    let thread = Thread { [self] in
      while !state.withLock({ $0.isStopped }) {
        step()
        _ = wakeup.wait(timeout: .now() + options.pollSeconds)
      }
      loopEnded.signal()
    }
    thread.name = "FenceStore.PartitionOwner"
    state.withLock { $0.isRunning = true }
    thread.start()
  }

  /// Makes the loop run its next pass now (a command was submitted to an owned partition).
  public func wake() { wakeup.signal() }

  /// Stops the loop, snapshots and closes every owned partition's store, releases its leases
  /// (the others take them at once) and closes the connections.
  public func stop() {
    let wasRunning = state.withLock { state -> Bool in
      state.isStopped = true
      return state.isRunning
    }
    if wasRunning {
      wakeup.signal()
      // The loop ends after its current pass.
      loopEnded.wait()
    }
    let owned = state.withLock { state in
      defer { state.owned = [:] }
      return state.owned
    }
    for (_, partition) in owned.sorted(by: { $0.key < $1.key }) {
      try? partition.store.close()
      try? leases.release(partition.lease)
    }
    try? leases.leave(owner: name)
    stopListening()
    leases.close()
    inbox.close()
    for writer in writers { writer.close() }
    logger.notice("partitions released", metadata: ["owner": "\(name)", "partitions": "\(owned.count)"])
  }

  /// One pass: the lease pass when due, then the inbox pass. Errors are logged, never thrown:
  /// a partition that failed is opened again by a later lease pass.
  public func step() {
    let now = DispatchTime.now().uptimeNanoseconds
    dropExpiredLeases(now: now)
    if state.withLock({ now >= $0.nextLeasePass }) {
      leasePass()
      state.withLock {
        $0.nextLeasePass = now + UInt64(options.leaseSeconds / 3 * 1e9)
      }
    }
    inboxPass()
  }

  /// Runs lease passes and inbox passes until every owned partition executed its inbox up to
  /// the heads read at the call (for tests and tools that drive the loop themselves).
  public func runUntilIdle() {
    state.withLock { $0.nextLeasePass = 0 }
    step()
    while inboxPass() {}
  }

  // MARK: - Leases

  func leasePass() {
    do {
      try leases.heartbeat(owner: name, seconds: options.leaseSeconds)
      listenIfNeeded()
      // Renew; a lease another process took ends this process's store of it.
      for (partition, owned) in state.withLock({ $0.owned }) {
        let sent = DispatchTime.now().uptimeNanoseconds
        if try leases.renew(owned.lease, seconds: options.leaseSeconds) {
          state.withLock { $0.owned[partition]?.leaseValidUntil = sent + leaseNanoseconds }
        } else {
          drop(partition, reason: "lease taken over")
        }
      }
      let owners = max(1, try leases.liveOwners().count)
      let count = Int(partitioning.count)
      let share = (count + owners - 1) / owners
      let owned = state.withLock { $0.owned }
      if owned.count > share {
        // Give the highest partitions back: a newcomer takes them.
        for partition in owned.keys.sorted().suffix(owned.count - share) {
          if let given = drop(partition, reason: "rebalanced") {
            try? leases.release(given.lease)
          }
        }
        return
      }
      guard owned.count < share else { return }
      let current = try leases.leases()
      // Start at a place of this process's own, so that processes starting together do not
      // all try the same partitions first.
      let offset = Int(ContentHash.of(Array(name.utf8)) % UInt64(count))
      var wanted = share - owned.count
      for step in 0..<count where wanted > 0 {
        let partition = Int32((offset + step) % count)
        guard owned[partition] == nil else { continue }
        if let lease = current[partition], lease.isLive, lease.owner != name { continue }
        guard let lease = try leases.acquire(partition, owner: name, seconds: options.leaseSeconds)
        else { continue }
        if open(partition, lease: lease) { wanted -= 1 }
      }
    } catch {
      logger.error("lease pass failed", metadata: ["owner": "\(name)", "error": "\(error)"])
    }
  }

  /// The lease time in `DispatchTime` nanoseconds.
  var leaseNanoseconds: UInt64 { UInt64(options.leaseSeconds * 1e9) }

  /// Drops every owned partition whose lease ran out by this process's own clock (it was paused,
  /// or could not reach the server to renew): from then on another process may own it, so this
  /// one stops acting as its owner at once instead of at its next refused write or renewal. The
  /// fencing token is what keeps such an owner from writing; this only makes it notice before it
  /// tries. A lease nobody took meanwhile is taken again by the lease pass that follows, with a
  /// new token, and its partition recovered from the database.
  func dropExpiredLeases(now: UInt64) {
    let expired = state.withLock { state in
      state.owned.filter { now >= $0.value.leaseValidUntil }.keys.sorted()
    }
    for partition in expired { drop(partition, reason: "lease expired") }
  }

  /// Opens the store of a partition just leased; `false` (logged) when it cannot be recovered.
  @discardableResult
  func open(_ partition: Int32, lease: PartitionLeases.Lease) -> Bool {
    let started = ContinuousClock.now
    do {
      let storage = PostgresStorage(
        connections: writers[Int(partition) % writers.count], partition: partition,
        fencingToken: lease.token, logger: logger)
      var options = storeOptions
      options.eventPartition = partition
      let store = try FenceStore(storage: storage, configuration: configuration, options: options)
      let progress = try storage.inboxProgress()
      // The recovery may have taken longer than the lease: renewed now, the lease's end by this
      // process's clock counts from here (or the next pass would drop it, and a recovery longer
      // than the lease would repeat for ever).
      let renewalSent = DispatchTime.now().uptimeNanoseconds
      let renewed: Bool
      do {
        renewed = try leases.renew(lease, seconds: self.options.leaseSeconds)
      } catch {
        try? store.close()
        throw error
      }
      guard renewed else {
        try? store.close()
        logger.notice(
          "partition dropped",
          metadata: ["owner": "\(name)", "partition": "\(partition)", "reason": "lease taken over while recovering"])
        return false
      }
      state.withLock {
        $0.owned[partition] = OwnedPartition(
          lease: lease, storage: storage, store: store, progress: progress,
          leaseValidUntil: renewalSent + leaseNanoseconds)
      }
      logger.info(
        "partition taken",
        metadata: [
          "owner": "\(name)", "partition": "\(partition)", "token": "\(lease.token)",
          "inboxSeq": "\(progress)", "commandsReplayed": "\(store.recovery.commandsReplayed)",
          "seconds": "\(ContinuousClock.now - started)",
        ])
      return true
    } catch {
      logger.error(
        "partition could not be opened",
        metadata: ["owner": "\(name)", "partition": "\(partition)", "error": "\(error)"])
      return false
    }
  }

  /// Closes an owned partition's store (a snapshot when it still can) and forgets it; the
  /// lease is kept (a later lease pass takes the partition again when it is still this
  /// process's).
  @discardableResult
  func drop(_ partition: Int32, reason: String) -> OwnedPartition? {
    guard let owned = state.withLock({ $0.owned.removeValue(forKey: partition) }) else { return nil }
    try? owned.store.close()
    logger.notice(
      "partition dropped", metadata: ["owner": "\(name)", "partition": "\(partition)", "reason": "\(reason)"])
    return owned
  }

  // MARK: - Inboxes

  /// Executes the next commands of every owned partition that has some, without a lease pass;
  /// `true` when any was executed. (The loop calls it; tests call it to play an owner that
  /// missed its lease passes.)
  @discardableResult
  public func inboxPass() -> Bool {
    let owned = state.withLock { $0.owned }
    guard !owned.isEmpty else { return false }
    let heads: [Int32: Int64]
    do {
      heads = try inbox.heads(of: Array(owned.keys))
    } catch {
      logger.error("reading the inbox heads failed", metadata: ["error": "\(error)"])
      return false
    }
    let due = owned.filter { (heads[$0.key] ?? 0) > $0.value.progress }.keys.sorted()
    guard !due.isEmpty else { return false }
    // Partitions of one writing connection run one after another; the groups run side by side,
    // each on a thread of its own (they wait on the database, not on the cores:
    // `concurrentPerform` would run no more of them at once than there are cores).
    let groups = Dictionary(grouping: due) { Int($0) % writers.count }.values.map { $0 }
    let executed = LockedValue(false)
    let done = DispatchGroup()
    for group in groups {
      DispatchQueue.global().async(group: done) {
        for partition in group where self.execute(partition) {
          executed.withLock { $0 = true }
        }
      }
    }
    done.wait()
    return executed.withLock { $0 }
  }

  /// Executes the next commands of one partition; `true` when any was executed. Runs of fix
  /// batches, advances and tag changes are committed together, in one transaction
  /// (``FenceStore/execute(inboxCommands:)``); zone changes one at a time.
  func execute(_ partition: Int32) -> Bool {
    guard let owned = state.withLock({ $0.owned[partition] }) else { return false }
    var progress = owned.progress
    do {
      let commands = try inbox.commands(
        partition: partition, after: progress, limit: options.commandsPerPass)
      var run: [(seq: Int64, command: StoreCommand)] = []
      func flush() throws {
        guard !run.isEmpty else { return }
        let started = ContinuousClock.now
        let answers = try owned.store.execute(inboxCommands: run)
        if let onExecuted {
          let each = (ContinuousClock.now - started) / max(1, answers.count)
          for answer in answers { onExecuted(answer, each) }
        }
        progress = run.last!.seq
        run.removeAll()
      }
      for (seq, command) in commands {
        guard seq == progress + Int64(run.count) + 1 else {
          throw StoreError.damaged("partition \(partition)'s inbox skips to \(seq)")
        }
        switch command {
        case .fixes, .advance, .setDeviceTags:
          run.append((seq, command))
        case .addZones, .replaceAllZones, .removeZone:
          try flush()
          if let outcome = try executeOne(command, seq: seq, in: owned) {
            try owned.storage.recordInboxOutcome(seq: seq, answer: outcome)
          }
          progress = seq
        }
      }
      try flush()
      state.withLock { $0.owned[partition]?.progress = progress }
      return !commands.isEmpty
    } catch {
      logger.error(
        "partition stopped",
        metadata: ["owner": "\(name)", "partition": "\(partition)", "inboxSeq": "\(progress + 1)", "error": "\(error)"])
      drop(partition, reason: "\(error)")
      return progress > owned.progress
    }
  }

  /// Executes one inbox command; when it commits nothing, the outcome to record instead: the
  /// refusal's JSON when the engine refused it, or the answer of a zone replacement by the zones
  /// the partition already holds (every process started with the same `--zones` submits one;
  /// they change nothing, as a restart of one process with the same zone files does).
  func executeOne(_ command: StoreCommand, seq: Int64, in owned: OwnedPartition) throws -> String? {
    if case .replaceAllZones(let zones) = command,
      zones.sorted(by: { $0.id < $1.id }) == owned.store.zones
    {
      // The answer a committed replacement gives (``CommandAnswer/json``).
      let fences = zones.reduce(0) { $0 + $1.fences.count }
      let geolines = zones.reduce(0) { $0 + $1.geolines.count }
      return "{\"zones\":\(zones.count),\"fences\":\(fences),\"geolines\":\(geolines)}"
    }
    do {
      let started = ContinuousClock.now
      guard let answer = try owned.store.execute(command, inboxSeq: seq) else {
        if case .removeZone(let id) = command {
          return Self.refusal(status: 404, "no zone \"\(id)\"")
        }
        return Self.refusal(status: 404, "nothing to change")
      }
      onExecuted?(answer, ContinuousClock.now - started)
      return nil
    } catch let error as ZoneError {
      return Self.refusal(status: 400, "\(error)")
    } catch StoreError.invalidCommand(let reason) {
      return Self.refusal(status: 400, reason)
    }
  }

  /// `{"error":"…","status":N}`.
  static func refusal(status: Int, _ message: String) -> String {
    var text = "{\"error\":"
    JSONWriter.appendString(message, to: &text)
    text += ",\"status\":\(status)}"
    return text
  }

  // MARK: - Compaction

  /// What ``compact(eventRetention:now:)`` dropped.
  public struct Compacted: Hashable, Sendable {
    /// The owned partitions' stores' compaction, added up.
    public var store = CompactionReport()
    /// Inbox commands already executed, older than the retention.
    public var inboxCommands = 0
    /// Idempotency keys of submitted commands, older than the retention.
    public var inboxKeys = 0
  }

  /// Compacts every owned partition's store (``FenceStore/compact(eventRetention:now:)``) and
  /// drops, from the inboxes, the commands executed more than `eventRetention` seconds ago
  /// (keeping the last executed one of each partition, where the next owner resumes) and the
  /// idempotency keys of submits older than that: a batch sent again after the retention is a
  /// new batch, as in one process.
  public func compact(eventRetention: TimeInterval, now: Date = Date()) throws -> Compacted {
    var report = Compacted()
    let cutoff = now.addingTimeInterval(-eventRetention)
    for (partition, owned) in state.withLock({ $0.owned }).sorted(by: { $0.key < $1.key }) {
      let storeReport = try owned.store.compact(eventRetention: eventRetention, now: now)
      report.store.commands += storeReport.commands
      report.store.events += storeReport.events
      report.store.snapshots += storeReport.snapshots
      report.store.zoneSets += storeReport.zoneSets
      report.store.idempotencyKeys += storeReport.idempotencyKeys
      let progress = try owned.storage.inboxProgress()
      report.inboxCommands += try inbox.prune(partition: partition, through: progress, before: cutoff)
    }
    report.inboxKeys = try inbox.pruneKeys(before: cutoff)
    return report
  }

  // MARK: - Notifications

  /// Listens to `fk_inbox` on a connection of its own, opened again when it broke.
  func listenIfNeeded() {
    if let current = listener.withLock({ $0 }), !current.connection.isClosed { return }
    do {
      let connection = try PostgresStorage.connect(leases.settings, logger: logger)
      let wakeup = self.wakeup
      let context = connection.addListener(channel: "fk_inbox") { _, _ in wakeup.signal() }
      do {
        _ = try PostgresSession.wait(
          connection.query("LISTEN fk_inbox", logger: logger), timeout: .seconds(10))
      } catch {
        context.stop()
        PostgresSession.discard(connection)
        throw error
      }
      let previous = listener.withLock { listener in
        defer { listener = (connection, context) }
        return listener
      }
      if let previous {
        previous.context.stop()
        PostgresSession.discard(previous.connection)
      }
    } catch {
      logger.warning("cannot listen to inbox notifications (polling only)", metadata: ["error": "\(error)"])
    }
  }

  func stopListening() {
    guard let current = listener.withLock({ listener in
      defer { listener = nil }
      return listener
    }) else { return }
    current.context.stop()
    PostgresSession.closeWaiting(current.connection)
  }
}
