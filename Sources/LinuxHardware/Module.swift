/// Namespace placeholder for the `LinuxHardware` target; replaced as the target is built.
public enum LinuxHardwareModule {}
