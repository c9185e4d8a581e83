/// Namespace placeholder for the `SensorDrivers` target; replaced as the target is built.
public enum SensorDriversModule {}
