import Foundation
import LinuxHardware
import Testing

@Suite("The system clock's synchronisation as the kernel reports it")
struct SystemClockSyncTests {
    @Test("adjtimex read only: when synchronised, UTC within a second of Foundation's and an error bound within the kernel's 16 s cap")
    func synchronised() {
        // Read twice: the kernel's answer does not change between two reads a moment apart.
        let first = SystemWallClock.synchronised()
        let second = SystemWallClock.synchronised()
        #expect((first == nil) == (second == nil))
        guard let state = first else { return }
        #expect(abs(state.utcSeconds - Date().timeIntervalSince1970) < 1)
        #expect(state.maximumError >= 0 && state.maximumError <= 16, "\(state.maximumError) s")
    }
}
