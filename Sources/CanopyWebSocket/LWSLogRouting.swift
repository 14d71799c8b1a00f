import CWebSockets
import Foundation

/// Routes libwebsockets' process-wide log output to the loop whose thread emitted each line.
///
/// libwebsockets has one global log hook. Every context in Canopy runs on its own service
/// thread, so a line is attributed to the loop registered for the current thread; lines
/// from other threads (rare: library initialisation) go to standard error when they are errors.
enum LWSLogRouting {
    private static let installation: Void = {
        canopy_lws_set_log(Int32(LLL_ERR | LLL_WARN | LLL_NOTICE), canopyLWSLogEmit)
    }()

    private static let loopKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Registers `loop` as the owner of the current thread (nil to clear).
    static func setCurrentLoop(_ loop: LWSServiceLoop?) {
        pthread_setspecific(loopKey, loop.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }

    /// The loop running on the current thread, if any.
    static var currentLoop: LWSServiceLoop? {
        pthread_getspecific(loopKey).map { Unmanaged<LWSServiceLoop>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Installs the log hook once per process.
    static func install() {
        _ = installation
    }

    /// Maps a libwebsockets `LLL_*` level to ours.
    static func level(_ lwsLevel: Int32) -> WebSocketLogLevel {
        if lwsLevel & Int32(LLL_ERR) != 0 { return .error }
        if lwsLevel & Int32(LLL_WARN) != 0 { return .warning }
        return .debug
    }
}

/// The C log hook installed by ``LWSLogRouting``.
func canopyLWSLogEmit(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    var text = String(cString: line)
    while let last = text.last, last.isNewline || last == " " { text.removeLast() }
    let mapped = LWSLogRouting.level(level)
    if let loop = LWSLogRouting.currentLoop {
        loop.record(level: mapped, line: text)
    } else if mapped == .error {
        WebSocketLogger.standardError.log(.error, text)
    }
}
