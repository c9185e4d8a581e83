import HardwareInterfaces
import LinuxHardware

/// The platform under test: LinuxHardware's real kernel devices.
func makePlatform() -> any HardwarePlatform {
    LinuxPlatform()
}
