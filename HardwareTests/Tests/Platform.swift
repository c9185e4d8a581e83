import HardwareInterfaces
import LinuxHardware

/// The platform under test on a board: LinuxHardware's real kernel devices.
func makePlatform() -> any HardwarePlatform {
    LinuxPlatform()
}
