/// Namespace placeholder for the `SimulatedHardware` target; replaced as the target is built.
public enum SimulatedHardwareModule {}
